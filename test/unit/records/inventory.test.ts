import { describe, expect, it } from 'vitest';
import { agentStatusSchema } from '../../../src/api/index.ts';
import type { Inventory } from '../../../src/core/inventory.ts';
import { inventoryFromStatus, inventoryToStatus } from '../../../src/records/index.ts';
import { sampleInventory, viaJson } from './fixtures.ts';
import { randomInventories } from './random-inventory.ts';

describe('inventoryToStatus', () => {
  it('writes upstream camelCase names with Go omitempty and always-serialized fields', () => {
    const { inventory } = inventoryToStatus(sampleInventory());
    expect(inventory).toStrictEqual({
      hostname: 'master-0.example.com',
      bmcAddress: '10.0.0.10',
      bmcV6Address: '::/0',
      memory: { physicalBytes: 17179869184, usableBytes: 16776626176 },
      cpu: {
        count: 8,
        clockMegahertz: 2400,
        flags: ['vmx', 'sse'],
        modelName: 'Intel Xeon',
        architecture: 'x86_64',
      },
      interfaces: [
        {
          ipV6Addresses: [],
          vendor: '0x1af4',
          name: 'eth0',
          hasCarrier: true,
          product: '0x0001',
          mtu: 1500,
          ipV4Addresses: ['192.168.111.20/24'],
          biosDevName: 'em1',
          macAddress: '52:54:00:aa:bb:cc',
          flags: ['up', 'broadcast'],
          speedMbps: 1000,
        },
      ],
      disks: [
        {
          id: '/dev/disk/by-id/wwn-0x1',
          driveType: 'SSD',
          vendor: 'ATA',
          name: 'sda',
          path: '/dev/sda',
          hctl: '0:0:0:0',
          byPath: '/dev/disk/by-path/pci-0000:00:1f.2-ata-1',
          byID: '/dev/disk/by-id/wwn-0x1',
          model: 'QEMU HARDDISK',
          wwn: '0x1',
          serial: 'S1',
          sizeBytes: 128849018880,
          bootable: true,
          smart: '{"json_format_version":[1,0]}',
          installationEligibility: { eligible: true, notEligibleReasons: [] },
          ioPerf: { syncDurationMilliseconds: 5 },
        },
      ],
      boot: { currentBootMode: 'uefi', deviceType: 'ephemeral' },
      systemVendor: { serialNumber: 'SN1', productName: 'KVM', manufacturer: 'Red Hat', virtual: true },
      gpus: [{ vendor: 'NVIDIA', vendorID: '10de', deviceID: '1eb8', name: 'T4', address: '0000:00:05.0' }],
    });
  });

  it('keeps what the camelCase form drops in the extra, by name', () => {
    const { extra } = inventoryToStatus(sampleInventory());
    expect(extra.routes).toEqual([
      { interface: 'eth0', gateway: '192.168.111.1', destination: '0.0.0.0', family: 2, metric: 100 },
    ]);
    expect(extra.tpmVersion).toBe('2.0');
    expect(extra.memory).toEqual({ physicalBytesMethod: 'dmidecode' });
    expect(extra.boot).toEqual({
      commandLine: 'BOOT_IMAGE=/images/pxeboot/vmlinuz',
      secureBootState: 'Disabled',
    });
    expect(extra.interfaces).toEqual([{ type: 'physical' }]);
    expect(extra.disks).toEqual([
      { hasUuid: true, removable: false, partitionTypes: 'gpt', isInstallationMedia: false, holders: '' },
    ]);
    // Only what the named fields cannot say: the fractional MHz, explicit empty strings and nulls.
    expect(extra.corrections).toEqual(
      expect.arrayContaining([
        { path: ['cpu', 'frequency'], value: 2400.123 },
        { path: ['interfaces', 0, 'client_id'], value: '' },
        { path: ['boot', 'pxe_interface'], value: '' },
        { path: ['disks', 0, 'installation_eligibility', 'not_eligible_reasons'], value: null },
      ]),
    );
  });

  it('turns nil address lists, flags and not-eligible reasons into []', () => {
    const { inventory } = inventoryToStatus({
      interfaces: [{ name: 'eth0', ipv4_addresses: null, ipv6_addresses: null, flags: null }],
      disks: [{ name: 'sda', installation_eligibility: { not_eligible_reasons: null } }],
    });
    expect(inventory.interfaces?.[0]).toStrictEqual({
      ipV6Addresses: [],
      name: 'eth0',
      ipV4Addresses: [],
      flags: [],
    });
    expect(inventory.disks?.[0]).toStrictEqual({
      id: '',
      name: 'sda',
      installationEligibility: { notEligibleReasons: [] },
      ioPerf: {},
    });
  });

  it('always writes memory, cpu, boot and systemVendor, and drops empty lists', () => {
    const { inventory, extra } = inventoryToStatus({ interfaces: [], disks: null, gpus: [] });
    expect(inventory).toStrictEqual({ memory: {}, cpu: {}, boot: {}, systemVendor: {} });
    expect(inventoryFromStatus(inventory, extra)).toStrictEqual({ interfaces: [], disks: null, gpus: [] });
  });

  it('is accepted by the Agent status schema unchanged', () => {
    const { inventory } = inventoryToStatus(sampleInventory());
    const parsed = agentStatusSchema.parse({ role: '', debugInfo: {}, inventory });
    expect(parsed.inventory).toStrictEqual(inventory);
  });

  it('does not depend on the order of the inventory keys', () => {
    const inv = sampleInventory();
    const reversed = JSON.parse(JSON.stringify(inv), (_k, v) =>
      v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v,
    ) as Inventory;
    expect(inventoryToStatus(reversed)).toStrictEqual(inventoryToStatus(inv));
  });

  it('needs no corrections for an inventory written in the canonical form', () => {
    const { inventory, extra } = inventoryToStatus(sampleInventory());
    const canonical = inventoryFromStatus(inventory, { ...extra, corrections: [] });
    expect(inventoryToStatus(canonical).extra.corrections).toBeUndefined();
  });
});

