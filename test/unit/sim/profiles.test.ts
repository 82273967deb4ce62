import { describe, expect, it } from 'vitest';
import { inventorySchema } from '../../../src/core/steps/reply-schemas.ts';
import { machineNetworkCapacity, PROFILE_NAMES, simulatedMachine } from '../../../src/sim/profiles.ts';

const GiB = 1024 ** 3;

describe('profiles', () => {
  it('is deterministic per (profile, index, seed) and differs by seed', () => {
    expect(simulatedMachine('master', 7)).toEqual(simulatedMachine('master', 7));
    expect(simulatedMachine('master', 7, { seed: 'a' }).hostId).not.toBe(
      simulatedMachine('master', 7, { seed: 'b' }).hostId,
    );
  });

  it('gives 1000 hosts unique ids, MACs, addresses and hostnames', () => {
    const machines = Array.from({ length: 1000 }, (_, i) =>
      simulatedMachine(PROFILE_NAMES[i % PROFILE_NAMES.length]!, i, { machineNetworks: ['10.10.0.0/16'] }),
    );
    const unique = (xs: string[]) => new Set(xs).size === xs.length;
    expect(unique(machines.map((m) => m.hostId))).toBe(true);
    expect(unique(machines.map((m) => m.hostname))).toBe(true);
    expect(unique(machines.map((m) => m.serial))).toBe(true);
    expect(unique(machines.flatMap((m) => (m.inventory.interfaces ?? []).map((n) => n.mac_address!)))).toBe(
      true,
    );
    expect(unique(machines.flatMap((m) => m.addresses.map((a) => a.ip)))).toBe(true);
    for (const m of machines)
      expect(m.hostId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it('places hosts in the machine network after the offset and refuses to overflow it', () => {
    const m = simulatedMachine('worker', 3);
    expect(m.inventory.interfaces![0]!.ipv4_addresses).toEqual(['192.168.111.13/24']);
    expect(m.inventory.routes).toEqual([
      { destination: '0.0.0.0', family: 2, gateway: '192.168.111.1', interface: 'enp1s0', metric: 100 },
      { destination: '192.168.111.0', family: 2, interface: 'enp1s0', metric: 100 },
    ]);
    expect(machineNetworkCapacity('192.168.111.0/24')).toBe(245);
    expect(() => simulatedMachine('worker', 245)).toThrow(/too small/);
  });

  it('supports a dual-stack machine network (family 10 routes, IPv6 addresses)', () => {
    const m = simulatedMachine('master', 0, {
      machineNetworks: ['192.168.111.0/24', 'fd2e:6f44:5dd8:c956::/120'],
    });
    expect(m.inventory.interfaces![0]!.ipv6_addresses).toEqual(['fd2e:6f44:5dd8:c956::a/120']);
    expect(m.inventory.routes!.map((r) => r.family)).toEqual([2, 2, 10, 10]);
    expect(m.inventory.routes![2]).toMatchObject({ destination: '::', gateway: 'fd2e:6f44:5dd8:c956::1' });
  });

  it('every profile validates against the service inventory schema', () => {
    for (const p of PROFILE_NAMES) {
      const parsed = inventorySchema.safeParse(JSON.parse(JSON.stringify(simulatedMachine(p, 1).inventory)));
      expect(parsed.success, p).toBe(true);
    }
  });

  it('sizes: sno ≥ 8 cores / 32 GiB / 120 GB; undersized below every minimum', () => {
    const sno = simulatedMachine('sno', 0).inventory;
    expect(sno.cpu!.count).toBeGreaterThanOrEqual(8);
    expect(sno.memory!.physical_bytes).toBeGreaterThanOrEqual(32 * GiB);
    expect(sno.disks![0]!.size_bytes).toBeGreaterThanOrEqual(120e9);
    const master = simulatedMachine('master', 0).inventory;
    expect(master.cpu!.count).toBeGreaterThanOrEqual(4);
    expect(master.memory!.physical_bytes).toBeGreaterThanOrEqual(16 * GiB);
    const small = simulatedMachine('undersized', 0);
    expect(small.inventory.memory!.physical_bytes).toBeLessThan(8 * GiB);
    expect(small.inventory.disks![0]!.size_bytes).toBeLessThan(100e9);
    expect(small.diskSyncMs).toBeGreaterThan(10);
  });

  it('multi-nic has several NICs, one on a second network, some without carrier', () => {
    const inv = simulatedMachine('multi-nic', 2).inventory;
    expect(inv.interfaces!.map((n) => n.name)).toEqual(['eno1', 'eno2', 'ens2f0', 'ens2f1']);
    expect(inv.interfaces![1]!.ipv4_addresses).toEqual(['172.22.0.12/16']);
    expect(inv.interfaces!.filter((n) => !n.has_carrier)).toHaveLength(2);
    expect(inv.system_vendor).toMatchObject({ manufacturer: 'Dell Inc.', virtual: false });
  });

  it('multi-disk has eligible disks plus a removable, an ISO medium and a too-small one', () => {
    const disks = simulatedMachine('multi-disk', 0).inventory.disks!;
    expect(disks.map((d) => d.name)).toEqual(['sda', 'sdb', 'sdc', 'sdd', 'sr0']);
    const raw = JSON.parse(JSON.stringify(disks));
    expect(raw[1].partitionTypes).toBe('gpt');
    expect(raw[0].installation_eligibility).toEqual({ eligible: true, not_eligible_reasons: null });
    expect(raw[3]).toMatchObject({
      removable: true,
      installation_eligibility: { eligible: false, not_eligible_reasons: ['Disk is removable'] },
    });
    expect(raw[4]).toMatchObject({ drive_type: 'ODD', is_installation_media: true });
    expect(raw[2].size_bytes).toBeLessThan(20e9);
    expect(raw[0].id).toBe(raw[0].by_id);
  });
});
