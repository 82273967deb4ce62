// Per-host install ignition (core.md §8.5): the role's pointer config plus the host's hostname,
// node-IP hint, ignition overrides, machine-config-pool and persistent-boot cleanup.

import { parseAllDocuments } from 'yaml';
import {
  effectiveHostname,
  effectiveRole,
  isSingleNode,
  type NodeIpAllocation,
  userManagedMachineNetworks,
} from '../installconfig/index.ts';
import type { Cluster, Host } from '../model.ts';
import { networkAddress } from '../network/cidr.ts';
import {
  type IgnitionConfig,
  IgnitionError,
  inlineFile,
  parseIgnition,
  serializeIgnition,
  setFile,
  setUnit,
} from './ignition.ts';
import { checkOverrideVersion, mergeIgnition } from './ignition-merge.ts';

/** A manifest file of the cluster, as stored: folder "manifests" or "openshift", plus file name. */
export interface ClusterManifest {
  folder: string;
  fileName: string;
  content: string;
}

/** The role ignitions a cluster's installation produced (JSON text). */
export interface RoleIgnitions {
  master: string;
  worker: string;
  arbiter?: string;
}

export interface HostIgnitionInput {
  cluster: Cluster;
  host: Host;
  roleIgnitions: RoleIgnitions;
  /** Cluster manifests; searched for MachineConfigPool objects. */
  manifests?: ClusterManifest[];
  /** Node-IP allocations by host id (multi-node UMN / user-managed load balancer, §6.7). */
  nodeIpAllocations?: Record<string, NodeIpAllocation>;
}

export interface HostIgnitionFile {
  fileName: string;
  content: string;
}

export const HOSTNAME_PATH = '/etc/hostname';
export const NODE_IP_HINT_PATH = '/etc/default/nodeip-configuration';
export const STATEROOT_CLEANUP_SCRIPT = '/usr/local/bin/cleanup-assisted-discovery-stateroot.sh';
export const STATEROOT_CLEANUP_UNIT = 'cleanup-assisted-discovery-stateroot.service';

const STATEROOT_CLEANUP_SCRIPT_CONTENT = `#!/bin/bash
# Removes the discovery OS stateroot left behind when the host was installed onto the disk it
# booted the discovery image from: every stateroot other than the booted one is deleted.
set -euo pipefail
booted=$(rpm-ostree status --json | jq -r '.deployments[] | select(.booted) | .osname')
mount -o remount,rw /sysroot
for dir in /sysroot/ostree/deploy/*; do
  name=$(basename "$dir")
  if [ -n "$booted" ] && [ "$name" != "$booted" ]; then
    echo "removing discovery stateroot $name"
    rm -rf "$dir"
  fi
done
ostree admin cleanup
`;

const STATEROOT_CLEANUP_UNIT_CONTENT = `[Unit]
Description=Remove the assisted discovery stateroot
ConditionFirstBoot=yes
After=ostree-finalize-staged.service

[Service]
Type=oneshot
ExecStart=${STATEROOT_CLEANUP_SCRIPT}
RemainAfterExit=yes

[Install]
WantedBy=multi-user.target
`;

/** `<effectiveRole>-<hostID>.ign`. */
export function hostIgnitionFileName(host: Host): string {
  return `${effectiveRole(host)}-${host.id}.ign`;
}

/** Merges the host's `ignition_config_overrides` (if any) on top of `config`. */
export function applyHostIgnitionOverride(config: IgnitionConfig, host: Host): IgnitionConfig {
  if (!host.ignition_config_overrides) return config;
  const what = `ignition config override of host ${host.id}`;
  const override = parseIgnition(host.ignition_config_overrides, what);
  checkOverrideVersion(override, what);
  return mergeIgnition(config, override);
}

/** Hosts installed onto the disk they booted discovery from clean the old stateroot on first boot. */
export function addStaterootCleanup(config: IgnitionConfig, host: Host): IgnitionConfig {
  if (host.inventory?.boot?.device_type !== 'persistent') return config;
  const cleanup: IgnitionConfig = { ignition: { version: config.ignition.version } };
  setFile(cleanup, inlineFile(STATEROOT_CLEANUP_SCRIPT, STATEROOT_CLEANUP_SCRIPT_CONTENT, 493));
  setUnit(cleanup, { name: STATEROOT_CLEANUP_UNIT, enabled: true, contents: STATEROOT_CLEANUP_UNIT_CONTENT });
  return mergeIgnition(config, cleanup);
}

