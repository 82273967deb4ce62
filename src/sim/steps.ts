// What a simulated next_step_runner answers to each step type (agent-api.md §4.4, §5.2): the
// same argument validation, exit codes and JSON outputs as the real tools, computed from the
// machine's profile and the simulated network instead of probing hardware.

import type { Disk } from '../core/inventory.ts';
import {
  addressAt,
  type Cidr,
  cidrContains,
  cidrSize,
  type IpFamily,
  parseCidr,
  tryParseIp,
} from '../core/network/cidr.ts';
import type { SimNetwork } from './network.ts';
import { hashString } from './prng.ts';
import type { SimulatedMachine } from './profiles.ts';

export interface Step {
  step_type: string;
  step_id: string;
  args?: string[] | null;
}

export interface StepOutcome {
  exitCode: number;
  output: string;
  error: string;
  /** Not posted now (install: posted when the installer container exits). */
  deferred?: boolean;
  /** The runner exits after posting (upgrade-agent success). */
  runnerExit?: string;
  /** The host reboots after posting (reboot-for-reclaim). */
  reboot?: boolean;
}

/** The install step's argument (install_cmd_request). */
export interface InstallRequest {
  cluster_id: string;
  infra_env_id: string;
  host_id: string;
  role: string;
  boot_device: string;
  controller_image: string;
  installer_image: string;
  control_plane_count?: number;
  disks_to_format?: string[] | null;
  openshift_version?: string;
  [key: string]: unknown;
}

export interface LogsGatherRequest {
  cluster_id: string;
  infra_env_id: string;
  host_id: string;
  bootstrap: boolean;
  installer_gather: boolean;
  master_ips?: string[] | null;
}

/** Knobs for the answers (all optional; defaults give a healthy host). */
export interface StepBehaviour {
  /** DNS answers for api./api-int. and *.apps.; learned from verify-vips / dhcp when unset. */
  apiVip?: string;
  ingressVip?: string;
  /** Sources chrony reports besides the requested ones (default: the machine network gateway). */
  ntpSources?: string[];
  /** Report every NTP source unreachable. */
  ntpUnsynced?: boolean;
  /** Images whose pull fails (substring match). */
  failImages?: string[];
  upgradeResult?: 'success' | 'failure';
  /** Whether the day-2 API VIP serves ignition (default true). */
  apiVipReachable?: boolean;
}

/** What the step handlers need from their host. */
export interface StepHost {
  machine: SimulatedMachine;
  network: SimNetwork;
  behaviour: StepBehaviour;
  /** VIPs seen in verify-vips / dhcp replies, used for DNS answers. */
  learnedVips: { api?: string; ingress?: string };
  startInstall(request: InstallRequest): 'started' | 'already-running';
  stopInstall(): void;
  gatherLogs(request: LogsGatherRequest): Promise<void>;
}

/** §4.2 image-ref pattern the agent validates images against. */
export const IMAGE_REF = /^(([a-zA-Z0-9\-.]+)(:[0-9]+)?\/)?[a-z0-9._\-/@]+[?::a-zA-Z0-9_\-.]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const ok = (output: unknown): StepOutcome => ({
  exitCode: 0,
  output: typeof output === 'string' ? output : JSON.stringify(output),
  error: '',
});
const invalid = (error: string): StepOutcome => ({ exitCode: -1, output: '', error });

class ArgsError extends Error {}

function args(step: Step): string[] {
  return step.args ?? [];
}

/** The single JSON argument of a step, which must be an object (or an array when `array`). */
function jsonArg<T>(step: Step, opts: { array?: boolean; count?: number } = {}): T {
  const a = args(step);
  const count = opts.count ?? 1;
  if (a.length !== count)
    throw new ArgsError(`Expected ${count} argument(s) for ${step.step_type}, got ${a.length}`);
  let value: unknown;
  try {
    value = JSON.parse(a[0]!);
  } catch (err) {
    throw new ArgsError(`failed to unmarshal ${step.step_type} request: ${(err as Error).message}`);
  }
  const isArray = Array.isArray(value);
  if (opts.array ? !isArray : isArray || typeof value !== 'object' || value === null) {
    throw new ArgsError(`${step.step_type} request must be a JSON ${opts.array ? 'array' : 'object'}`);
  }
  return value as T;
}

