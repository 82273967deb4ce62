// Which host bootstraps the cluster (spec §8.7).

import type { Cluster, Host } from '../model.ts';
import { hostEvent } from './host-update.ts';
import { effectiveRole, hostnameForMessage } from './hostutil.ts';
import { failure, type SmEvent, type SmFailure } from './result.ts';

export const NO_BOOTSTRAP_CANDIDATE = 'Cluster have no master hosts that can operate as bootstrap';

export type BootstrapChoice =
  | {
      readonly ok: true;
      readonly hostId: string;
      readonly hosts: Host[];
      readonly changed: boolean;
      readonly events: SmEvent[];
    }
  | SmFailure;

/**
 * Keeps an existing bootstrap host; otherwise picks the LAST host (record order, i.e. insertion
 * order) whose effective role is master and whose status is known or preparing-for-installation.
 */
export function chooseBootstrapHost(cluster: Pick<Cluster, 'hosts'>): BootstrapChoice {
  const existing = cluster.hosts.find((h) => h.bootstrap === true);
  if (existing) return { ok: true, hostId: existing.id, hosts: cluster.hosts, changed: false, events: [] };
  const candidates = cluster.hosts.filter(
    (h) =>
      effectiveRole(h) === 'master' && (h.status === 'known' || h.status === 'preparing-for-installation'),
  );
  const chosen = candidates[candidates.length - 1];
  if (!chosen) return failure(409, NO_BOOTSTRAP_CANDIDATE);
  const updated: Host = { ...chosen, bootstrap: true };
  const event = hostEvent(
    updated,
    'host_bootstrap_set',
    'info',
    `Host ${hostnameForMessage(updated)}: set as bootstrap`,
  );
  return {
    ok: true,
    hostId: chosen.id,
    hosts: cluster.hosts.map((h) => (h.id === chosen.id ? updated : h)),
    changed: true,
    events: [event],
  };
}

function normalizeMac(mac: string): string {
  return mac.trim().toLowerCase();
}

/** BOOTSTRAP_HOST_MAC: the host owning that MAC becomes master + bootstrap (ephemeral installer). */
export function applyBootstrapHostMac(host: Host, bootstrapMac: string | undefined): Host {
  if (!bootstrapMac) return host;
  const mac = normalizeMac(bootstrapMac);
  const owns = (host.inventory?.interfaces ?? []).some(
    (i) => i.mac_address && normalizeMac(i.mac_address) === mac,
  );
  if (!owns || (host.role === 'master' && host.bootstrap === true)) return host;
  return { ...host, role: 'master', bootstrap: true };
}
