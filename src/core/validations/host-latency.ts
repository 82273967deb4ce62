// sufficient-network-latency-requirement-for-role and sufficient-packet-loss-requirement-for-role:
// L3 results towards hosts of the same effective role, against the role's thresholds.

import { effectiveRole } from '../hardware/host-requirements.ts';
import { connectivityReader } from '../network/connectivity-report.ts';
import { formatGoFloat } from './format.ts';
import {
  type Check,
  check,
  clusterHosts,
  effectiveHostname,
  type HostValidationContext,
  isDay2Host,
  suppress,
} from './host-context.ts';

type Metric = 'latency' | 'packet-loss';

interface FailedRemote {
  hostname: string;
  value: number;
  suffix: string;
}

/** At most this many entries are listed before "and others..." (and ping lines before "etc..."). */
const LISTED = 5;

/** "name (v.vv ms), ..." with the 6th entry rendered as "name (v.vv ms) and others...". */
export function summarizeRemotes(failed: readonly FailedRemote[]): string {
  const parts: string[] = [];
  for (const [i, f] of failed.entries()) {
    const item = `${f.hostname} (${formatGoFloat(f.value, 2)}${f.suffix})`;
    if (i >= LISTED) {
      parts.push(`${item} and others...`);
      break;
    }
    parts.push(item);
  }
  return parts.join(', ');
}

function pingLines(c: HostValidationContext): string {
  let text = '';
  for (const nic of c.inventory?.interfaces ?? []) {
    for (const [i, address] of (nic.ipv4_addresses ?? []).entries()) {
      if (i >= LISTED) {
        text += 'etc... \n';
        break;
      }
      text += `ping -c 10 -W 3 -q -I ${nic.name ?? ''} ${address}\n`;
    }
  }
  return text;
}

function pingAdvice(c: HostValidationContext): string {
  if ((c.inventory?.interfaces ?? []).length === 0) return '';
  return (
    `2: Please try the following commands on the host ${effectiveHostname(c.host)} to investigate the packet loss further\n\n` +
    pingLines(c)
  );
}

/** Remote hosts of the same role whose L3 result exceeds the threshold (strictly). */
function failedRemotes(c: HostValidationContext, metric: Metric, threshold: number): FailedRemote[] | string {
  const failedIps = new Set<string>();
  const failed: FailedRemote[] = [];
  const r = connectivityReader(c.host.connectivity ?? {});
  for (let k = 0; k < r.remoteCount; k++) {
    for (let j = 0; j < r.l3Count(k); j++) {
      const value = (metric === 'latency' ? r.l3AverageRttMs(k, j) : r.l3PacketLossPercentage(k, j)) ?? 0;
      const ip = r.l3RemoteIp(k, j) ?? '';
      if (!(value > threshold) || failedIps.has(ip)) continue;
      const hostId = r.hostId(k);
      const other = clusterHosts(c).find((h) => h.id === hostId);
      if (!other) return `host with ID ${hostId} was not found`;
      if (!other.inventory || effectiveRole(other) !== c.role) continue;
      failedIps.add(ip);
      failed.push({ hostname: effectiveHostname(other), value, suffix: metric === 'latency' ? ' ms' : '%' });
    }
  }
  return failed;
}

function thresholdValidation(c: HostValidationContext, metric: Metric): Check {
  const satisfied =
    metric === 'latency'
      ? 'Network latency requirement has been satisfied.'
      : 'Packet loss requirement has been satisfied.';
  if (!c.inventory) return check('pending', 'The inventory is not available yet.');
  if (!c.cluster) return suppress;
  const threshold =
    metric === 'latency'
      ? c.requirements.total.network_latency_threshold_ms
      : c.requirements.total.packet_loss_percentage;
  if (
    clusterHosts(c).length === 1 ||
    threshold === undefined ||
    c.role === 'auto-assign' ||
    isDay2Host(c.host)
  ) {
    return check('success', satisfied);
  }
  if (!c.host.connectivity) {
    return check(
      'pending',
      metric === 'latency' ? 'Missing network latency information.' : 'Missing packet loss information.',
    );
  }
  const failed = failedRemotes(c, metric, threshold);
  if (typeof failed === 'string') {
    return check(
      'failure',
      metric === 'latency'
        ? `Error while attempting to validate network latency: ${failed}`
        : `Error while attempting to validate packet loss validation: ${failed}`,
    );
  }
  if (failed.length === 0) return check('success', satisfied);
  const list = summarizeRemotes(failed);
  const t = formatGoFloat(threshold, 2);
  // The first line ends with a literal backslash + "n" (upstream builds it from a raw string).
  if (metric === 'latency') {
    const head = `A total network latency above the tolerated threshold of ${t} ms was encountered when performing network latency tests between host ${c.host.id} and ${list}\\n`;
    if ((c.inventory.interfaces ?? []).length === 0) return check('failure', head);
    return check(
      'failure',
      head +
        `Actions:\n1: Please try the following commands on the host ${effectiveHostname(c.host)} and examine averages to investigate the latency issue further\n\n` +
        pingAdvice(c),
    );
  }
  return check(
    'failure',
    `A total packet loss above the tolerated threshold of ${t}% was encountered when performing connectivity validation between host ${c.host.id} and ${list}\\n` +
      'Actions:\n1: Check if there are multiple devices on the same L2 network, if so then use the built-in nmstate-based advanced networking configuration to create a bond or disable all but one of the interfaces.\n' +
      pingAdvice(c),
  );
}

export function sufficientNetworkLatency(c: HostValidationContext): Check {
  return thresholdValidation(c, 'latency');
}

export function sufficientPacketLoss(c: HostValidationContext): Check {
  return thresholdValidation(c, 'packet-loss');
}