function required(obj: object, keys: string[], what: string): void {
  const record = obj as Record<string, unknown>;
  for (const k of keys) {
    const v = record[k];
    if (v === undefined || v === null || v === '')
      throw new ArgsError(`validation failure list: ${what}.${k} in body is required`);
  }
}

function diskByAnyPath(machine: SimulatedMachine, path: string): Disk | undefined {
  return (machine.inventory.disks ?? []).find(
    (d) => d.path === path || d.id === path || d.by_id === path || d.by_path === path,
  );
}

/** What a connectivity check reads of the machine: its id, addresses and routes. */
export type ProbingMachine = Pick<SimulatedMachine, 'hostId' | 'addresses'> & {
  inventory: Pick<SimulatedMachine['inventory'], 'routes'>;
};

/** Our address in the same subnet as `ip`, if any. */
function localAddressFor(machine: ProbingMachine, ip: string) {
  return machine.addresses.find((a) => cidrContains(a.cidr, ip));
}

function rttMs(a: string, b: string): number {
  return 0.2 + (hashString(`${a}>${b}`) % 60) / 100;
}

/**
 * The connectivity-check output (a ConnectivityReport) for the hosts the step names, probed over
 * `network`. Also what `make bench-scale`'s hosts answer (bench/fleet.ts).
 */
export function connectivityOutput(step: Step, host: { machine: ProbingMachine; network: SimNetwork }) {
  type Remote = {
    host_id: string;
    nics?: { name?: string; mac?: string; ip_addresses?: string[] | null }[] | null;
  };
  const remotes = jsonArg<Remote[]>(step, { array: true });
  const defaultNic = (family: IpFamily) =>
    (host.machine.inventory.routes ?? []).find((r) => r.family === (family === 'ipv4' ? 2 : 10) && r.gateway)
      ?.interface;
  return {
    remote_hosts: remotes.map((remote) => {
      const l2: Record<string, unknown>[] = [];
      const l3: Record<string, unknown>[] = [];
      const mtu: Record<string, unknown>[] = [];
      for (const nic of remote.nics ?? []) {
        for (const ip of nic.ip_addresses ?? []) {
          const parsed = tryParseIp(ip);
          if (!parsed) continue;
          const local = localAddressFor(host.machine, ip);
          const probe = host.network.probe(ip);
          if (local) {
            const mac = probe.mac ?? nic.mac;
            // Go's omitempty: false booleans and empty strings are left out.
            l2.push({
              outgoing_ip_address: local.ip,
              outgoing_nic: local.nic,
              remote_ip_address: ip,
              ...(probe.reachable && mac ? { remote_mac: mac } : {}),
              ...(probe.reachable ? { successful: true } : {}),
            });
            mtu.push({
              outgoing_nic: local.nic,
              remote_ip_address: ip,
              ...(probe.reachable ? { mtu_successful: true } : {}),
            });
          }
          const outgoing = local?.nic ?? defaultNic(parsed.family);
          const reachable = probe.reachable && outgoing !== undefined;
          l3.push({
            outgoing_nic: outgoing ?? '',
            remote_ip_address: ip,
            ...(reachable
              ? { successful: true, average_rtt_ms: rttMs(host.machine.hostId, ip) }
              : { packet_loss_percentage: 100 }),
          });
        }
      }
      return { host_id: remote.host_id, l2_connectivity: l2, l3_connectivity: l3, mtu_report: mtu };
    }),
  };
}

/** The hosts an nmap ARP scan of `cidr` would not find (IPv4, at most 4096 addresses). */
function freeAddresses(cidrText: string, host: StepHost): string[] {
  const cidr = parseCidr(cidrText);
  if (cidr.family !== 'ipv4') throw new ArgsError(`free addresses: ${cidrText} is not an IPv4 network`);
  const size = cidrSize(cidr);
  if (size > 4096n) throw new ArgsError(`free addresses: ${cidrText} is too large to scan`);
  const free: string[] = [];
  for (let off = 1n; off < size - 1n; off++) {
    const ip = addressAt(cidr, off);
    // The gateway answers ARP; so does every simulated machine that is up.
    if (off === 1n) continue;
    const owner = host.network.owner(ip);
    if (owner && host.network.probe(ip).reachable) continue;
    free.push(ip);
  }
  return free;
}

