// Hardware profiles of simulated machines and their inventories (agent-api.md §3.4, exact wire
// field names). Everything is a pure function of (profile, index, options): the same index always
// gives the same host id, MACs, addresses, serials and hostname, so runs are reproducible and a
// restarted simulator re-registers the same hosts.

import type { Disk, Interface, Inventory, Route } from '../core/inventory.ts';
import {
  addressAt,
  type Cidr,
  cidrSize,
  networkAddress,
  normalizeCidr,
  parseCidr,
} from '../core/network/cidr.ts';
import { hashString, md5Uuid } from './prng.ts';

export const PROFILE_NAMES = ['sno', 'master', 'worker', 'undersized', 'multi-nic', 'multi-disk'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

export function isProfileName(name: string): name is ProfileName {
  return (PROFILE_NAMES as readonly string[]).includes(name);
}

export interface MachineOptions {
  /** Distinguishes fleets: feeds MACs, serials and host ids. Default "sim". */
  seed?: string;
  /** One CIDR per address family for the primary NIC. Default ["192.168.111.0/24"]. */
  machineNetworks?: string[];
  /** Network of the second NIC of the multi-nic profile. Default "172.22.0.0/16". */
  secondaryNetwork?: string;
  /** Host n gets the address `network + firstHostOffset + n` (leaves room for gateway and VIPs). Default 10. */
  firstHostOffset?: number;
  /** Hostnames are `<prefix>-<profile>-<index>`. Default "sim". */
  hostnamePrefix?: string;
}

export interface MachineAddress {
  nic: string;
  mac: string;
  /** Address without prefix length. */
  ip: string;
  cidr: Cidr;
}

export interface SimulatedMachine {
  index: number;
  profile: ProfileName;
  hostId: string;
  hostname: string;
  serial: string;
  inventory: Inventory;
  /** Every configured address, for the simulated network. */
  addresses: MachineAddress[];
  /** The p99 fdatasync latency (ms) the installation-disk-speed-check reports. */
  diskSyncMs: number;
}

interface DiskSpec {
  name: string;
  sizeGiB: number;
  driveType: 'HDD' | 'SSD' | 'ODD';
  bus: 'virtio' | 'sas' | 'usb' | 'sata-cd';
  removable?: boolean;
  installationMedia?: boolean;
  partitionTypes?: string;
  agentReasons?: string[];
}

interface NicSpec {
  name: string;
  /** Which networks it is on: "machine" (all machine networks), "secondary", or none. */
  network?: 'machine' | 'secondary';
  carrier: boolean;
  up: boolean;
}

interface ProfileSpec {
  cores: number;
  ramGiB: number;
  bareMetal: boolean;
  disks: DiskSpec[];
  nics: NicSpec[];
  diskSyncMs: number;
}

const GiB = 1024 ** 3;
const REMOVABLE = 'Disk is removable';
const ISO_MEDIA = 'Disk appears to be an ISO installation media (has partition with type iso9660)';
const virtioDisk = (sizeGiB: number): DiskSpec => ({ name: 'vda', sizeGiB, driveType: 'HDD', bus: 'virtio' });
const virtioNic: NicSpec[] = [{ name: 'enp1s0', network: 'machine', carrier: true, up: true }];

const PROFILES: Record<ProfileName, ProfileSpec> = {
  sno: { cores: 16, ramGiB: 32, bareMetal: false, disks: [virtioDisk(150)], nics: virtioNic, diskSyncMs: 2 },
  master: {
    cores: 8,
    ramGiB: 32,
    bareMetal: false,
    disks: [virtioDisk(130)],
    nics: virtioNic,
    diskSyncMs: 3,
  },
  worker: {
    cores: 4,
    ramGiB: 16,
    bareMetal: false,
    disks: [virtioDisk(120)],
    nics: virtioNic,
    diskSyncMs: 4,
  },
  // Below every role's minimum (2 cores is the worker minimum but 4 GiB RAM / 20 GiB disk are not),
  // and a disk too slow for etcd.
  undersized: {
    cores: 2,
    ramGiB: 4,
    bareMetal: false,
    disks: [virtioDisk(20)],
    nics: virtioNic,
    diskSyncMs: 45,
  },
  'multi-nic': {
    cores: 16,
    ramGiB: 64,
    bareMetal: true,
    disks: [{ name: 'sda', sizeGiB: 447, driveType: 'SSD', bus: 'sas' }],
    nics: [
      { name: 'eno1', network: 'machine', carrier: true, up: true },
      { name: 'eno2', network: 'secondary', carrier: true, up: true },
      { name: 'ens2f0', carrier: false, up: true },
      { name: 'ens2f1', carrier: false, up: false },
    ],
    diskSyncMs: 1,
  },
  'multi-disk': {
    cores: 16,
    ramGiB: 64,
    bareMetal: true,
    disks: [
      { name: 'sda', sizeGiB: 447, driveType: 'SSD', bus: 'sas' },
      { name: 'sdb', sizeGiB: 1863, driveType: 'HDD', bus: 'sas', partitionTypes: 'gpt' },
      // Eligible as far as the agent knows; the service rejects it as too small.
      { name: 'sdc', sizeGiB: 8, driveType: 'SSD', bus: 'sas' },
      { name: 'sdd', sizeGiB: 29, driveType: 'SSD', bus: 'usb', removable: true, agentReasons: [REMOVABLE] },
      {
        name: 'sr0',
        sizeGiB: 1.1,
        driveType: 'ODD',
        bus: 'sata-cd',
        removable: true,
        installationMedia: true,
        partitionTypes: 'iso9660',
        agentReasons: [REMOVABLE, ISO_MEDIA],
      },
    ],
    nics: [{ name: 'eno1', network: 'machine', carrier: true, up: true }],
    diskSyncMs: 1,
  },
};

const CPU_FLAGS = ['fpu', 'vme', 'de', 'pse', 'tsc', 'msr', 'pae', 'mce', 'cx8', 'apic', 'sep', 'mtrr', 'pge']
  .concat(['mca', 'cmov', 'pat', 'pse36', 'clflush', 'mmx', 'fxsr', 'sse', 'sse2', 'ht', 'syscall', 'nx'])
  .concat([
    'lm',
    'constant_tsc',
    'rep_good',
    'nopl',
    'pni',
    'vmx',
    'ssse3',
    'fma',
    'cx16',
    'sse4_1',
    'sse4_2',
  ])
  .concat(['x2apic', 'movbe', 'popcnt', 'aes', 'xsave', 'avx', 'f16c', 'rdrand', 'hypervisor', 'avx2']);

const LIVE_CMDLINE =
  'BOOT_IMAGE=/images/pxeboot/vmlinuz random.trust_cpu=on ignition.firstboot ignition.platform.id=metal ' +
  'coreos.live.rootfs_url=https://image-service.example/boot-artifacts/rootfs?arch=x86_64&version=416.94';

function mac(seedByte: number, index: number, nic: number): string {
  // 52:54 is QEMU's locally administered prefix; then the seed, then 21 bits of index + 3 of NIC.
  const v = ((index & 0x1fffff) << 3) | (nic & 7);
  return [0x52, 0x54, seedByte, (v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff]
    .map((b) => b.toString(16).padStart(2, '0'))
    .join(':');
}

/** How many hosts fit in a machine network with the given offset (excludes broadcast for IPv4). */
export function machineNetworkCapacity(cidr: string, firstHostOffset = 10): number {
  const c = parseCidr(cidr);
  const size = cidrSize(c) - BigInt(firstHostOffset) - (c.family === 'ipv4' ? 1n : 0n);
  return size > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Math.max(0, Number(size));
}

function hostAddress(cidr: Cidr, offset: number, what: string): string {
  if (BigInt(offset) >= cidrSize(cidr) - (cidr.family === 'ipv4' ? 1n : 0n)) {
    throw new Error(
      `${what} ${normalizeCidr(cidr)} is too small for host offset ${offset}; use a larger network`,
    );
  }
  return addressAt(cidr, offset);
}

function diskFor(spec: DiskSpec, index: number, seedHex: string, position: number): Disk {
  const serial = `${seedHex.slice(0, 4).toUpperCase()}${String(index).padStart(6, '0')}${position}`;
  const size = Math.round(spec.sizeGiB * GiB);
  const common = {
    drive_type: spec.driveType,
    name: spec.name,
    path: `/dev/${spec.name}`,
    size_bytes: size,
    ...(spec.removable ? { removable: true } : {}),
    ...(spec.installationMedia ? { is_installation_media: true, bootable: true } : {}),
    ...(spec.partitionTypes ? { partitionTypes: spec.partitionTypes } : {}),
    installation_eligibility: {
      eligible: (spec.agentReasons ?? []).length === 0,
      // Go nil slice: null when the agent has no reason.
      not_eligible_reasons: spec.agentReasons ?? null,
    },
  };
  switch (spec.bus) {
    case 'virtio': {
      const byPath = `/dev/disk/by-path/pci-0000:04:00.${position}`;
      return { ...common, by_path: byPath, id: byPath, vendor: '0x1af4', has_uuid: false };
    }
    case 'sas': {
      const wwn = `0x5000c500${(hashString(serial) >>> 0).toString(16).padStart(8, '0')}`;
      const byId = `/dev/disk/by-id/wwn-${wwn}`;
      return {
        ...common,
        by_id: byId,
        by_path: `/dev/disk/by-path/pci-0000:18:00.0-scsi-0:2:${position}:0`,
        id: byId,
        hctl: `0:2:${position}:0`,
        model: spec.driveType === 'SSD' ? 'PERC H740P Mini' : 'PERC H740P Adp',
        vendor: 'DELL',
        serial,
        wwn,
      };
    }
    case 'usb': {
      const byId = `/dev/disk/by-id/usb-SanDisk_Ultra_Fit_${serial}-0:0`;
      return {
        ...common,
        by_id: byId,
        id: byId,
        hctl: `6:0:0:0`,
        model: 'Ultra Fit',
        vendor: 'SanDisk',
        serial,
      };
    }
    case 'sata-cd': {
      const byId = '/dev/disk/by-id/usb-iDRAC_Virtual_CD_1234567890AB-0:0';
      return { ...common, by_id: byId, id: byId, hctl: '7:0:0:0', model: 'Virtual CD', vendor: 'iDRAC' };
    }
  }
}

function nicFor(spec: NicSpec, mac: string, bareMetal: boolean, v4: string[], v6: string[]): Interface {
  const flags = [
    ...(spec.up ? ['up'] : []),
    'broadcast',
    'multicast',
    ...(spec.up && spec.carrier ? ['running'] : []),
  ];
  return {
    name: spec.name,
    mac_address: mac,
    flags,
    has_carrier: spec.carrier,
    ipv4_addresses: v4,
    ipv6_addresses: v6,
    mtu: 1500,
    type: 'physical',
    ...(bareMetal
      ? { vendor: '0x8086', product: '0x1572', speed_mbps: spec.carrier ? 10000 : -1, biosdevname: spec.name }
      : // virtio-net: the kernel reports speed -1 and the agent passes it through.
        { vendor: '0x1af4', product: '0x0001', speed_mbps: -1 }),
  };
}

/** The machine with this index: identity, addresses and the inventory its agent reports. */
export function simulatedMachine(
  profile: ProfileName,
  index: number,
  opts: MachineOptions = {},
): SimulatedMachine {
  const spec = PROFILES[profile];
  const seed = opts.seed ?? 'sim';
  const seedHash = hashString(seed);
  const seedHex = seedHash.toString(16).padStart(8, '0');
  const offset = (opts.firstHostOffset ?? 10) + index;
  const machineNets = (opts.machineNetworks ?? ['192.168.111.0/24']).map(parseCidr);
  const secondary = parseCidr(opts.secondaryNetwork ?? '172.22.0.0/16');
  const serial = `SIM${seedHex.toUpperCase()}${String(index).padStart(6, '0')}`;
  const hostname = `${opts.hostnamePrefix ?? 'sim'}-${profile}-${index}`;

  const addresses: MachineAddress[] = [];
  const routes: Route[] = [];
  const interfaces = spec.nics.map((nicSpec, n) => {
    const nicMac = mac(seedHash & 0xff, index, n);
    const nets =
      nicSpec.network === 'machine' ? machineNets : nicSpec.network === 'secondary' ? [secondary] : [];
    const v4: string[] = [];
    const v6: string[] = [];
    for (const net of nets) {
      const ip = hostAddress(
        net,
        offset,
        nicSpec.network === 'machine' ? 'machine network' : 'secondary network',
      );
      addresses.push({ nic: nicSpec.name, mac: nicMac, ip, cidr: net });
      (net.family === 'ipv4' ? v4 : v6).push(`${ip}/${net.prefix}`);
      const family = net.family === 'ipv4' ? 2 : 10;
      const metric = nicSpec.network === 'machine' ? 100 : 101;
      if (nicSpec.network === 'machine') {
        const gateway = addressAt(net, 1);
        routes.push({
          destination: net.family === 'ipv4' ? '0.0.0.0' : '::',
          family,
          gateway,
          interface: nicSpec.name,
          metric,
        });
      }
      routes.push({
        destination: networkAddress(net),
        family,
        interface: nicSpec.name,
        metric,
      });
    }
    return nicFor(nicSpec, nicMac, spec.bareMetal, v4, v6);
  });
  // The agent lists IPv4 routes, then IPv6.
  routes.sort((a, b) => (a.family ?? 0) - (b.family ?? 0));

  const physical = spec.ramGiB * GiB;
  const inventory: Inventory = {
    hostname,
    bmc_address: spec.bareMetal ? `10.200.${(index >> 8) & 0xff}.${index & 0xff}` : '0.0.0.0',
    bmc_v6address: '::/0',
    boot: {
      current_boot_mode: 'uefi',
      command_line: LIVE_CMDLINE,
      secure_boot_state: 'Disabled',
      device_type: 'ephemeral',
    },
    cpu: {
      architecture: 'x86_64',
      count: spec.cores,
      flags: CPU_FLAGS,
      frequency: spec.bareMetal ? 3900 : 2095.076,
      model_name: spec.bareMetal
        ? 'Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz'
        : 'Intel Xeon Processor (Cascadelake)',
    },
    disks: spec.disks.map((d, i) => diskFor(d, index, seedHex, i)),
    gpus: spec.bareMetal
      ? [
          {
            vendor: 'Matrox Electronics Systems Ltd.',
            vendor_id: '102b',
            device_id: '0536',
            name: 'Integrated Matrox G200eW3 Graphics Controller',
            address: '0000:03:00.0',
          },
        ]
      : [],
    interfaces,
    memory: {
      physical_bytes: physical,
      // MemTotal: what the kernel leaves after its own reservations.
      usable_bytes: physical - Math.round(physical * 0.023),
      physical_bytes_method: 'dmidecode',
    },
    routes,
    system_vendor: spec.bareMetal
      ? { manufacturer: 'Dell Inc.', product_name: 'PowerEdge R640', serial_number: serial, virtual: false }
      : { manufacturer: 'Red Hat', product_name: 'KVM', serial_number: serial, virtual: true },
    tpm_version: spec.bareMetal ? '2.0' : 'none',
  };
  // §4.2: the host id is the md5 of the board serial, formatted as a UUID.
  return {
    index,
    profile,
    hostId: md5Uuid(serial),
    hostname,
    serial,
    inventory,
    addresses,
    diskSyncMs: spec.diskSyncMs,
  };
}
