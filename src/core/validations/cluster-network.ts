// Cluster validations about the cluster / service networks, network type and manifests
// (core.md §4.2, §6.2, §6.5).

import { type IpFamily, tryParseCidr } from '../network/cidr.ts';
import {
  checkCidrsOverlapping,
  verifyClusterCidrSize,
  verifyNetworkHostPrefix,
} from '../network/cidr-rules.ts';
import { addressFamiliesOf, canonizeFamilies, cidrsOf, sameFamilies } from '../network/dual-stack.ts';
import { NETWORK_TYPES } from '../network/topology.ts';
import { type Check, type ClusterValidationContext, check } from './cluster-context.ts';

export function clusterCidrDefined(c: ClusterValidationContext): Check {
  return c.cluster.cluster_networks.some((n) => n.cidr)
    ? check('success', 'The Cluster Network CIDR is defined.')
    : check('failure', 'The Cluster Network CIDR is undefined.');
}

export function serviceCidrDefined(c: ClusterValidationContext): Check {
  return c.cluster.service_networks.some((n) => n.cidr)
    ? check('success', 'The Service Network CIDR is defined.')
    : check('failure', 'The Service Network CIDR is undefined.');
}

export function dnsDomainDefined(c: ClusterValidationContext): Check {
  return c.cluster.base_dns_domain
    ? check('success', 'The base domain is defined.')
    : check('failure', 'The base domain is undefined and must be provided.');
}

/** Network plugins that use the cluster network's hostPrefix. */
const HOST_PREFIX_PLUGINS = ['OVNKubernetes', 'OpenShiftSDN'];

export function networkPrefixValid(c: ClusterValidationContext): Check {
  if (clusterCidrDefined(c).status !== 'success')
    return check('pending', 'The Cluster Network CIDR is undefined.');
  const usesHostPrefix = HOST_PREFIX_PLUGINS.includes(c.effectiveNetworkType);
  for (const n of c.cluster.cluster_networks) {
    let hostPrefix = n.host_prefix;
    if (usesHostPrefix) {
      const error = verifyNetworkHostPrefix(hostPrefix);
      if (error) return check('failure', `Invalid Cluster Network prefix: ${error}.`);
    } else {
      // Other plugins ignore hostPrefix; size the network as if each node got a /25 (IPv4) or /64.
      hostPrefix = tryParseCidr(n.cidr)?.family === 'ipv6' ? 64 : 25;
    }
    const error = verifyClusterCidrSize(hostPrefix, n.cidr, c.hosts.length);
    if (error) return check('failure', error);
  }
  return check('success', 'The Cluster Network prefix is valid.');
}

function missingCidrs(c: ClusterValidationContext, includeMachine: boolean): Check | undefined {
  const missing =
    clusterCidrDefined(c).status !== 'success' ||
    serviceCidrDefined(c).status !== 'success' ||
    (includeMachine && !c.machineCidrAvailable);
  if (!missing) return undefined;
  return c.umn
    ? check('pending', 'At least one of the CIDRs (Cluster Network, Service Network) is undefined.')
    : check(
        'pending',
        'At least one of the CIDRs (Machine Network, Cluster Network, Service Network) is undefined.',
      );
}

export function noCidrsOverlapping(c: ClusterValidationContext): Check {
  const pending = missingCidrs(c, c.machineNetworkRequired);
  if (pending) return pending;
  if (c.cluster.cluster_networks.length !== c.cluster.service_networks.length) {
    return check('error', 'A mismatch between the number of Cluster and Service networks');
  }
  const error = checkCidrsOverlapping(c.cluster, c.machineNetworkRequired);
  if (error) return check('failure', `CIDRS Overlapping: ${error}.`);
  return check('success', 'No CIDRS are overlapping.');
}

function families(cidrs: string[]): IpFamily[] | undefined {
  try {
    return addressFamiliesOf(cidrs);
  } catch {
    return undefined;
  }
}