function ntp(step: Step, host: StepHost) {
  const req = jsonArg<{ ntp_source?: string }>(step);
  if (typeof req.ntp_source !== 'string')
    throw new ArgsError('validation failure list: ntp_source in body is required');
  const requested = req.ntp_source
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const gateway = host.machine.addresses[0] ? addressAt(host.machine.addresses[0].cidr, 1) : undefined;
  const defaults = host.behaviour.ntpSources ?? (gateway ? [gateway] : []);
  const all = [...new Set([...requested, ...defaults])];
  return {
    ntp_sources: all.map((source_name, i) => ({
      source_name,
      source_state: host.behaviour.ntpUnsynced ? 'unreachable' : i === 0 ? 'synced' : 'combined',
    })),
  };
}

/** A stable documentation-range address (TEST-NET-3) for names outside the cluster domain. */
function publicAddress(name: string): string {
  return `203.0.113.${(hashString(name) % 250) + 1}`;
}

function domainResolution(step: Step, host: StepHost) {
  const req = jsonArg<{ domains?: { domain_name?: string }[] | null }>(step);
  if (!Array.isArray(req.domains))
    throw new ArgsError('validation failure list: domains in body is required');
  const apiVip = host.behaviour.apiVip ?? host.learnedVips.api;
  const ingressVip = host.behaviour.ingressVip ?? host.learnedVips.ingress;
  const clusterSuffixes = req.domains
    .map((d) => d.domain_name ?? '')
    .filter((n) => n.startsWith('api.'))
    .map((n) => n.slice(4));
  return {
    resolutions: req.domains.map((d) => {
      const name = d.domain_name ?? '';
      const bare = name.replace(/\.$/, '');
      let answer: string | undefined;
      if (bare.startsWith('api.') || bare.startsWith('api-int.')) answer = apiVip;
      else if (bare.includes('.apps.')) answer = ingressVip;
      else if (clusterSuffixes.some((s) => bare.endsWith(`.${s}`)))
        answer = undefined; // no wildcard DNS
      else answer = publicAddress(bare);
      const v6 = answer?.includes(':') ?? false;
      return {
        domain_name: name,
        ipv4_addresses: answer && !v6 ? [answer] : [],
        ipv6_addresses: answer && v6 ? [answer] : [],
        cnames: [],
      };
    }),
  };
}

function imageAvailability(step: Step, host: StepHost): StepOutcome {
  const req = jsonArg<{ images?: string[] | null; timeout?: number }>(step);
  if (!Array.isArray(req.images)) throw new ArgsError('validation failure list: images in body is required');
  const failing = host.behaviour.failImages ?? [];
  const images = req.images.map((name) => {
    if (failing.some((f) => name.includes(f))) return { name, result: 'failure' };
    const size = 150_000_000 + (hashString(name) % 700) * 1_000_000;
    const time = 2 + (hashString(`${name}#t`) % 800) / 100;
    return {
      name,
      result: 'success',
      size_bytes: size,
      time,
      download_rate: Math.round((size / time / 1e6) * 100) / 100,
    };
  });
  const anyFailed = images.some((i) => i.result === 'failure');
  return { ...ok({ images }), exitCode: anyFailed ? 2 : 0 };
}

function diskSpeed(step: Step, host: StepHost): StepOutcome {
  const a = args(step);
  if (a.length !== 2) throw new ArgsError(`Expected 2 arguments for ${step.step_type}, got ${a.length}`);
  const req = jsonArg<{ path?: string }>({ ...step, args: [a[0]!] });
  if (!req.path) throw new ArgsError('validation failure list: path in body is required');
  if (!diskByAnyPath(host.machine, req.path)) {
    return {
      exitCode: -1,
      output: JSON.stringify({ io_sync_duration: 0, path: req.path }),
      error: `fio: ${req.path}: No such file or directory`,
    };
  }
  return ok({ io_sync_duration: host.machine.diskSyncMs, path: req.path });
}

