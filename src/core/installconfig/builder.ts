// The platform-independent part of install-config (core.md §7.2).

import type { Cluster, HostRole } from '../model.ts';
import { baseVersionAtLeast, baseVersionBelow, majorMinorEquals } from '../version.ts';
import { effectiveHostname, effectiveRole, isTwoNodesWithFencing } from './hosts.ts';
import { mirrorSources } from './registries.ts';
import type {
  FencingCredential,
  ImageSource,
  InstallConfig,
  InstallConfigOptions,
  MachinePool,
} from './types.ts';

/** A cluster that cannot be turned into an install-config; the message is user-facing. */
export class InstallConfigError extends Error {
  override name = 'InstallConfigError';
}

export const TECH_PREVIEW_NO_UPGRADE = 'TechPreviewNoUpgrade';

type PoolPlural = 'masters' | 'workers' | 'arbiters';

/**
 * "all" (the registration default, also assumed when unset) enables every pool; otherwise the value
 * is a comma list of pool plurals ("masters,workers", "none", ...).
 */
export function hyperthreadingFor(cluster: Cluster, pool: PoolPlural): 'Enabled' | 'Disabled' {
  const setting = cluster.hyperthreading ?? 'all';
  if (setting === 'all') return 'Enabled';
  const listed = setting.split(',').map((s) => s.trim());
  return listed.includes(pool) ? 'Enabled' : 'Disabled';
}

export function countByEffectiveRole(cluster: Cluster, role: HostRole): number {
  return cluster.hosts.filter((h) => effectiveRole(h) === role).length;
}

/** noProxy: "*" as is; else the user's entries (empties dropped), the cluster domain and every CIDR. */
export function generateNoProxy(cluster: Cluster): string {
  const noProxy = (cluster.no_proxy ?? '').trim();
  if (noProxy === '*') return noProxy;
  const entries = noProxy.split(',').filter((s) => s !== '');
  entries.push(`.${cluster.name}.${cluster.base_dns_domain}`);
  for (const n of cluster.cluster_networks) entries.push(n.cidr);
  for (const n of cluster.service_networks) entries.push(n.cidr);
  for (const n of cluster.machine_networks) entries.push(n.cidr);
  return entries.join(',');
}

interface StoredFencingCredentials {
  address?: string;
  username?: string;
  password?: string;
  certificate_verification?: string;
  mac_address?: string | null;
}

function fencingCredentials(cluster: Cluster): FencingCredential[] {
  const masters = cluster.hosts.filter((h) => effectiveRole(h) === 'master');
  return masters.map((host) => {
    let stored: StoredFencingCredentials;
    try {
      stored = JSON.parse(host.fencing_credentials ?? '') as StoredFencingCredentials;
    } catch {
      throw new InstallConfigError(`failed to parse fencing credentials of host ${host.id}`);
    }
    const cred: FencingCredential = {
      address: stored.address ?? '',
      username: stored.username ?? '',
      password: stored.password ?? '',
    };
    if (stored.mac_address) cred.macAddress = stored.mac_address;
    else cred.hostname = effectiveHostname(host);
    if (stored.certificate_verification) cred.certificateVerification = stored.certificate_verification;
    return cred;
  });
}

function imageSources(options: InstallConfigOptions): ImageSource[] {
  const clusterSources = mirrorSources(options.mirrorRegistries?.cluster);
  const sources =
    clusterSources.length > 0 ? clusterSources : mirrorSources(options.mirrorRegistries?.service);
  return sources.map((s) => ({ source: s.source, mirrors: [...s.mirrors] }));
}

function pool(cluster: Cluster, name: string, plural: PoolPlural, role: HostRole): MachinePool {
  return {
    hyperthreading: hyperthreadingFor(cluster, plural),
    name,
    replicas: countByEffectiveRole(cluster, role),
  };
}

function nilIfEmpty<T>(items: T[]): T[] | null {
  return items.length > 0 ? items : null;
}

/** Steps 1 of the pipeline: everything but the platform section, overrides and trust bundle. */
export function buildBasicInstallConfig(cluster: Cluster, options: InstallConfigOptions): InstallConfig {
  const networkType = cluster.network_type === 'None' ? '' : (cluster.network_type ?? '');
  const cfg: InstallConfig = {
    apiVersion: 'v1',
    baseDomain: cluster.base_dns_domain,
    networking: {
      networkType,
      clusterNetwork: nilIfEmpty(
        cluster.cluster_networks.map((n) => ({ cidr: n.cidr, hostPrefix: n.host_prefix })),
      ),
      machineNetwork: nilIfEmpty(cluster.machine_networks.map((n) => ({ cidr: n.cidr }))),
      serviceNetwork: nilIfEmpty(cluster.service_networks.map((n) => n.cidr)),
    },
    metadata: { name: cluster.name },
    compute: [pool(cluster, 'worker', 'workers', 'worker')],
    controlPlane: pool(cluster, 'master', 'masters', 'master'),
    platform: {},
    fips: false,
    pullSecret: cluster.pull_secret ?? '',
    sshKey: cluster.ssh_public_key ?? '',
  };

  if (cluster.hosts.some((h) => effectiveRole(h) === 'arbiter')) {
    cfg.arbiter = pool(cluster, 'arbiter', 'arbiters', 'arbiter');
    if (majorMinorEquals(cluster.openshift_version, '4.19')) cfg.featureSet = TECH_PREVIEW_NO_UPGRADE;
  }

  if (isTwoNodesWithFencing(cluster)) {
    cfg.controlPlane.fencing = { credentials: fencingCredentials(cluster) };
    if (baseVersionBelow(cluster.openshift_version, '4.22')) cfg.featureSet = TECH_PREVIEW_NO_UPGRADE;
  }

  if (cluster.http_proxy || cluster.https_proxy) {
    cfg.proxy = {
      httpProxy: cluster.http_proxy ?? '',
      httpsProxy: cluster.https_proxy ?? '',
      noProxy: generateNoProxy(cluster),
    };
  }

  const sources = imageSources(options);
  if (sources.length > 0) {
    if (baseVersionAtLeast(cluster.openshift_version, '4.14')) cfg.imageDigestSources = sources;
    else cfg.imageContentSources = sources.map((s) => ({ mirrors: s.mirrors ?? [], source: s.source }));
  }
  return cfg;
}
