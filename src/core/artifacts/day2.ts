// Day-2 (add-hosts) pointer ignition (core.md §8.6). The endpoint (URL, CAs, headers) is exposed
// separately because the api-vip-connectivity-check step uses the same one.

import { effectiveRole } from '../installconfig/index.ts';
import type { Cluster, Host } from '../model.ts';
import {
  addStaterootCleanup,
  applyHostIgnitionOverride,
  hostIgnitionFileName,
  setHostname,
} from './host-ignition.ts';
import {
  decodeDataUrl,
  type IgnitionConfig,
  MACHINE_CONFIG_SERVER_HTTP_PORT,
  MACHINE_CONFIG_SERVER_PORT,
  POINTER_IGNITION_VERSION,
  serializeIgnition,
} from './ignition.ts';

export interface Day2IgnitionInput {
  cluster: Cluster;
  host: Host;
  /** The host's ignition-endpoint token; sent as "Authorization: Bearer <token>". */
  ignitionEndpointToken?: string;
  /** The host's extra ignition-endpoint HTTP headers. */
  httpHeaders?: Record<string, string>;
}

export interface IgnitionEndpoint {
  url: string;
  /** CA certificates, each base64-encoded (as `ignition_endpoint.ca_certificate` is stored). */
  caCertificates: string[];
  headers: { name: string; value: string }[];
}

/** The pool a day-2 host joins: its machine config pool, else its role (auto-assign → worker). */
export function day2Pool(host: Host): string {
  if (host.machine_config_pool_name) return host.machine_config_pool_name;
  const role = effectiveRole(host);
  return role === 'auto-assign' ? 'worker' : role;
}

function overrideCertificateAuthorities(host: Host): string[] {
  if (!host.ignition_config_overrides) return [];
  let parsed: IgnitionConfig;
  try {
    parsed = JSON.parse(host.ignition_config_overrides) as IgnitionConfig;
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const ca of parsed?.ignition?.security?.tls?.certificateAuthorities ?? []) {
    const bytes = ca.source ? decodeDataUrl(ca.source) : undefined;
    if (bytes) out.push(bytes.toString('base64'));
  }
  return out;
}

function urlHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** Where a day-2 host fetches its config, with the CAs and headers needed to do so. */
export function day2IgnitionEndpoint(input: Day2IgnitionInput): IgnitionEndpoint {
  const { cluster, host } = input;
  const caCertificates: string[] = [];
  const fromCluster = cluster.ignition_endpoint?.ca_certificate;
  for (const ca of [...(fromCluster ? [fromCluster] : []), ...overrideCertificateAuthorities(host)]) {
    const decoded = Buffer.from(ca, 'base64').toString('utf8');
    if (!caCertificates.some((c) => Buffer.from(c, 'base64').toString('utf8') === decoded))
      caCertificates.push(ca);
  }
  const pool = day2Pool(host);
  let url: string;
  if (cluster.ignition_endpoint?.url) {
    url = `${cluster.ignition_endpoint.url}/${pool}`;
  } else {
    let apiHost = cluster.api_vip_dns_name || `api.${cluster.name}.${cluster.base_dns_domain}`;
    const secure = caCertificates.length > 0;
    if (secure && apiHost.startsWith('api.')) apiHost = `api-int.${apiHost.slice('api.'.length)}`;
    url = secure
      ? `https://${urlHost(apiHost)}:${MACHINE_CONFIG_SERVER_PORT}/config/${pool}`
      : `http://${urlHost(apiHost)}:${MACHINE_CONFIG_SERVER_HTTP_PORT}/config/${pool}`;
  }
  const headers: { name: string; value: string }[] = [];
  if (input.ignitionEndpointToken)
    headers.push({ name: 'Authorization', value: `Bearer ${input.ignitionEndpointToken}` });
  for (const name of Object.keys(input.httpHeaders ?? {}).sort()) {
    headers.push({ name, value: input.httpHeaders?.[name] ?? '' });
  }
  return { url, caCertificates, headers };
}

/** The pointer config (ignition 3.2.0) for a day-2 host, `<role>-<hostID>.ign`. */
export function buildDay2PointerIgnition(input: Day2IgnitionInput): { fileName: string; content: string } {
  const endpoint = day2IgnitionEndpoint(input);
  const merge: { source: string; httpHeaders?: { name: string; value: string }[] } = { source: endpoint.url };
  if (endpoint.headers.length > 0) merge.httpHeaders = endpoint.headers;
  let config: IgnitionConfig = {
    ignition: { version: POINTER_IGNITION_VERSION, config: { merge: [merge] } },
  };
  if (endpoint.caCertificates.length > 0) {
    config.ignition.security = {
      tls: {
        certificateAuthorities: endpoint.caCertificates.map((ca) => ({
          source: `data:text/plain;base64,${ca}`,
        })),
      },
    };
  }
  config = applyHostIgnitionOverride(config, input.host);
  setHostname(config, input.host);
  config = addStaterootCleanup(config, input.host);
  return { fileName: hostIgnitionFileName(input.host), content: serializeIgnition(config) };
}