function dhcpLease(step: Step, host: StepHost) {
  const req = jsonArg<{ interface?: string; api_vip_mac?: string; ingress_vip_mac?: string }>(step);
  required(req, ['interface', 'api_vip_mac', 'ingress_vip_mac'], 'dhcp_allocation_request');
  const local = host.machine.addresses.find((a) => a.nic === req.interface && a.cidr.family === 'ipv4');
  if (!local) return { exitCode: -1, output: '', error: `interface ${req.interface} has no IPv4 address` };
  // The simulated DHCP server hands out fixed addresses near the end of the range.
  const top = cidrSize(local.cidr);
  const api = addressAt(local.cidr, top - 6n);
  const ingress = addressAt(local.cidr, top - 7n);
  host.learnedVips.api ??= api;
  host.learnedVips.ingress ??= ingress;
  const lease = (name: string, address: string, mac: string) =>
    `lease {\n  interface "${name}";\n  fixed-address ${address};\n  option subnet-mask ${subnetMask(local.cidr)};\n` +
    `  option dhcp-lease-time 3600;\n  option dhcp-server-identifier ${addressAt(local.cidr, 1)};\n  # mac ${mac}\n}\n`;
  return {
    api_vip_address: api,
    ingress_vip_address: ingress,
    api_vip_lease: lease('api', api, req.api_vip_mac!),
    ingress_vip_lease: lease('ingress', ingress, req.ingress_vip_mac!),
  };
}

function subnetMask(cidr: Cidr): string {
  const mask = cidr.prefix === 0 ? 0 : (0xffffffff << (32 - cidr.prefix)) >>> 0;
  return [24, 16, 8, 0].map((s) => (mask >>> s) & 0xff).join('.');
}

function verifyVips(step: Step, host: StepHost) {
  const vips = jsonArg<{ vip?: string; vip_type?: string }[]>(step, { array: true });
  return vips.map((v) => {
    if (!v.vip || (v.vip_type !== 'api' && v.vip_type !== 'ingress'))
      throw new ArgsError('validation failure list: vip and vip_type are required');
    if (v.vip_type === 'api') host.learnedVips.api ??= v.vip;
    else host.learnedVips.ingress ??= v.vip;
    // arping: a VIP answered by a machine is taken; one outside our networks cannot be checked.
    const inUse = host.network.owner(v.vip) !== undefined;
    const local = localAddressFor(host.machine, v.vip) !== undefined;
    return {
      vip: v.vip,
      vip_type: v.vip_type,
      verification: inUse ? 'failed' : local ? 'succeeded' : 'unverified',
    };
  });
}

function tang(step: Step) {
  const req = jsonArg<{ tang_servers?: string }>(step);
  if (typeof req.tang_servers !== 'string')
    throw new ArgsError('validation failure list: tang_servers in body is required');
  let servers: { url?: string; thumbprint?: string }[];
  try {
    servers = JSON.parse(req.tang_servers);
  } catch (err) {
    throw new ArgsError(`failed to unmarshal tang_servers: ${(err as Error).message}`);
  }
  const b64 = (s: string) => Buffer.from(s).toString('base64url');
  return {
    is_success: true,
    tang_server_response: (servers ?? []).map((s) => ({
      tang_url: s.url ?? '',
      payload: b64(
        JSON.stringify({ keys: [{ alg: 'ES512', kty: 'EC', crv: 'P-521', key_ops: ['verify'] }] }),
      ),
      signatures: [
        {
          protected: b64('{"alg":"ES512","cty":"jwk-set+json"}'),
          signature: b64(`sig:${s.thumbprint ?? ''}`),
        },
      ],
    })),
  };
}

function apiVipConnectivity(step: Step, host: StepHost) {
  const req = jsonArg<{ url?: string }>(step);
  if (!req.url) throw new ArgsError('validation failure list: url in body is required');
  if (host.behaviour.apiVipReachable === false) {
    return { url: req.url, download_error: `Get "${req.url}": dial tcp: connect: no route to host` };
  }
  const ignition = { ignition: { version: '3.2.0' }, storage: {}, systemd: {} };
  return { is_success: true, url: req.url, ignition: JSON.stringify(ignition) };
}

