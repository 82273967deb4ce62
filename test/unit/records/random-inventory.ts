// Deterministic random agent inventories for property tests.

import type { Inventory } from '../../../src/core/inventory.ts';

/** mulberry32: a small deterministic PRNG. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Random agent inventories: every field optional, zeros, nulls, fractions and unknown keys. */
export function randomInventories(seed: number): () => Inventory {
  const next = prng(seed);
  const pick = <T>(options: readonly T[]): T => options[Math.floor(next() * options.length)] as T;
  const maybe = <T>(make: () => T): T | undefined => (next() < 0.6 ? make() : undefined);
  const str = () => pick(['', 'a', 'eth0', 'Red Hat', 'x y', '0:0:0:0', '/dev/sda', 'ünï']);
  const num = () => pick([0, 1, 1500, 2400.5, 128849018880, -1, 3.25]);
  const bool = () => pick([true, false]);
  const list = <T>(make: () => T): T[] | null | undefined => {
    const shape = next();
    if (shape < 0.15) return null;
    if (shape < 0.3) return undefined;
    return Array.from({ length: Math.floor(next() * 3) }, make);
  };
  const obj = (fields: Record<string, () => unknown>) => {
    const out: Record<string, unknown> = {};
    for (const [k, make] of Object.entries(fields)) {
      const v = maybe(make);
      if (v !== undefined) out[k] = v;
    }
    if (next() < 0.1) out.unknown_key = pick([0, '', null, { nested: [] }]);
    return out;
  };
  const strs = () => list(str);
  return (): Inventory =>
    obj({
      hostname: str,
      bmc_address: str,
      bmc_v6address: str,
      interfaces: () =>
        list(() =>
          obj({
            ipv6_addresses: strs,
            vendor: str,
            name: str,
            has_carrier: bool,
            product: str,
            mtu: num,
            ipv4_addresses: strs,
            biosdevname: str,
            client_id: str,
            mac_address: str,
            flags: strs,
            speed_mbps: num,
            type: str,
          }),
        ),
      disks: () =>
        list(() =>
          obj({
            id: str,
            drive_type: str,
            has_uuid: bool,
            vendor: str,
            name: str,
            path: str,
            hctl: str,
            by_path: str,
            by_id: str,
            model: str,
            wwn: str,
            serial: str,
            size_bytes: num,
            bootable: bool,
            removable: bool,
            partitionTypes: str,
            is_installation_media: bool,
            installation_eligibility: () => obj({ eligible: bool, not_eligible_reasons: strs }),
            smart: str,
            io_perf: () => obj({ sync_duration: num }),
            holders: str,
            iscsi: () => obj({ host_ip_address: str }),
          }),
        ),
      boot: () =>
        obj({
          current_boot_mode: str,
          pxe_interface: str,
          command_line: str,
          secure_boot_state: str,
          device_type: str,
        }),
      system_vendor: () => obj({ serial_number: str, product_name: str, manufacturer: str, virtual: bool }),
      memory: () => obj({ physical_bytes: num, usable_bytes: num, physical_bytes_method: str }),
      cpu: () => obj({ count: num, frequency: num, flags: strs, model_name: str, architecture: str }),
      gpus: () => list(() => obj({ vendor: str, vendor_id: str, device_id: str, name: str, address: str })),
      routes: () =>
        list(() =>
          obj({ interface: str, gateway: str, destination: str, family: () => pick([2, 10]), metric: num }),
        ),
      tpm_version: str,
      truncation: () => obj({ type: () => pick(['partial', 'full']), reasons: strs }),
    }) as Inventory;
}
