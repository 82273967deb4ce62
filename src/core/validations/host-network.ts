// Host validations of the "network" category (§3.2): connectivity to the service, machine network
// membership, day-2 ignition download, platform, NTP/clock, images and routes.

import type { Interface } from '../inventory.ts';
import type { ApiVipConnectivity, ContainerImageAvailability, HostStage } from '../model.ts';
import { cidrContains, tryParseIp } from '../network/cidr.ts';
import { formatGoTimeUTC } from './format.ts';
import {
  addressIp,
  type Check,
  check,
  checkedInMs,
  type HostValidationContext,
  hasMachineNetworks,
  isDay2Cluster,
  isDay2Host,
  isSingleNode,
  isUserManagedLoadBalancer,
  suppress,
} from './host-context.ts';

/** Stages before the host reboots from its installation disk (it still talks to the service). */
export const PRE_REBOOT_STAGES: readonly HostStage[] = [
  'Starting installation',
  'Installing',
  'Writing image to disk',
  'Copying registry data to disk',
  'Waiting for control plane',
  'Waiting for bootkube',
  'Waiting for controller',
];

export const DEFAULT_MAX_HOST_DISCONNECTION_MS = 3 * 60_000;
const BOOTSTRAP_EXTRA_DISCONNECTION_MS = 2 * 60_000;

export const MEDIA_DISCONNECTED_MESSAGE =
  'Unable to read from the discovery media. It was either disconnected or poor network conditions prevented it from being read. Try using the minimal ISO option and be sure to keep the media connected until the installation is completed';

export function connected(c: HostValidationContext): Check {
  const stage = c.host.progress?.current_stage;
  const postReboot = !!stage && !PRE_REBOOT_STAGES.includes(stage);
  const checkedIn = checkedInMs(c.host);
  const max =
    (c.config.maxHostDisconnectionMs ?? DEFAULT_MAX_HOST_DISCONNECTION_MS) +
    (c.host.bootstrap ? BOOTSTRAP_EXTRA_DISCONNECTION_MS : 0);
  const ok = postReboot || checkedIn === undefined || c.nowMs - checkedIn <= max;
  return ok ? check('success', 'Host is connected') : check('failure', 'Host is disconnected');
}

export function mediaConnected(c: HostValidationContext): Check {
  return c.host.media_status === 'disconnected'
    ? check('failure', MEDIA_DISCONNECTED_MESSAGE)
    : check('success', 'Media device is connected');
}

export function machineCidrDefined(c: HostValidationContext): Check {
  const cluster = c.cluster;
  if (!cluster) return suppress;
  if (cluster.user_managed_networking)
    return check('success', 'No Machine Network CIDR needed: User Managed Networking');
  if (isDay2Cluster(cluster)) return check('success', 'No Machine Network CIDR needed: Day2 cluster');
  if (hasMachineNetworks(cluster)) return check('success', 'Machine Network CIDR is defined');
  if (cluster.vip_dhcp_allocation) return check('failure', 'Machine Network CIDR is undefined');
  return check(
    'failure',
    'Machine Network CIDR is undefined; the Machine Network CIDR can be defined by setting either the API or Ingress virtual IPs',
  );
}

/** Whether any address of the interface lies in the CIDR. */
export function interfaceInCidr(nic: Interface, cidr: string): boolean {
  return [...(nic.ipv4_addresses ?? []), ...(nic.ipv6_addresses ?? [])].some((a) =>
    cidrContains(cidr, addressIp(a)),
  );
}

export function belongsToMachineCidr(c: HostValidationContext): Check {
  const cluster = c.cluster;
  if (!cluster) return suppress;
  if (
    cluster.user_managed_networking &&
    !isSingleNode(cluster) &&
    (!c.host.bootstrap || !hasMachineNetworks(cluster))
  ) {
    return check('success', 'No machine network CIDR validation needed: User Managed Networking');
  }
  if (isDay2Cluster(cluster))
    return check('success', 'No machine network CIDR validation needed: Day2 cluster');
  if (!c.inventory || !hasMachineNetworks(cluster))
    return check('pending', 'Missing inventory or machine network CIDR');
  const nics = c.inventory.interfaces ?? [];
  const inNetwork = (cidr: string) => nics.some((nic) => interfaceInCidr(nic, cidr));
  const cidrs = cluster.machine_networks.map((n) => n.cidr).filter((cidr) => cidr !== '');
  if (isUserManagedLoadBalancer(cluster)) {
    return cidrs.some(inNetwork)
      ? check('success', 'Host belongs to at least one machine network CIDR')
      : check(
          'failure',
          'Host does not belong to any machine network CIDR. Verify that the host belongs to at least one CIDR listed under machine networks',
        );
  }
  return cidrs.every(inNetwork)
    ? check('success', 'Host belongs to all machine network CIDRs')
    : check(
        'failure',
        'Host does not belong to machine network CIDRs. Verify that the host belongs to every CIDR listed under machine networks',
      );
}

/** api_vip_connectivity as an object; a stored string is parsed (undefined for bad JSON). */
export function apiVipConnectivityOf(
  value: ApiVipConnectivity | string | undefined,
): ApiVipConnectivity | undefined {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as ApiVipConnectivity;
  } catch {
    return undefined;
  }
}

