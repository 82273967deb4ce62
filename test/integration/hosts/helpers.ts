// Shared pieces of the host API integration tests: an HTTP client speaking like the agent, a
// realistic inventory, and an InfraEnv with its pull secret.
import { request } from 'undici';
import type { Agent, InfraEnv } from '../../../src/api/index.ts';
import { AGENT, INFRA_ENV, SECRET } from '../../../src/records/resources.ts';
import { KubeClient } from '../../../src/runtime/index.ts';
import { adminKubeConfig, eventually } from '../../harness/env.ts';

export function adminClient(): KubeClient {
  return new KubeClient({ kubeConfig: adminKubeConfig(), qps: 0 });
}

export interface Reply {
  status: number;
  body: unknown;
  text: string;
}

/** One REST call as the Go clients make it (X-Secret-Key, JSON body ending in a newline). */
export async function call(
  baseUrl: string,
  method: 'GET' | 'POST' | 'PUT',
  path: string,
  opts: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
  if (opts.token !== undefined) headers['x-secret-key'] = opts.token;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) body = `${JSON.stringify(opts.body)}\n`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await request(`${baseUrl}/api/assisted-install${path}`, { method, headers, body });
  const text = await res.body.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.statusCode, body: parsed, text };
}

export function inventory(hostname: string, mac: string, overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    bmc_address: '0.0.0.0',
    bmc_v6address: '::/0',
    boot: { current_boot_mode: 'uefi', command_line: 'BOOT_IMAGE=/vmlinuz', device_type: 'ephemeral' },
    cpu: {
      architecture: 'x86_64',
      count: 8,
      flags: ['fpu', 'vmx'],
      frequency: 2400,
      model_name: 'Intel Xeon',
    },
    disks: [
      {
        by_path: '/dev/disk/by-path/pci-0000:00:04.0',
        drive_type: 'SSD',
        id: '/dev/disk/by-path/pci-0000:00:04.0',
        installation_eligibility: { eligible: true, not_eligible_reasons: null },
        name: 'vda',
        path: '/dev/vda',
        size_bytes: 214748364800,
        serial: 'disk-1',
      },
    ],
    gpus: [],
    hostname,
    interfaces: [
      {
        flags: ['up', 'broadcast', 'multicast'],
        has_carrier: true,
        ipv4_addresses: ['192.168.122.10/24'],
        ipv6_addresses: [],
        mac_address: mac,
        mtu: 1500,
        name: 'enp1s0',
        product: '0x0001',
        speed_mbps: -1,
        type: 'physical',
        vendor: '0x1af4',
      },
    ],
    memory: { physical_bytes: 34359738368, physical_bytes_method: 'dmidecode', usable_bytes: 33285996544 },
    routes: [
      { destination: '0.0.0.0', family: 2, gateway: '192.168.122.1', interface: 'enp1s0', metric: 100 },
    ],
    system_vendor: { manufacturer: 'Red Hat', product_name: 'KVM', virtual: true },
    tpm_version: 'none',
    ...overrides,
  });
}

export async function createInfraEnv(
  client: KubeClient,
  namespace: string,
  name: string,
  spec: Record<string, unknown> = {},
): Promise<InfraEnv> {
  await client.create(SECRET, {
    metadata: { name: `${name}-pull-secret`, namespace },
    type: 'kubernetes.io/dockerconfigjson',
    stringData: { '.dockerconfigjson': '{"auths":{"quay.io":{"auth":"ZGVtbzpkZW1v"}}}' },
  } as never);
  return client.create<InfraEnv>(INFRA_ENV, {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'InfraEnv',
    metadata: { name, namespace },
    spec: { pullSecretRef: { name: `${name}-pull-secret` }, cpuArchitecture: 'x86_64', ...spec },
  } as InfraEnv);
}

export function condition(agent: Agent | undefined, type: string) {
  return agent?.status?.conditions?.find((c) => c.type === type);
}

/** Waits until the Agent satisfies `probe`; the error shows the Agent's last state. */
export async function waitForAgent(
  client: KubeClient,
  namespace: string,
  name: string,
  probe: (a: Agent) => boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<Agent> {
  let last: Agent | undefined;
  try {
    return await eventually(
      async () => {
        last = await client.getIfExists<Agent>(AGENT, name, namespace);
        return last && probe(last) ? last : undefined;
      },
      { timeoutMs, what },
    );
  } catch (err) {
    const summary = last
      ? JSON.stringify({
          state: last.status?.debugInfo?.state,
          stateInfo: last.status?.debugInfo?.stateInfo,
          conditions: last.status?.conditions?.map((c) => `${c.type}=${c.status}/${c.reason}`),
        })
      : 'no Agent';
    throw new Error(`${(err as Error).message}; Agent: ${summary}`);
  }
}
