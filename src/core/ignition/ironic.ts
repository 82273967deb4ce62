// Converged flow (kubeapi.md §3.7.1): the ironic-python-agent additions that the
// PreprovisioningImage controller stores as the infra-env's internal ignition override. An
// Ignition 3.2.0 fragment with /etc/ironic-python-agent.conf and ironic-agent.service; merging it
// also disables agent.service (IPA starts the assisted agent when the BMH asks for it).

import type { InfraEnv } from '../model.ts';
import { type IpFamily, ipFamily } from '../network/cidr.ts';
import { canonicalJson, escapedDataUrl } from './encoding.ts';
import type { IgnitionConfig } from './types.ts';

export const DEFAULT_IRONIC_AGENT_IMAGE =
  'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:d3f1d4d3cd5fbcf1b9249dd71d01be4b901d337fdc5f8f66569eb71df4d9d446';
export const DEFAULT_IRONIC_AGENT_IMAGE_ARM =
  'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:cb0edf19fffc17f542a7efae76939b1e9757dc75782d4727fb0aa77ed5809b43';

const IRONIC_API_PORT = '6385';
const IRONIC_INSPECTOR_PORT = '5050';
const INSPECTOR_CALLBACK_PATH = '/v1/continue';

export interface IronicAgentOptions {
  /** IRONIC_BASE_URL: one URL or a comma-separated list (dual-stack hubs). */
  ironicBaseUrl: string;
  /** IRONIC_INSPECTOR_BASE_URL; defaults to the ironic URL. */
  ironicInspectorBaseUrl?: string;
  /** The ironic agent image; defaults by the infra-env's architecture. */
  ironicAgentImage?: string;
  defaultImage?: string;
  defaultImageArm?: string;
}

/**
 * Adds the default port when a URL has none and appends `path` unless the URL already ends
 * with it. Empty entries are skipped; the list is re-joined with ",".
 */
