// DNS validations (§3.2 "DNS resolution rules"): api / api-int / apps resolution and the wildcard
// check, from the agent's domain-resolution reply.

import { parse as parseYaml } from 'yaml';
import type { Cluster, DomainResolutionResponse } from '../model.ts';
import { tryParseIp } from '../network/cidr.ts';
import {
  type Check,
  check,
  type HostValidationContext,
  inventoryAddresses,
  isDay2Cluster,
  isDay2Host,
  isSingleNode,
  suppress,
} from './host-context.ts';
import { apiVipConnectivityOf } from './host-network.ts';

type Resolution = NonNullable<DomainResolutionResponse['resolutions']>[number];

export const DNS_WILDCARD_PROBE = 'validateNoWildcardDNS';

interface IgnitionFile {
  path?: string;
  contents?: { source?: string };
}

function ignitionFiles(ignition: string | undefined): IgnitionFile[] | undefined {
  if (!ignition) return undefined;
  try {
    const parsed = JSON.parse(ignition) as { storage?: { files?: IgnitionFile[] } };
    return parsed.storage?.files ?? [];
  } catch {
    return undefined;
  }
}

/** Decodes an RFC 2397 data URL; undefined for other schemes or malformed input. */
export function decodeDataUrl(source: string): string | undefined {
  const m = /^data:([^,]*),(.*)$/s.exec(source);
  if (!m) return undefined;
  try {
    if (m[1]!.endsWith(';base64')) return Buffer.from(m[2]!, 'base64').toString('utf8');
    return decodeURIComponent(m[2]!);
  } catch {
    return undefined;
  }
}

/** The worker kubelet kubeconfig points at the API by IP literal (e.g. hypershift). */
function kubeletServerIsIp(files: IgnitionFile[]): boolean {
  const file = files.find((f) => f.path === '/etc/kubernetes/kubeconfig');
  const text = file?.contents?.source ? decodeDataUrl(file.contents.source) : undefined;
  if (text === undefined) return false;
  try {
    const kubeconfig = parseYaml(text) as { clusters?: { cluster?: { server?: string } }[] } | null;
    const clusters = kubeconfig?.clusters ?? [];
    if (clusters.length !== 1) return false;
    const host = new URL(clusters[0]?.cluster?.server ?? '').hostname.replace(/^\[(.*)\]$/, '$1');
    return tryParseIp(host) !== undefined;
  } catch {
    return false;
  }
}

function successfulApiReplies(cluster: Cluster) {
  return cluster.hosts
    .map((h) => apiVipConnectivityOf(h.api_vip_connectivity as never))
    .filter((r) => r?.is_success === true);
}

/** Imported clusters: infer managed networking from the first readable day-2 ignition. */
function importedClusterHasManagedNetworking(cluster: Cluster): boolean {
  for (const reply of successfulApiReplies(cluster)) {
    const files = ignitionFiles(reply?.ignition);
    if (!files) continue;
    const managedFiles = [
      '/etc/kubernetes/manifests/coredns.yaml',
      '/etc/kubernetes/manifests/keepalived.yaml',
    ];
    if (files.some((f) => managedFiles.includes(f.path ?? ''))) return true;
    return kubeletServerIsIp(files);
  }
  return true;
}

const resolvedOk = (printable: string) =>
  `Domain name resolution for the ${printable} domain was successful or not required`;

/** Whether DNS must be checked; otherwise the outcome to report instead. */
function dnsCheckNeeded(
  c: HostValidationContext,
  cluster: Cluster,
  printable: string,
  target: string,
): Check | true {
  let managed: boolean;
  if (!cluster.imported) {
    managed = !cluster.user_managed_networking;
  } else {
    if (successfulApiReplies(cluster).length === 0) {
      return check(
        'pending',
        `DNS validation for the ${printable} domain cannot be completed at the moment. This could be due to other validations`,
      );
    }
    managed = importedClusterHasManagedNetworking(cluster);
  }
  if (managed) return check('success', resolvedOk(printable));
  if (!isDay2Cluster(cluster) && isSingleNode(cluster) && c.config.enableSingleNodeDnsmasq !== false) {
    return check('success', resolvedOk(printable));
  }
  if (!cluster.base_dns_domain) {
    return check(
      'error',
      `DNS validation for the ${target} domain cannot be completed because the cluster does not have base_dns_domain set. Please update the cluster with the correct base_dns_domain`,
    );
  }
  return true;
}

