// Cluster validations about the machine network and the VIPs (core.md §4.2, §6.4).

import { calculateMachineNetworkCidr } from '../network/machine-network.ts';
import { multiErrorText, verifyVip, verifyVipUserManagedLoadBalancer } from '../network/vips.ts';
import {
  type Check,
  type ClusterValidationContext,
  check,
  DEFAULT_DHCP_LEASE_TIMEOUT_MS,
} from './cluster-context.ts';

type VipKind = 'API' | 'Ingress';

export function machineCidrDefined(c: ClusterValidationContext): Check {
  if (c.umn && !c.singleNode)
    return check('success', 'No Machine Network CIDR needed: User Managed Networking');
  if (c.machineCidrAvailable) return check('success', 'The Machine Network CIDR is defined.');
  if (!c.hasHostsWithInventories) return check('pending', 'Hosts have not been discovered yet');
  if (c.dhcp) {
    return check(
      'failure',
      'The Machine Network CIDR is undefined; setting the Machine Network CIDR initiates the VIPs DHCP lease allocation.',
    );
  }
  if (c.singleNode) {
    return check(
      'failure',
      'The Machine Network CIDR is undefined; Setting Machine Network CIDR is required for single node cluster',
    );
  }
  return check(
    'failure',
    'The Machine Network CIDR is undefined; the Machine Network CIDR can be defined by setting either the API or Ingress virtual IPs.',
  );
}

function vipsOf(c: ClusterValidationContext, kind: VipKind) {
  return kind === 'API' ? c.cluster.api_vips : c.cluster.ingress_vips;
}

function dhcpLeaseTimedOut(c: ClusterValidationContext): boolean {
  const stamp = c.cluster.machine_network_cidr_updated_at;
  if (!stamp) return false;
  const at = Date.parse(stamp);
  return Number.isFinite(at) && c.nowMs - at > (c.config.dhcpLeaseTimeoutMs ?? DEFAULT_DHCP_LEASE_TIMEOUT_MS);
}

function vipsDefined(c: ClusterValidationContext, kind: VipKind): Check {
  if (c.umn) return check('success', `${kind} virtual IPs are not required: User Managed Networking`);
  if (c.singleNode) return check('success', `${kind} virtual IPs are not required: SNO`);
  if (vipsOf(c, kind).length > 0) return check('success', `${kind} virtual IPs are defined.`);
  if (c.dhcp) {
    if (machineCidrDefined(c).status !== 'success')
      return check('pending', 'The Machine Network CIDR is undefined');
    if (dhcpLeaseTimedOut(c)) {
      return check(
        'failure',
        `${kind} virtual IPs are undefined; IP allocation from the DHCP server timed out.`,
      );
    }
    return check(
      'failure',
      `${kind} virtual IPs are undefined; after the Machine Network CIDR has been defined, ${kind} virtual IPs are received from a DHCP lease allocation task which may take up to 2 minutes.`,
    );
  }
  return check('failure', `${kind} virtual IPs are undefined and must be provided.`);
}

export const apiVipsDefined = (c: ClusterValidationContext) => vipsDefined(c, 'API');
export const ingressVipsDefined = (c: ClusterValidationContext) => vipsDefined(c, 'Ingress');

function vipsValid(c: ClusterValidationContext, kind: VipKind): Check {
  if (c.umn) return check('success', `${kind} virtual IPs are not required: User Managed Networking`);
  if (c.singleNode) return check('success', `${kind} virtual IPs are not required: SNO`);
  const vips = vipsOf(c, kind);
  if (vips.length === 0) return check('pending', `${kind} virtual IPs are undefined.`);
  if (!c.hasHostsWithInventories || machineCidrDefined(c).status !== 'success') {
    return check('pending', 'Hosts have not been discovered yet');
  }
  const machineCidrs = c.cluster.machine_networks.map((m) => m.cidr);
  if (c.userManagedLoadBalancer) {
    // Only the first VIP, against any machine network, without the free-address check.
    const name = `${kind.toLowerCase()} vip`;
    const vip = vips[0]?.ip ?? '';
    const error = verifyVipUserManagedLoadBalancer(machineCidrs, vip, name);
    if (error !== undefined) return check('failure', error || `${name} ${vip} is invalid`);
    return check('success', `${name} ${vip} is valid`);
  }
  const name = `${kind.toLowerCase()} vips`;
  const errors: string[] = [];
  let failed = false;
  for (const [i, vip] of vips.entries()) {
    const result = verifyVip(c.hosts, machineCidrs[i] ?? '', vip.ip, name, vip.verification);
    if (result.verification !== 'succeeded') failed = true;
    if (result.error) errors.push(result.error);
  }
  if (failed) return check('failure', errors.join(';'));
  return check(
    'success',
    `${name} ${vips.map((v) => v.ip).join(', ')} belongs to the Machine CIDR and is not in use.`,
  );
}

export const apiVipsValid = (c: ClusterValidationContext) => vipsValid(c, 'API');
export const ingressVipsValid = (c: ClusterValidationContext) => vipsValid(c, 'Ingress');

export function machineCidrEqualsToCalculatedCidr(c: ClusterValidationContext): Check {
  if (c.umn) return check('success', 'The Cluster Machine CIDR is not required: User Managed Networking');
  if (c.userManagedLoadBalancer) {
    return check('success', 'Calculating machine network CIDR is not enabled: User Managed Load Balancer');
  }
  const { api_vips: api, ingress_vips: ingress, machine_networks: machine } = c.cluster;
  if (api.length === 0 && ingress.length === 0) {
    return check(
      'pending',
      'The Machine Network CIDR, API virtual IPs, or Ingress virtual IPs are undefined.',
    );
  }
  if (!c.hasHostsWithInventories) return check('pending', 'Hosts have not been discovered yet');
  const errors: string[] = [];
  for (const [i, vip] of api.entries()) {
    const calculated = calculateMachineNetworkCidr(vip.ip, ingress[i]?.ip, c.hosts, true);
    if (calculated.error !== undefined) {
      errors.push(calculated.error);
      continue;
    }
    const current = machine[i]?.cidr ?? '';
    if (c.machineCidrAvailable && calculated.cidr !== current) {
      errors.push(
        `The Cluster Machine CIDR ${current} is different than the calculated CIDR ${calculated.cidr}.`,
      );
    }
  }
  if (errors.length > 0) return check('failure', multiErrorText(errors));
  return check('success', 'The Cluster Machine CIDR is equivalent to the calculated CIDR.');
}
