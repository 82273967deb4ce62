// Post-processing of what openshift-install produced (core.md §8.4 steps 5, 7 and 8). Pure
// functions over file contents, shared by the built-in generator and the openshift-install runner.

import { parseDocument } from 'yaml';
import { isSingleNode } from '../installconfig/index.ts';
import type { Cluster } from '../model.ts';
import { baseVersionBelow } from '../version.ts';
import { inlineFile, parseIgnition, serializeIgnition, setFile } from './ignition.ts';

export const INFRASTRUCTURE_MANIFEST = 'cluster-infrastructure-02-config.yml';
export const BOOTSTRAP_MARKER_PATH = '/opt/openshift/assisted-install-bootstrap';
export const KNI_NM_CONF_PATH = '/etc/NetworkManager/conf.d/99-kni.conf';
export const SERVICE_CA_CERT_PATH = '/etc/assisted-service/service-ca-cert.crt';
export const IPV6_NM_CONF_PATH = '/etc/NetworkManager/conf.d/01-ipv6.conf';
export const KEEPALIVED_MONITOR_CONF_PATH = '/etc/keepalived/unsupported-monitor.conf';

/** Number of hosts whose raw role is worker. */
function rawWorkerCount(cluster: Cluster): number {
  return cluster.hosts.filter((h) => h.role === 'worker').length;
}

/**
 * Step 5: with exactly one worker, the infrastructure manifest's status.infrastructureTopology
 * becomes HighlyAvailable (openshift-install would say SingleReplica). Returns the manifest as is
 * otherwise.
 */
export function patchInfrastructureTopology(manifestYaml: string, cluster: Cluster): string {
  if (rawWorkerCount(cluster) !== 1) return manifestYaml;
  const doc = parseDocument(manifestYaml);
  doc.setIn(['status', 'infrastructureTopology'], 'HighlyAvailable');
  return doc.toString({ lineWidth: 0 });
}

/**
 * Step 7: bootstrap.ign clean-up. Drops the baremetal-provisioning-config files (OCP < 4.7) and the
 * stray NetworkManager connection file, turns an /etc/motd append into contents, and for
 * multi-node clusters adds the assisted bootstrap marker and the KNI NetworkManager drop-in.
 * (BareMetalHost status annotations are not added here.)
 */
export function postProcessBootstrapIgnition(bootstrapJson: string, cluster: Cluster): string {
  const config = parseIgnition(bootstrapJson, 'bootstrap.ign');
  const files = config.storage?.files ?? [];
  const kept = files.filter((f) => {
    if (f.path === '/etc/NetworkManager/system-connections/nmconnection') return false;
    return !(
      baseVersionBelow(cluster.openshift_version, '4.7') && f.path.includes('baremetal-provisioning-config')
    );
  });
  for (const f of kept) {
    if (f.path === '/etc/motd' && f.append && f.append.length > 0) {
      f.contents = f.append[0];
      delete f.append;
    }
  }
  if (config.storage) config.storage.files = kept;
  if (!isSingleNode(cluster)) {
    setFile(config, inlineFile(BOOTSTRAP_MARKER_PATH, ''));
    setFile(config, inlineFile(KNI_NM_CONF_PATH, '[main]\nrc-manager=unmanaged\n'));
  }
  return serializeIgnition(config);
}

export interface DhcpVip {
  ip: string;
  mac: string;
  /** The DHCP lease text (already normalised), if one was obtained. */
  lease?: string;
}

export interface RolePostProcessOptions {
  /** The service's CA certificate (SERVICE_CA_CERT_PATH), added to every role ignition. */
  serviceCaCert?: string;
  /** DHCP-allocated VIPs (VIP DHCP mode, cluster-managed networking only). */
  dhcpVips?: { api: DhcpVip; ingress: DhcpVip };
}

function everyHostHasIpv6(cluster: Cluster): boolean {
  return (
    cluster.hosts.length > 0 &&
    cluster.hosts.every((h) =>
      (h.inventory?.interfaces ?? []).some((i) => (i.ipv6_addresses ?? []).length > 0),
    )
  );
}

function ipv6NetworkManagerConf(cluster: Cluster): string {
  let conf = '[connection]\nipv6.dhcp-iaid=mac\nipv6.dhcp-duid=ll\n';
  if (baseVersionBelow(cluster.openshift_version, '4.10')) {
    conf += '[keyfile]\npath=/etc/NetworkManager/system-connections-merged\n';
  }
  return conf;
}

function keepalivedMonitorConf(vips: { api: DhcpVip; ingress: DhcpVip }): string {
  const entry = (name: string, v: DhcpVip) =>
    `  name: ${name}\n  mac-address: ${v.mac}\n  ip-address: ${v.ip}\n`;
  return `api-vip:\n${entry('api', vips.api)}ingress-vip:\n${entry('ingress', vips.ingress)}`;
}

/**
 * Step 8: the service CA (all roles), DHCP VIP files (master, DHCP mode without UMN), and the IPv6
 * NetworkManager drop-in when every host has an IPv6 address (master, worker, arbiter).
 */
export function postProcessRoleIgnition(
  role: 'master' | 'worker' | 'arbiter',
  ignitionJson: string,
  cluster: Cluster,
  options: RolePostProcessOptions = {},
): string {
  const config = parseIgnition(ignitionJson, `${role}.ign`);
  if (options.serviceCaCert) setFile(config, inlineFile(SERVICE_CA_CERT_PATH, options.serviceCaCert));
  if (
    role === 'master' &&
    cluster.vip_dhcp_allocation &&
    !cluster.user_managed_networking &&
    options.dhcpVips
  ) {
    setFile(config, inlineFile(KEEPALIVED_MONITOR_CONF_PATH, keepalivedMonitorConf(options.dhcpVips)));
    if (options.dhcpVips.api.lease)
      setFile(config, inlineFile('/etc/keepalived/lease-api', options.dhcpVips.api.lease));
    if (options.dhcpVips.ingress.lease) {
      setFile(config, inlineFile('/etc/keepalived/lease-ingress', options.dhcpVips.ingress.lease));
    }
  }
  if (everyHostHasIpv6(cluster))
    setFile(config, inlineFile(IPV6_NM_CONF_PATH, ipv6NetworkManagerConf(cluster)));
  return serializeIgnition(config);
}
