// Core records → REST models (agent-api.md §3.2, §3.5). The core keeps parsed values; the wire
// carries several of them as JSON strings (`inventory` above all: the installer and controller
// parse it and abort when it is not valid Inventory JSON). Secrets never leave.

import { sortStaticNetworkConfig } from '../../core/ignition/index.ts';
import type { Cluster, Host, MonitoredOperator } from '../../core/model.ts';
import type { InfraEnvRecord } from './backend.ts';

export const API_BASE_PATH = '/api/assisted-install';

/** Host fields the core keeps as values and the wire model declares as JSON strings. */
const HOST_JSON_STRING_FIELDS = [
  'inventory',
  'validations_info',
  'connectivity',
  'free_addresses',
  'ntp_sources',
  'disks_info',
  'images_status',
  'domain_name_resolutions',
  'api_vip_connectivity',
  'node_labels',
] as const satisfies readonly (keyof Host)[];

export type WireObject = Record<string, unknown>;

export function hostHref(host: Pick<Host, 'id' | 'infra_env_id'>): string {
  return `${API_BASE_PATH}/v2/infra-envs/${host.infra_env_id}/hosts/${host.id}`;
}

type HostJsonField = (typeof HOST_JSON_STRING_FIELDS)[number];
const NONE: ReadonlySet<HostJsonField> = new Set();

/** The host on the wire, less `omit` (left out before serialising: a report can be 0.5 MiB). */
export function hostToWire(host: Host, omit: ReadonlySet<HostJsonField> = NONE): WireObject {
  const out: WireObject = { ...host, href: hostHref(host) };
  for (const field of HOST_JSON_STRING_FIELDS) {
    const value = host[field];
    if (omit.has(field)) delete out[field];
    else if (value !== undefined && value !== null) out[field] = JSON.stringify(value);
  }
  // The model declares a comma-separated string; an array fails the Go clients' whole decode.
  if (host.disks_to_be_formatted !== undefined)
    out.disks_to_be_formatted = host.disks_to_be_formatted.join(',');
  return out;
}

export interface HostListFilter {
  role?: string;
  status?: string;
  withInventory?: boolean;
  withConnectivity?: boolean;
}

/**
 * host-list for GET /v2/clusters/{cid}/hosts: the hosts it carries, and each on the wire
 * (inventory and connectivity only when asked for), converted one at a time as they are sent.
 * The installer and the controller list a cluster's hosts every few seconds without either; in a
 * 1,000-host cluster serialising the reports only to drop them was 0.5 GB of JSON per call.
 */
export function hostListOf(
  hosts: readonly Host[],
  filter: HostListFilter,
): { hosts: Host[]; toWire: (host: Host) => WireObject } {
  const omit = new Set<HostJsonField>();
  if (!filter.withInventory) omit.add('inventory');
  if (!filter.withConnectivity) omit.add('connectivity');
  return {
    hosts: hosts
      .filter((h) => filter.role === undefined || h.role === filter.role)
      .filter((h) => filter.status === undefined || h.status === filter.status),
    toWire: (h) => hostToWire(h, omit),
  };
}

export function operatorToWire(clusterId: string, operator: MonitoredOperator): WireObject {
  return { cluster_id: clusterId, ...operator };
}

export function clusterToWire(cluster: Cluster, options: { excludeHosts?: boolean } = {}): WireObject {
  const { pull_secret: _secret, hosts, validations_info, monitored_operators, ...rest } = cluster;
  const out: WireObject = {
    ...rest,
    href: `${API_BASE_PATH}/v2/clusters/${cluster.id}`,
    // Required by the model; the ISO fields it held are per infra-env in the v2 API.
    image_info: {},
    pull_secret_set:
      cluster.pull_secret_set ?? (cluster.pull_secret !== undefined && cluster.pull_secret !== ''),
  };
  if (validations_info !== undefined) out.validations_info = JSON.stringify(validations_info);
  // A uuid in the model: upstream omits it while unset rather than sending "".
  if (out.openshift_cluster_id === '') delete out.openshift_cluster_id;
  if (monitored_operators !== undefined) {
    out.monitored_operators = monitored_operators.map((op) => operatorToWire(cluster.id, op));
  }
  // Last, so a cluster sent host by host (routes-cluster.ts) writes the same bytes.
  if (!options.excludeHosts) out.hosts = hosts.map((h) => hostToWire(h));
  return out;
}

export function infraEnvToWire(infraEnv: InfraEnvRecord): WireObject {
  const out: WireObject = {
    id: infraEnv.id,
    kind: 'InfraEnv',
    href: `${API_BASE_PATH}/v2/infra-envs/${infraEnv.id}`,
    name: infraEnv.name,
    type: infraEnv.type ?? 'full-iso',
    pull_secret_set: infraEnv.pull_secret !== undefined && infraEnv.pull_secret !== '',
    // The image service parses this JSON string (operation/value pairs).
    kernel_arguments: JSON.stringify(infraEnv.kernel_arguments ?? []),
  };
  const copy = [
    'cluster_id',
    'openshift_version',
    'cpu_architecture',
    'ssh_authorized_key',
    'proxy',
    'additional_ntp_sources',
    'additional_trust_bundle',
    'download_url',
    'expires_at',
    'created_at',
    'updated_at',
  ] as const;
  for (const key of copy) {
    const value = infraEnv[key];
    // None of these is nullable in the model: upstream omits an unset one (an unbound cluster_id).
    if (value !== undefined && value !== null) out[key] = value;
  }
  const staticNetwork = staticNetworkToWire(infraEnv.static_network_config ?? []);
  if (staticNetwork !== '') out.static_network_config = staticNetwork;
  return out;
}

/**
 * The infra-env's static network list as upstream stores and returns it: a JSON string of the
 * sorted entries with Go's field order; "" (left out of the body) when there are none.
 */
export function staticNetworkToWire(configs: NonNullable<InfraEnvRecord['static_network_config']>): string {
  if (configs.length === 0) return '';
  return JSON.stringify(
    sortStaticNetworkConfig([...configs]).map((c) => ({
      mac_interface_map: c.mac_interface_map.map((m) => ({
        logical_nic_name: m.logical_nic_name,
        mac_address: m.mac_address,
      })),
      network_yaml: c.network_yaml,
    })),
  );
}

/** next_step_runner_command of host_registration_response (§1.1 step 2, §3.1). */
export function nextStepRunnerCommand(
  host: Pick<Host, 'id' | 'infra_env_id'>,
  agentImage: string,
  retrySeconds?: number,
): WireObject {
  const request = { agent_version: agentImage, host_id: host.id, infra_env_id: host.infra_env_id };
  return {
    command: '',
    args: [JSON.stringify(request)],
    ...(retrySeconds !== undefined ? { retry_seconds: retrySeconds } : {}),
  };
}