export function setHostname(config: IgnitionConfig, host: Host): void {
  // Upstream writes the name unescaped after "data:,".
  setFile(config, {
    overwrite: true,
    path: HOSTNAME_PATH,
    user: { name: 'root' },
    contents: { source: `data:,${effectiveHostname(host)}` },
    mode: 420,
  });
}

/** The KUBELET_NODEIP_HINT for a host, if it gets one. */
export function nodeIpHint(
  cluster: Cluster,
  host: Host,
  allocations: Record<string, NodeIpAllocation> | undefined,
): string | undefined {
  if (isSingleNode(cluster)) {
    const cidr = cluster.machine_networks[0]?.cidr ?? userManagedMachineNetworks(cluster)?.[0]?.cidr;
    return cidr ? networkAddress(cidr) : undefined;
  }
  const userManaged = cluster.user_managed_networking || cluster.load_balancer?.type === 'user-managed';
  return userManaged ? allocations?.[host.id]?.hintIp : undefined;
}

function hasMachineConfigPool(manifests: ClusterManifest[], pool: string): boolean {
  for (const m of manifests) {
    if (!/\.(ya?ml|json)$/.test(m.fileName)) continue;
    for (const doc of parseAllDocuments(m.content)) {
      const obj = doc.toJSON() as { kind?: unknown; metadata?: { name?: unknown } } | null;
      if (obj?.kind === 'MachineConfigPool' && obj.metadata?.name === pool) return true;
    }
  }
  return false;
}

/** Points a worker at its custom pool: "config/worker" → "config/<pool>" in every merge source. */
export function rewriteMachineConfigPool(
  config: IgnitionConfig,
  pool: string,
  manifests: ClusterManifest[],
): void {
  if (!hasMachineConfigPool(manifests, pool))
    throw new IgnitionError(`machine config pool ${pool} was not found`);
  for (const resource of config.ignition.config?.merge ?? []) {
    if (resource.source) resource.source = resource.source.replace('config/worker', `config/${pool}`);
  }
}

function baseIgnition(host: Host, roles: RoleIgnitions): { text: string; what: string } {
  const role = effectiveRole(host);
  if (role === 'arbiter') {
    if (!roles.arbiter) throw new IgnitionError(`no arbiter ignition is available for host ${host.id}`);
    return { text: roles.arbiter, what: 'arbiter.ign' };
  }
  if (role === 'master' || role === 'bootstrap') return { text: roles.master, what: 'master.ign' };
  return { text: roles.worker, what: 'worker.ign' };
}

/**
 * Every host's install ignition, added to `files` (name → content); returns which file is whose
 * (host id → name).
 */
export function addHostInstallIgnitions(
  files: Record<string, string>,
  input: Omit<HostIgnitionInput, 'host'>,
): Record<string, string> {
  const byHost: Record<string, string> = {};
  for (const host of input.cluster.hosts) {
    const file = buildHostInstallIgnition({ ...input, host });
    files[file.fileName] = file.content;
    byHost[host.id] = file.fileName;
  }
  return byHost;
}

/** The install ignition of one host, `<effectiveRole>-<hostID>.ign`. */
export function buildHostInstallIgnition(input: HostIgnitionInput): HostIgnitionFile {
  const { cluster, host } = input;
  const base = baseIgnition(host, input.roleIgnitions);
  let config = parseIgnition(base.text, base.what);
  setHostname(config, host);
  const hint = nodeIpHint(cluster, host, input.nodeIpAllocations);
  if (hint) setFile(config, inlineFile(NODE_IP_HINT_PATH, `KUBELET_NODEIP_HINT=${hint}`));
  config = applyHostIgnitionOverride(config, host);
  if (effectiveRole(host) === 'worker' && host.machine_config_pool_name) {
    rewriteMachineConfigPool(config, host.machine_config_pool_name, input.manifests ?? []);
  }
  config = addStaterootCleanup(config, host);
  return { fileName: hostIgnitionFileName(host), content: serializeIgnition(config) };
}
