// The host-facing server of the operator: the REST API (agent-api.md §2) and the image service on
// one port. The backend is composed from its three parts — hosts (hosts/backend.ts), clusters
// (clusters/backend.ts) and infra-envs (infraenvs/backend.ts) — all authenticated by one LocalAuth
// (src/records/hosts/auth.ts) whose keys live in a Secret of the operator namespace. The operator's
// composition root (src/operator/main.ts) starts it.

import type { LocalAuth } from '../auth/index.ts';
import type { OperatorContext } from '../records/context.ts';
import { localAuthFor } from '../records/hosts/auth.ts';
import { type ApiServer, createApiServer, type HostApiBackend } from './api/index.ts';
import { clusterBackend } from './clusters/backend.ts';
import { hostBackend } from './hosts/backend.ts';
import { infraEnvBackend } from './infraenvs/backend.ts';
import { mountImageRoutes } from './infraenvs/image-routes.ts';

export interface HostServer {
  /** The bound port (the configured one, or the one picked for port 0). */
  port: number;
  auth: LocalAuth;
  server: ApiServer;
  close(): Promise<void>;
}

function urlWithPort(url: string, host: string, port: number): string {
  const u = new URL(url);
  if (u.port !== '0') return url;
  u.hostname = host;
  u.port = String(port);
  return u.toString().replace(/\/+$/, '');
}

/**
 * Starts the REST API and image service on ctx.settings.apiBindHost:apiPort. With port 0 the
 * kernel picks one and the default base URLs (which name port 0) are rewritten to it.
 */
export async function startHostServer(ctx: OperatorContext): Promise<HostServer> {
  const auth = await localAuthFor(ctx);
  const backend: HostApiBackend = {
    ...clusterBackend(ctx, { auth }),
    ...infraEnvBackend(ctx, { auth }),
    ...hostBackend(ctx, { auth }),
  };
  const server = createApiServer({
    backend,
    auth,
    logger: ctx.logger.child({ component: 'api' }),
    // Only the Lease holder serves (docs/design/records.md, "Replicas"): check-ins and step replies
    // live in the memory of the process that runs the controllers. A standby is not ready, so the
    // Service routes to the leader, and answers 503 to a host that reaches it anyway.
    probes: { ready: () => ctx.mgr.isReady() && ctx.mgr.isLeader },
    serving: () => ctx.mgr.isLeader,
  });
  mountImageRoutes(ctx, server, auth);
  const address = await server.listen(ctx.settings.apiPort, ctx.settings.apiBindHost);
  if (ctx.settings.apiPort === 0) {
    const host = ctx.settings.apiBindHost === '0.0.0.0' ? '127.0.0.1' : ctx.settings.apiBindHost;
    const bound = (url: string | undefined) => url && urlWithPort(url, host, address.port);
    const { service, image, listen } = ctx.urlState.sources;
    ctx.urlState.update({
      service: bound(service),
      image: bound(image),
      listen: urlWithPort(listen, host, address.port),
    });
  }
  ctx.logger.info({ port: address.port, urls: ctx.urls }, 'host API listening');
  return { port: address.port, auth, server, close: () => server.close() };
}
