// API-time checks of a cluster's network lists (core.md §6.2, `updateNetworks` upstream): every
// failure is a 400 with the returned text. First failure wins.

import type { CidrEntry, ClusterNetwork } from '../model.ts';
import { tryParseCidr } from './cidr.ts';
import {
  verifyClusterCidrSize,
  verifyClusterCidrsNotOverlap,
  verifyClusterOrServiceCidr,
  verifyMachineCidr,
  verifyNetworkHostPrefix,
} from './cidr-rules.ts';
import { isDualStack, validateDualStackNetworks } from './dual-stack.ts';

export interface NetworksInput {
  machine_networks?: CidrEntry[];
  cluster_networks?: ClusterNetwork[];
  service_networks?: CidrEntry[];
}

export interface NetworksInputContext {
  userManagedNetworking: boolean;
  singleNode: boolean;
  userManagedLoadBalancer: boolean;
  vipDhcpAllocation: boolean;
  /** Hosts currently in the cluster, for the cluster-network size check. */
  hostCount: number;
  openshiftVersion: string;
  /** Service flag: IPv6 support enabled (default true upstream). */
  ipv6Supported: boolean;
  /** A primary IP stack is already known for the cluster. */
  primaryStackKnown?: boolean;
}

type Kind = 'Machine' | 'Service' | 'Cluster';

function checkParse(kind: Kind, cidrs: string[]): string | undefined {
  for (const [i, cidr] of cidrs.entries()) {
    if (!cidr) return `${kind} Network CIDR cannot be empty (index ${i})`;
    if (!tryParseCidr(cidr))
      return `Could not parse ${kind} Network CIDR ${cidr} (index ${i}): invalid CIDR address: ${cidr}`;
  }
  return undefined;
}

function firstError(...checks: (() => string | undefined)[]): string | undefined {
  for (const check of checks) {
    const error = check();
    if (error) return error;
  }
  return undefined;
}

/** Validates the network lists of a create/update request against the cluster context. */
export function validateNetworksInput(input: NetworksInput, ctx: NetworksInputContext): string | undefined {
  const clusterNets = input.cluster_networks ?? [];
  const serviceCidrs = (input.service_networks ?? []).map((n) => n.cidr);
  const machineCidrs = (input.machine_networks ?? []).map((n) => n.cidr);
  return firstError(
    () =>
      checkParse(
        'Cluster',
        clusterNets.map((n) => n.cidr),
      ),
    () => checkParse('Service', serviceCidrs),
    () => checkParse('Machine', machineCidrs),
    () => {
      for (const n of clusterNets) {
        const error =
          verifyClusterOrServiceCidr(n.cidr) ??
          verifyNetworkHostPrefix(n.host_prefix) ??
          verifyClusterCidrSize(n.host_prefix, n.cidr, ctx.hostCount);
        if (error) return error;
      }
      return undefined;
    },
    () => serviceCidrs.map(verifyClusterOrServiceCidr).find((e) => e),
    () =>
      machineCidrs
        .map((c) =>
          verifyMachineCidr(c, {
            singleNode: ctx.singleNode,
            userManagedLoadBalancer: ctx.userManagedLoadBalancer,
          }),
        )
        .find((e) => e),
    () => {
      // Upstream quirk (core.md §10.13): the UMN flag is passed where "machine network required" is
      // expected, so machine-vs-others overlaps are only checked here for UMN clusters.
      const n = Math.max(clusterNets.length, serviceCidrs.length, machineCidrs.length);
      for (let i = 0; i < n; i++) {
        const error = verifyClusterCidrsNotOverlap(
          machineCidrs[i] ?? '',
          clusterNets[i]?.cidr ?? '',
          serviceCidrs[i] ?? '',
          ctx.userManagedNetworking,
        );
        if (error) return error;
      }
      return undefined;
    },
    () => {
      const primary = machineCidrs[0];
      if (ctx.vipDhcpAllocation && primary && tryParseCidr(primary)?.family === 'ipv6') {
        return `VIP DHCP allocation is unsupported with IPv6 network ${primary}`;
      }
      return undefined;
    },
    () => validateIpv6Only(input, ctx, 'network'),
    () => validateDualStackNetworks(input, ctx.openshiftVersion),
  );
}

/**
 * IPv6-only configurations are rejected unless IPv6 support is on or a primary stack is known.
 * `context` names what is being configured ("network", "infra-env", ...).
 */
export function validateIpv6Only(
  input: NetworksInput,
  ctx: Pick<NetworksInputContext, 'ipv6Supported' | 'primaryStackKnown'>,
  context: string,
): string | undefined {
  if (ctx.ipv6Supported || ctx.primaryStackKnown) return undefined;
  const all = [
    ...(input.machine_networks ?? []).map((n) => n.cidr),
    ...(input.cluster_networks ?? []).map((n) => n.cidr),
    ...(input.service_networks ?? []).map((n) => n.cidr),
  ];
  const families = new Set(all.map((c) => tryParseCidr(c)?.family).filter((f) => f));
  if (families.has('ipv6') && !families.has('ipv4') && !isDualStack(input)) {
    return `Single stack IPv6 is not supported in this setup. Please verify your ${context} configuration`;
  }
  return undefined;
}