export function ignitionDownloadable(c: HostValidationContext): Check {
  if (!c.cluster || !isDay2Host(c.host)) return suppress;
  const raw = c.host.api_vip_connectivity as ApiVipConnectivity | string | undefined;
  if (raw === undefined || raw === '')
    return check('pending', 'Ignition is not yet available, pending API connectivity');
  const reply = apiVipConnectivityOf(raw);
  if (!reply) return check('error', 'Internal error - failed to parse agent API connectivity response');
  if (reply.is_success) return check('success', 'Ignition is downloadable');
  if (!reply.url) {
    return check(
      'failure',
      'This host has failed to download the ignition file from the cluster, please ensure the host can reach the cluster',
    );
  }
  return check(
    'failure',
    `This host has failed to download the ignition file from ${reply.url} with the following error: ${reply.download_error ?? ''}. Please ensure the host can reach this URL`,
  );
}

export const OPENSTACK_PLATFORM = 'OpenStack Compute';

export function validPlatformNetworkSettings(c: HostValidationContext): Check {
  if (!c.inventory) return check('pending', 'Missing inventory');
  const vendor = c.inventory.system_vendor;
  if (!vendor) return check('error', 'Validation error');
  const product = vendor.product_name ?? '';
  if (product === OPENSTACK_PLATFORM) {
    if (!c.cluster) return suppress;
    if (!c.cluster.user_managed_networking) {
      return check(
        'failure',
        `Platform ${product} is allowed only for Single Node OpenShift or user-managed networking`,
      );
    }
  }
  return check('success', `Platform ${product} is allowed`);
}

const UNBOUND_NTP_STATUSES = [
  'insufficient-unbound',
  'disconnected-unbound',
  'discovering-unbound',
  'known-unbound',
];

export function ntpSynced(c: HostValidationContext): Check {
  if ((c.host.ntp_sources ?? []).some((s) => s.source_state === 'synced'))
    return check('success', 'Host NTP is synced');
  const noSources = (c.infraEnv?.additional_ntp_sources ?? '') === '';
  if (UNBOUND_NTP_STATUSES.includes(c.host.status) && noSources) return suppress;
  return check('failure', "Host couldn't synchronize with any NTP server");
}

const SERVICE_AHEAD_MS = 20 * 60_000;
const HOST_AHEAD_MS = 60 * 60_000;

export function timeSyncedBetweenHostAndService(c: HostValidationContext): Check {
  const hostSeconds = c.host.timestamp ?? 0;
  if (hostSeconds === 0) {
    return check('pending', "Missing host time, can't determine synchronization between host and service");
  }
  const diff = c.nowMs - hostSeconds * 1000;
  const serviceTime = formatGoTimeUTC(c.nowMs);
  if (diff > SERVICE_AHEAD_MS) {
    return check(
      'failure',
      `Host clock is not synchronized, service time is ahead of host's at least for 20.0 minutes, please configure an NTP server via DHCP. Service time: ${serviceTime}`,
    );
  }
  if (diff < -HOST_AHEAD_MS) {
    return check(
      'failure',
      `Host clock is not synchronized, host time is ahead of service at least for 60.0 minutes, please configure an NTP server via DHCP. Service time: ${serviceTime}`,
    );
  }
  return check('success', 'Host clock is synchronized with service');
}

/** MB/s below which a pull counts as failed. */
export const IMAGE_DOWNLOAD_RATE_THRESHOLD = 0.001;

export function isImageStatusBad(s: ContainerImageAvailability): boolean {
  return (
    s.result === 'failure' ||
    ((s.size_bytes ?? 0) > 0 && (s.download_rate ?? 0) < IMAGE_DOWNLOAD_RATE_THRESHOLD)
  );
}

/** Names of the images that failed, sorted (upstream walks a map, so its order is random). */
export function failedImageNames(images: Record<string, ContainerImageAvailability> | undefined): string[] {
  return Object.entries(images ?? {})
    .filter(([, s]) => isImageStatusBad(s))
    .map(([key, s]) => s.name ?? key)
    .sort();
}

export function containerImagesAvailable(c: HostValidationContext): Check {
  const failed = failedImageNames(c.host.images_status);
  if (failed.length === 0) {
    return check(
      'success',
      'All required container images were either pulled successfully or no attempt was made to pull them',
    );
  }
  return check(
    'failure',
    `Failed to fetch container images needed for installation from ${failed.join(',')}. This may be due to a network hiccup. Retry to install again. If this problem persists, check your network settings to make sure you’re not blocked.`,
  );
}

/** A route to the unspecified address through a real gateway. */
export function isDefaultRoute(route: { destination?: string; gateway?: string }): boolean {
  if (!route.destination || !route.gateway) return false;
  const dst = tryParseIp(route.destination);
  const gw = tryParseIp(route.gateway);
  return !!dst && !!gw && dst.value === 0n && gw.value !== 0n;
}

export function hasDefaultRoute(c: HostValidationContext): Check {
  if (!c.inventory) return check('pending', 'Missing default routing information.');
  if ((c.inventory.routes ?? []).some(isDefaultRoute)) {
    return check('success', 'Host has been configured with at least one default route.');
  }
  return check('failure', 'Host has not yet been configured with a default route.');
}
