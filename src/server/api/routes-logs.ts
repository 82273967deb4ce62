// Log upload by logs_sender and the installer (multipart field `upfile`, streamed to the backend)
// and log download through the signed debugInfo.logsURL (agent-api.md §2.1, kubeapi.md §3.11).

import { type ApiRoute, defineRoute, errorReply, fromOutcome } from './api-route.ts';
import { LOGS_TYPES, type LogsType } from './backend.ts';
import { BodyTimeoutError, limitedChunks, PayloadTooLargeError } from './http-io.ts';
import { findFilePart, MultipartError, multipartBoundary } from './multipart.ts';

const LOGS_PATH = '/v2/clusters/{cluster_id}/logs';

interface UploadQuery {
  logsType: 'host' | 'controller';
  infraEnvId?: string;
  hostId?: string;
}

const uploadLogs = defineRoute<UploadQuery>({
  method: 'POST',
  path: LOGS_PATH,
  auth: { agent: true },
  query: (q) => {
    const logsType = q.oneOf('logs_type', ['host', 'controller'] as const, true)!;
    const infraEnvId = q.uuid('infra_env_id');
    const hostId = q.uuid('host_id');
    if (logsType === 'host' && (infraEnvId === undefined || hostId === undefined)) {
      q.fail('infra_env_id and host_id in query are required when logs_type is host');
    }
    return {
      logsType,
      ...(infraEnvId !== undefined ? { infraEnvId } : {}),
      ...(hostId !== undefined ? { hostId } : {}),
    };
  },
  target: (params, query) => ({
    clusterId: params.cluster_id!,
    ...(query.infraEnvId !== undefined ? { infraEnvId: query.infraEnvId } : {}),
    ...(query.hostId !== undefined ? { hostId: query.hostId } : {}),
  }),
  async handle(ctx) {
    const boundary = multipartBoundary(ctx.req.headers['content-type']);
    if (!boundary) return errorReply(400, 'request body must be multipart/form-data with a boundary');
    // Uploads stream to disk: bounded in number, not in memory. Held until the reply is sent.
    ctx.hold(await ctx.deps.budgets.uploads.acquire(1));
    const source = limitedChunks(ctx.req, ctx.deps.limits.logsUploadBytes, {
      idleMs: ctx.deps.limits.uploadIdleTimeoutMs,
    });
    const file = await findFilePart(source, boundary, 'upfile');
    if (!file) return errorReply(400, 'upfile in formData is required');
    // Remember why the stream broke, so an over-long upload is answered 413 whatever the backend
    // made of the broken stream.
    let streamError: unknown;
    file.stream.on('error', (err) => {
      streamError = err;
    });
    const rethrowStreamError = () => {
      if (
        streamError instanceof PayloadTooLargeError ||
        streamError instanceof MultipartError ||
        streamError instanceof BodyTimeoutError
      )
        throw streamError;
    };
    let outcome: Awaited<ReturnType<typeof ctx.deps.backend.uploadLogs>>;
    try {
      outcome = await ctx.deps.backend.uploadLogs(ctx.call, {
        clusterId: ctx.params.cluster_id!,
        ...ctx.query,
        file: {
          fileName: file.fileName,
          ...(file.contentType ? { contentType: file.contentType } : {}),
          stream: file.stream,
        },
      });
    } catch (err) {
      rethrowStreamError();
      throw err;
    } finally {
      if (!file.stream.readableEnded) {
        // The backend stopped reading: detach from the request so the rest of the body can be
        // discarded (and the client can read our answer) instead of stalling the connection.
        file.stream.destroy();
        source.return(undefined).catch(() => {});
      }
    }
    rethrowStreamError();
    return fromOutcome(outcome, () => ({ kind: 'empty', status: 204 }));
  },
});

interface DownloadQuery {
  logsType?: LogsType;
  hostId?: string;
}

const downloadClusterLogs = defineRoute<DownloadQuery>({
  method: 'GET',
  path: LOGS_PATH,
  auth: { url: ['cluster-logs'] },
  query: (q) => {
    const logsType = q.oneOf('logs_type', LOGS_TYPES);
    const hostId = q.uuid('host_id');
    return {
      ...(logsType !== undefined ? { logsType } : {}),
      ...(hostId !== undefined ? { hostId } : {}),
    };
  },
  target: (params, query) => ({
    clusterId: params.cluster_id!,
    ...(query.hostId !== undefined ? { hostId: query.hostId } : {}),
  }),
  async handle(ctx) {
    const outcome = await ctx.deps.backend.downloadClusterLogs(ctx.call, {
      clusterId: ctx.params.cluster_id!,
      ...ctx.query,
    });
    return fromOutcome(outcome, (file) => ({ kind: 'file', file }));
  },
});

export const LOGS_ROUTES: readonly ApiRoute<unknown>[] = [uploadLogs, downloadClusterLogs];