export function networksSameAddressFamilies(c: ClusterValidationContext): Check {
  if (!c.machineNetworkRequired) {
    if (clusterCidrDefined(c).status !== 'success' || serviceCidrDefined(c).status !== 'success') {
      return check('pending', 'At least one of the CIDRs (Cluster Network, Service Network) is undefined.');
    }
  } else if (
    machineCidrMissing(c) ||
    clusterCidrDefined(c).status !== 'success' ||
    serviceCidrDefined(c).status !== 'success'
  ) {
    return check(
      'pending',
      'At least one of the CIDRs (Machine Network, Cluster Network, Service Network) is undefined.',
    );
  }
  // Quirk kept: the service list is not de-duplicated, the cluster and machine lists are.
  const service = families(cidrsOf(c.cluster.service_networks));
  const clusterFamilies = families(cidrsOf(c.cluster.cluster_networks));
  if (!service || !clusterFamilies) return check('error', 'Bad CIDR(s) appears in one of the networks');
  if (!sameFamilies(service, canonizeFamilies(clusterFamilies))) {
    return check(
      'failure',
      'Address families of networks (ServiceNetworks, ClusterNetworks) are not the same.',
    );
  }
  if (c.machineNetworkRequired) {
    const machine = families(cidrsOf(c.cluster.machine_networks));
    if (!machine) return check('error', `Error getting machine address families for cluster ${c.cluster.id}`);
    if (!sameFamilies(service, canonizeFamilies(machine))) {
      return check(
        'failure',
        'Address families of networks (MachineNetworks, ServiceNetworks, ClusterNetworks) are not the same.',
      );
    }
  }
  return check('success', 'Same address families for all networks.');
}

/** The machine-cidr-defined validation's verdict (SNO needs a machine network; multi-node UMN does not). */
function machineCidrMissing(c: ClusterValidationContext): boolean {
  if (c.umn && !c.singleNode) return false;
  return !c.machineCidrAvailable;
}

function anyIpv6Cidr(c: ClusterValidationContext): boolean {
  const all = [...c.cluster.cluster_networks, ...c.cluster.service_networks, ...c.cluster.machine_networks];
  return all.some((n) => tryParseCidr(n.cidr)?.family === 'ipv6');
}

export function networkTypeValid(c: ClusterValidationContext): Check {
  const type = c.cluster.network_type;
  if (type && !(NETWORK_TYPES as readonly string[]).includes(type)) {
    return check(
      'failure',
      'The network type is not valid; the valid network types are OpenShiftSDN, OVNKubernetes, Cilium, Calico, CiscoACI, or None',
    );
  }
  if (type === 'OpenShiftSDN' && anyIpv6Cidr(c)) {
    return check(
      'failure',
      'The cluster is configured with IPv6 which is not supported by OpenShiftSDN; use OVNKubernetes instead',
    );
  }
  if (type === 'OpenShiftSDN' && c.singleNode) {
    return check(
      'failure',
      "Control Plane Count '1' (SNO) is not supported by OpenShiftSDN; use another network type instead",
    );
  }
  if (c.dhcp && type === 'OVNKubernetes') {
    return check(
      'failure',
      'VIP DHCP allocation is not supported when the cluster is configured to use OVNKubernetes.',
    );
  }
  return check('success', 'The cluster has a valid network type');
}

/** The feature-usage name upstream records when custom manifests were uploaded. */
export const CUSTOM_MANIFEST_USAGE = 'Custom manifest';

/**
 * Whether the cluster has custom manifests: the "Custom manifest" feature-usage entry, or (when the
 * record carries the manifests themselves) any uploaded manifest. undefined = unparseable usage JSON.
 */
export function hasCustomManifests(c: ClusterValidationContext): boolean | undefined {
  if ((c.cluster.custom_manifests?.length ?? 0) > 0) return true;
  const usage = c.cluster.feature_usage;
  if (!usage) return false;
  try {
    const parsed = JSON.parse(usage) as Record<string, { name?: string }> | null;
    if (parsed === null || typeof parsed !== 'object') return false;
    return Object.entries(parsed).some(
      ([key, u]) => key === CUSTOM_MANIFEST_USAGE || u?.name === CUSTOM_MANIFEST_USAGE,
    );
  } catch {
    return undefined;
  }
}

const TYPES_NEEDING_MANIFESTS = ['Cilium', 'Calico', 'CiscoACI', 'None'];

export function customManifestsRequirementsSatisfied(c: ClusterValidationContext): Check {
  const type = c.effectiveNetworkType;
  if (!TYPES_NEEDING_MANIFESTS.includes(type)) return check('success', 'No custom manifests are required');
  const has = hasCustomManifests(c);
  if (has === undefined) return check('failure', 'Failed to parse feature usages');
  if (has) return check('success', 'Custom manifests are uploaded');
  return check(
    'failure',
    `Custom manifests are required for: ${type} network type. Please upload manifests via the custom manifests API.`,
  );
}