describe('inventoryFromStatus', () => {
  it('round-trips the sample inventory exactly, also through JSON', () => {
    const inv = sampleInventory();
    const { inventory, extra } = viaJson(inventoryToStatus(inv));
    expect(inventoryFromStatus(inventory, extra)).toStrictEqual(inv);
  });

  it('does not modify its inputs', () => {
    const converted = inventoryToStatus(sampleInventory());
    const copy = structuredClone(converted);
    inventoryFromStatus(converted.inventory, converted.extra);
    expect(converted).toStrictEqual(copy);
  });

  it('restores null lists, explicit zeros and unknown keys', () => {
    const inv = {
      hostname: '',
      interfaces: [
        { name: 'eth0', ipv4_addresses: null, mtu: 0, has_carrier: false, future_field: { a: 1 } },
      ],
      cpu: { count: 0, flags: null, frequency: 0 },
      routes: null,
      truncation: { type: 'partial', reasons: null },
      future_top: [1, 'x', null],
    } as unknown as Inventory;
    const { inventory, extra } = viaJson(inventoryToStatus(inv));
    expect(inventoryFromStatus(inventory, extra)).toStrictEqual(inv);
  });

  it('without an extra rebuilds what the camelCase form says', () => {
    const { inventory } = inventoryToStatus({ hostname: 'h', cpu: { count: 4 } });
    expect(inventoryFromStatus(inventory, undefined)).toStrictEqual({ hostname: 'h', cpu: { count: 4 } });
  });
});

describe('inventory round-trip property', () => {
  it('random inventories convert back deep-equal (1000 cases, stored as JSON)', () => {
    const random = randomInventories(20250301);
    for (let i = 0; i < 1000; i++) {
      const inv = random();
      const { inventory, extra } = viaJson(inventoryToStatus(inv));
      expect(inventoryFromStatus(inventory, extra), `case ${i}: ${JSON.stringify(inv)}`).toStrictEqual(inv);
    }
  });

  it('the status form is a fixpoint: converting the converted inventory again changes nothing', () => {
    const random = randomInventories(7);
    for (let i = 0; i < 300; i++) {
      const first = inventoryToStatus(random());
      const again = inventoryToStatus(inventoryFromStatus(first.inventory, first.extra));
      expect(again).toStrictEqual(first);
    }
  });
});