function install(step: Step, host: StepHost): StepOutcome {
  const req = jsonArg<InstallRequest>(step);
  required(
    req,
    ['cluster_id', 'infra_env_id', 'host_id', 'role', 'boot_device', 'controller_image', 'installer_image'],
    'install_cmd_request',
  );
  for (const path of [req.boot_device, ...(req.disks_to_format ?? [])]) {
    if (!path.startsWith('/dev/')) throw new ArgsError(`disk ${path} must start with /dev/`);
    if (!diskByAnyPath(host.machine, path)) throw new ArgsError(`disk ${path} was not found on the host`);
  }
  for (const image of [req.controller_image, req.installer_image]) {
    if (!IMAGE_REF.test(image)) throw new ArgsError(`invalid image reference ${image}`);
  }
  if (host.startInstall(req) === 'already-running') {
    return {
      exitCode: 125,
      output: '',
      error: 'Error: creating container storage: the container name "assisted-installer" is already in use',
    };
  }
  return { exitCode: 0, output: '', error: '', deferred: true };
}

async function logsGather(step: Step, host: StepHost): Promise<StepOutcome> {
  const req = jsonArg<LogsGatherRequest>(step);
  required(req, ['cluster_id', 'infra_env_id', 'host_id'], 'logs_gather_cmd_request');
  if (typeof req.bootstrap !== 'boolean')
    throw new ArgsError('validation failure list: bootstrap in body is required');
  try {
    await host.gatherLogs(req);
    return ok('');
  } catch (err) {
    return { exitCode: 1, output: '', error: `logs_sender failed: ${(err as Error).message}` };
  }
}

function upgradeAgent(step: Step, host: StepHost): StepOutcome {
  const req = jsonArg<{ agent_image?: string }>(step);
  if (!req.agent_image || !IMAGE_REF.test(req.agent_image))
    throw new ArgsError(`invalid agent image ${req.agent_image}`);
  const result = host.behaviour.upgradeResult ?? 'success';
  const outcome = ok({ agent_image: req.agent_image, result });
  return result === 'success' ? { ...outcome, runnerExit: `upgraded to ${req.agent_image}` } : outcome;
}

/** Runs one instruction. Never throws: argument problems become exit -1 replies, as in the agent. */
export async function runStep(step: Step, host: StepHost): Promise<StepOutcome> {
  try {
    switch (step.step_type) {
      case 'inventory': {
        const a = args(step);
        if (a.length !== 1 || !UUID.test(a[0]!))
          throw new ArgsError(`inventory expects exactly one host id argument, got ${JSON.stringify(a)}`);
        return ok(host.machine.inventory);
      }
      case 'connectivity-check':
        return ok(connectivityOutput(step, host));
      case 'free-network-addresses': {
        const networks = jsonArg<string[]>(step, { array: true });
        return ok(networks.map((network) => ({ network, free_addresses: freeAddresses(network, host) })));
      }
      case 'ntp-synchronizer':
        return ok(ntp(step, host));
      case 'domain-resolution':
        return ok(domainResolution(step, host));
      case 'container-image-availability':
        return imageAvailability(step, host);
      case 'installation-disk-speed-check':
        return diskSpeed(step, host);
      case 'dhcp-lease-allocate':
        return ok(dhcpLease(step, host));
      case 'verify-vips':
        return ok(verifyVips(step, host));
      case 'tang-connectivity-check':
        return ok(tang(step));
      case 'api-vip-connectivity-check':
        return ok(apiVipConnectivity(step, host));
      case 'install':
        return install(step, host);
      case 'logs-gather':
        return await logsGather(step, host);
      case 'stop-installation':
        if (args(step).length !== 0) throw new ArgsError('stop-installation takes no arguments');
        host.stopInstall();
        return ok('');
      case 'upgrade-agent':
        return upgradeAgent(step, host);
      case 'download-boot-artifacts': {
        const req = jsonArg<Record<string, unknown>>(step);
        required(
          req,
          ['kernel_url', 'rootfs_url', 'initrd_url', 'host_fs_mount_dir'],
          'download_boot_artifacts_request',
        );
        return ok('Successfully downloaded boot artifacts');
      }
      case 'reboot-for-reclaim': {
        const req = jsonArg<Record<string, unknown>>(step);
        required(req, ['host_fs_mount_dir'], 'reboot_for_reclaim_request');
        return { ...ok(''), reboot: true };
      }
      default:
        // next-step-runner and execute are in the enum but have no agent action (§5.2).
        return invalid(`failed to find action for step type ${step.step_type}`);
    }
  } catch (err) {
    if (err instanceof ArgsError || err instanceof Error) return invalid(err.message);
    return invalid(String(err));
  }
}
