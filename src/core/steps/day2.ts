// Day-2 (add-hosts) specifics: the ignition endpoint the new host must reach (core.md §8.6) and
// the Tang servers found in the ignition it fetched.

import { decodeDataUrl } from '../ignition/encoding.ts';
import type { Cluster, Host } from '../model.ts';
import { effectiveRole } from '../statemachine/hostutil.ts';
import type { StepsOptions } from './types.ts';

export const MCS_SECURE_PORT = 22623;
export const MCS_INSECURE_PORT = 22624;

export interface ApiVipConnectivityRequest {
  url: string;
  ca_certificate?: string;
  ignition_endpoint_token?: string;
  request_headers?: { key: string; value: string }[];
}

/** The machine config pool the host joins: its pool, else its role (auto-assign → worker). */
export function day2Pool(host: Host): string {
  if (host.machine_config_pool_name) return host.machine_config_pool_name;
  const role = effectiveRole(host);
  return role === 'auto-assign' ? 'worker' : role;
}

/** CAs (PEM text) listed as data URLs in the host's ignition override. */
function overrideCas(host: Host): string[] {
  if (!host.ignition_config_overrides) return [];
  try {
    const override = JSON.parse(host.ignition_config_overrides) as {
      ignition?: { security?: { tls?: { certificateAuthorities?: { source?: string }[] } } };
    };
    return (override.ignition?.security?.tls?.certificateAuthorities ?? []).flatMap((ca) => {
      const bytes = ca.source ? decodeDataUrl(ca.source) : undefined;
      return bytes ? [bytes.toString('utf8')] : [];
    });
  } catch {
    return [];
  }
}

/**
 * URL and CA of the cluster's machine-config server for this host. A CA (cluster ignition
 * endpoint CA, base64, plus any CA in the host's override) means https on 22623 via api-int;
 * none means plain http on 22624. A custom endpoint URL wins: `<url>/<pool>`.
 */
export function apiVipConnectivityRequest(
  host: Host,
  cluster: Cluster,
  options: Pick<StepsOptions, 'hostIgnitionEndpoint'>,
): ApiVipConnectivityRequest {
  const pool = day2Pool(host);
  const cas: string[] = [];
  const clusterCa = cluster.ignition_endpoint?.ca_certificate;
  if (clusterCa) cas.push(Buffer.from(clusterCa, 'base64').toString('utf8'));
  for (const ca of overrideCas(host)) if (!cas.includes(ca)) cas.push(ca);

  let url: string;
  if (cluster.ignition_endpoint?.url) {
    url = `${cluster.ignition_endpoint.url}/${pool}`;
  } else {
    let apiHost = cluster.api_vip_dns_name || `api.${cluster.name}.${cluster.base_dns_domain}`;
    if (cas.length > 0 && apiHost.startsWith('api.')) apiHost = `api-int.${apiHost.slice('api.'.length)}`;
    const [scheme, port] = cas.length > 0 ? ['https', MCS_SECURE_PORT] : ['http', MCS_INSECURE_PORT];
    url = `${scheme}://${apiHost}:${port}/config/${pool}`;
  }
  const endpoint = options.hostIgnitionEndpoint?.(host.id);
  const request: ApiVipConnectivityRequest = { url };
  if (cas.length > 0) request.ca_certificate = Buffer.from(cas.join(''), 'utf8').toString('base64');
  if (endpoint?.token) request.ignition_endpoint_token = endpoint.token;
  const headers = Object.entries(endpoint?.headers ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (headers.length > 0) request.request_headers = headers.map(([key, value]) => ({ key, value }));
  return request;
}

/** Tang servers (JSON text) from the LUKS clevis sections of the ignition the host downloaded. */
export function day2TangServers(host: Host): string | undefined {
  const ignition = host.api_vip_connectivity?.ignition;
  if (!ignition) return undefined;
  try {
    const config = JSON.parse(ignition) as {
      storage?: { luks?: { clevis?: { tang?: { url?: string; thumbprint?: string }[] } }[] };
    };
    const servers = (config.storage?.luks ?? []).flatMap((luks) => luks.clevis?.tang ?? []);
    if (servers.length === 0) return undefined;
    return JSON.stringify(
      servers.map((t) => ({ ...(t.thumbprint ? { thumbprint: t.thumbprint } : {}), url: t.url ?? '' })),
    );
  } catch {
    return undefined;
  }
}

/** The OS image a persistent-boot day-2 install uses: osImageURL of the worker MachineConfig in the fetched ignition. */
export function day2CoreosImage(host: Host): string | undefined {
  const ignition = host.api_vip_connectivity?.ignition;
  if (!ignition) return undefined;
  try {
    const config = JSON.parse(ignition) as {
      storage?: { files?: { path?: string; contents?: { source?: string } }[] };
    };
    const encapsulated = config.storage?.files?.find(
      (f) => f.path === '/etc/ignition-machine-config-encapsulated.json',
    );
    const source = encapsulated?.contents?.source;
    const bytes = source ? decodeDataUrl(source) : undefined;
    if (!bytes) return undefined;
    const mc = JSON.parse(bytes.toString('utf8')) as { spec?: { osImageURL?: string } };
    return mc.spec?.osImageURL || undefined;
  } catch {
    return undefined;
  }
}