function hasAnswer(r: Resolution): boolean {
  return (r.ipv4_addresses ?? []).length + (r.ipv6_addresses ?? []).length + (r.cnames ?? []).length > 0;
}

function checkResolution(c: HostValidationContext, domain: string, printable: string, target: string): Check {
  const reply = c.host.domain_name_resolutions;
  if (!reply) return check('error', 'Error while evaluating DNS resolution on this host');
  const entry = (reply.resolutions ?? []).find((r) => r.domain_name === domain && hasAnswer(r));
  if (!entry) {
    return check(
      'failure',
      `Couldn't resolve domain name ${printable} on the host. To continue installation, create the necessary DNS entries to resolve this domain name to your cluster's ${target} IP address`,
    );
  }
  // Literal comparison with the inventory's CIDR-form addresses (upstream quirk).
  const own = inventoryAddresses(c.inventory);
  const hit = [...(entry.ipv4_addresses ?? []), ...(entry.ipv6_addresses ?? [])].find((a) => own.includes(a));
  if (hit !== undefined) {
    return check(
      'failure',
      `Domain ${printable} must not point at ${hit} as it is the API address of this host. This domain must instead point at the IP address of a load balancer when using user managed networking in a multi control-plane node cluster`,
    );
  }
  return check('success', resolvedOk(printable));
}

function domainValidation(
  c: HostValidationContext,
  prefix: string,
  printablePrefix: string,
  target: string,
): Check {
  const cluster = c.cluster;
  if (!cluster) return suppress;
  const domain = `${prefix}.${cluster.name}.${cluster.base_dns_domain}`;
  const printable = cluster.base_dns_domain
    ? `${printablePrefix}.${cluster.name}.${cluster.base_dns_domain}`
    : target;
  const needed = dnsCheckNeeded(c, cluster, printable, target);
  if (needed !== true) return needed;
  return checkResolution(c, domain, printable, target);
}

export function apiDomainResolved(c: HostValidationContext): Check {
  return domainValidation(c, 'api', 'api', 'API load balancer');
}

export function apiIntDomainResolved(c: HostValidationContext): Check {
  return domainValidation(c, 'api-int', 'api-int', 'internal API load balancer');
}

export function appsDomainResolved(c: HostValidationContext): Check {
  return domainValidation(c, 'console-openshift-console.apps', '*.apps', 'application ingress');
}

function answers(r: Resolution): string[] {
  return [...(r.ipv4_addresses ?? []), ...(r.ipv6_addresses ?? []), ...(r.cnames ?? [])];
}

export function dnsWildcardNotConfigured(c: HostValidationContext): Check {
  const cluster = c.cluster;
  if (!cluster) return suppress;
  if (isDay2Host(c.host)) return check('success', 'DNS wildcard check is not required for day2');
  const reply = c.host.domain_name_resolutions;
  if (!reply) {
    return check(
      'pending',
      'DNS wildcard check cannot be performed yet because the host has not yet performed DNS resolution',
    );
  }
  const sub = `${cluster.name}.${cluster.base_dns_domain}`;
  const relative = `${DNS_WILDCARD_PROBE}.${sub}`;
  for (const [name, fqdn] of [
    [`${relative}.`, true],
    [relative, false],
  ] as const) {
    const entry = (reply.resolutions ?? []).find((r) => r.domain_name === name);
    if (!entry) {
      return check(
        'error',
        "Internal error - DNS wildcard check cannot be performed because the DNS validation result doesn't contain the wildcard domain",
      );
    }
    const list = answers(entry);
    if (list.length === 0) continue;
    return check(
      'failure',
      fqdn
        ? `DNS wildcard configuration was detected for domain *.${sub} - the installation will not be able to complete while this record exists. Please remove it to proceed. The domain resolves to ${list.join(', ')}`
        : `Unexpected domain name resolution was detected for the relative domain name with the sub-domain *.${sub} despite the fact that no resolution exists for a Fully Qualified Domain Name (FQDN) with same sub-domain. This is usually a sign of DHCP-provided domain-search configuration. The installation will not be able to complete with this configuration in place. Please remove it to proceed. The relative domain name resolves to ${list.join(', ')}`,
    );
  }
  return check('success', 'DNS wildcard check was successful');
}