export function ironicCallbackUrls(baseUrls: string, defaultPort: string, path = ''): string {
  const out: string[] = [];
  for (const raw of baseUrls.split(',')) {
    if (raw === '') continue;
    const m = /^([a-z][a-z0-9+.-]*:\/\/)(\[[^\]]+\]|[^/:?#]+)(:\d+)?([^?#]*)(.*)$/i.exec(raw);
    if (!m) continue;
    const [, scheme, host, port, urlPath = '', rest] = m;
    const withPath = path && !urlPath.endsWith(path) ? urlPath + path : urlPath;
    out.push(`${scheme}${host}${port ?? `:${defaultPort}`}${withPath}${rest}`);
  }
  return out.join(',');
}

/** Host part of a URL without brackets, or undefined. */
function urlHost(url: string): string | undefined {
  const m = /^[a-z][a-z0-9+.-]*:\/\/(?:\[([^\]]+)\]|([^/:?#]+))/i.exec(url.trim());
  return m ? (m[1] ?? m[2]) : undefined;
}

/**
 * The ironic URL(s) a spoke calls back to. A dual-stack hub is configured as exactly two URLs whose
 * hosts are IP literals of different families, primary first; the spoke then gets the IPv6 one
 * only when it is IPv6-only, else the IPv4 one (kubeapi.md §3.7.1). Anything else — one URL,
 * host names, more entries — is used as given.
 * `spokeFamilies`: the InfraEnv's ip-family annotation, else the bound cluster's networks; when
 * unknown, the hub's primary (first) URL.
 */
export function ironicUrlForSpoke(
  baseUrls: string,
  spokeFamilies: ReadonlySet<IpFamily> | undefined,
): string {
  const urls = baseUrls.split(',').filter((u) => u.trim() !== '');
  if (urls.length !== 2) return baseUrls;
  const families = urls.map((u) => {
    const host = urlHost(u);
    return host ? ipFamily(host) : undefined;
  });
  if (!families[0] || !families[1] || families[0] === families[1]) return baseUrls;
  if (!spokeFamilies || spokeFamilies.size === 0) return urls[0]!;
  const v6Only = spokeFamilies.has('ipv6') && !spokeFamilies.has('ipv4');
  const wanted: IpFamily = v6Only ? 'ipv6' : 'ipv4';
  return urls[families.indexOf(wanted)]!;
}

/** Families named by the InfraEnv annotation `ip-family` (`v4`, `v6`, `v4,v6`); undefined if unset or invalid. */
export function ipFamiliesFromAnnotation(value: string | undefined): Set<IpFamily> | undefined {
  if (!value) return undefined;
  const out = new Set<IpFamily>();
  for (const part of value.split(',')) {
    const p = part.trim().toLowerCase();
    if (p === 'v4') out.add('ipv4');
    else if (p === 'v6') out.add('ipv6');
    else return undefined;
  }
  return out.size > 0 ? out : undefined;
}

export function ironicAgentImageFor(infraEnv: InfraEnv, opts: IronicAgentOptions): string {
  if (opts.ironicAgentImage) return opts.ironicAgentImage;
  const arm = infraEnv.cpu_architecture === 'arm64' || infraEnv.cpu_architecture === 'aarch64';
  return arm
    ? (opts.defaultImageArm ?? DEFAULT_IRONIC_AGENT_IMAGE_ARM)
    : (opts.defaultImage ?? DEFAULT_IRONIC_AGENT_IMAGE);
}

export function ironicAgentConf(opts: IronicAgentOptions): string {
  const api = ironicCallbackUrls(opts.ironicBaseUrl, IRONIC_API_PORT);
  const inspector = ironicCallbackUrls(
    opts.ironicInspectorBaseUrl || opts.ironicBaseUrl,
    IRONIC_INSPECTOR_PORT,
    INSPECTOR_CALLBACK_PATH,
  );
  return [
    '[DEFAULT]',
    `api_url = ${api}`,
    `inspection_callback_url = ${inspector}`,
    'insecure = True',
    '',
    'collect_lldp = True',
    'enable_vlan_interfaces = all',
    'inspection_collectors = default,extra-hardware,logs',
    'inspection_dhcp_all_interfaces = True',
    '',
  ].join('\n');
}

export function ironicAgentService(image: string, proxy: InfraEnv['proxy']): string {
  const quoted = (name: string, value: string | undefined) =>
    `Environment="${name}=${(value ?? '').replaceAll('%', '%%')}"`;
  const run = [
    '/bin/podman run --detach --rm --cgroups=no-conmon --sdnotify=conmon',
    '--cidfile=%t/%n.ctr-id --privileged --network host --ipc=host --uts=host',
    '--mount type=bind,src=/etc/ironic-python-agent.conf,dst=/etc/ironic-python-agent/ignition.conf',
    '--mount type=bind,src=/dev,dst=/dev',
    '--mount type=bind,src=/sys,dst=/sys',
    '--mount type=bind,src=/run/dbus/system_bus_socket,dst=/run/dbus/system_bus_socket',
    '--mount type=bind,src=/,dst=/mnt/coreos',
    '--mount type=bind,src=/run/udev,dst=/run/udev',
    '--env "IPA_COREOS_IP_OPTIONS=" --env IPA_COREOS_COPY_NETWORK=false --env "IPA_DEFAULT_HOSTNAME="',
    `--tls-verify=false --name ironic-agent ${image}`,
  ].join(' ');
  return [
    '[Unit]',
    'Description=Ironic Agent',
    'Wants=network-online.target',
    'After=network-online.target',
    '[Service]',
    quoted('HTTP_PROXY', proxy?.http_proxy),
    quoted('HTTPS_PROXY', proxy?.https_proxy),
    quoted('NO_PROXY', proxy?.no_proxy),
    'Type=notify',
    'TimeoutStartSec=0',
    'Restart=on-failure',
    'RestartSec=5',
    'StartLimitIntervalSec=0',
    'ExecStartPre=/bin/rm -f %t/%n.ctr-id',
    `ExecStart=${run}`,
    'ExecStop=/usr/bin/podman stop --ignore --cidfile=%t/%n.ctr-id',
    'ExecStopPost=/usr/bin/podman rm -f --ignore --cidfile=%t/%n.ctr-id',
    '[Install]',
    'WantedBy=multi-user.target',
    '',
  ].join('\n');
}

/** The internal override for the converged flow (Ignition 3.2.0). */
export function buildIronicAgentIgnition(infraEnv: InfraEnv, opts: IronicAgentOptions): IgnitionConfig {
  return {
    ignition: { version: '3.2.0' },
    storage: {
      files: [
        {
          path: '/etc/ironic-python-agent.conf',
          mode: 0o644,
          overwrite: false,
          contents: { source: escapedDataUrl(ironicAgentConf(opts)) },
        },
      ],
    },
    systemd: {
      units: [
        {
          name: 'ironic-agent.service',
          enabled: true,
          contents: ironicAgentService(ironicAgentImageFor(infraEnv, opts), infraEnv.proxy),
        },
      ],
    },
  };
}

/** buildIronicAgentIgnition as the JSON text stored in `internal_ignition_config_override`. */
export function ironicAgentOverride(infraEnv: InfraEnv, opts: IronicAgentOptions): string {
  return canonicalJson(buildIronicAgentIgnition(infraEnv, opts));
}
