// The agent's inventory ⇄ upstream's camelCase `status.inventory` plus `status.backend.inventoryExtra`.
//
// `status.inventory` is written exactly as upstream writes it (kubeapi.md §1.1, §3.4.6): Go
// `omitempty` drops zeros, false and empty strings; struct-valued fields (memory, cpu, boot,
// systemVendor, a disk's installationEligibility and ioPerf) are always present; the lists without
// omitempty (ipV4Addresses, ipV6Addresses, interface flags, notEligibleReasons) become [] when nil;
// a disk's id is always present; cpu frequency is truncated to whole megahertz.
//
// What that form drops goes into `InventoryExtra`: the named fields upstream has no place for
// (routes, TPM version, truncation, boot command line and secure-boot state, interface type, disk
// has_uuid/removable/partitionTypes/is_installation_media/holders/iscsi, memory method), and a short
// list of `corrections` for values the camelCase form cannot express exactly (an explicit zero or
// null, a fractional frequency, a key this code does not know). The corrections are computed as
// the difference between the agent's inventory and what the two parts rebuild, so converting back
// is exact by construction and nothing is stored twice.

import type {
  HostDisk,
  HostInterface,
  HostInventory,
  InventoryCorrection,
  InventoryDiskExtra,
  InventoryExtra,
} from '../api/index.ts';
import type { Disk, Gpu, Interface, Inventory } from '../core/inventory.ts';

type Json = Record<string, unknown>;

/** Go omitempty: zero numbers, false, "" and empty lists are left out. */
function isEmptyValue(v: unknown): boolean {
  return (
    v === undefined ||
    v === null ||
    v === '' ||
    v === 0 ||
    v === false ||
    (Array.isArray(v) && v.length === 0)
  );
}

/** Copies the non-empty values of `entries` into a new object, in order. */
function omitEmpty(entries: Record<string, unknown>): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(entries)) if (!isEmptyValue(v)) out[k] = v;
  return out;
}

/** Copies the defined values of `entries` into a new object (for rebuilding the inventory). */
function defined(entries: Record<string, unknown>): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(entries)) if (v !== undefined) out[k] = v;
  return out;
}

function clone<T>(v: T): T {
  return v === undefined ? v : structuredClone(v);
}

function strings(list: readonly string[] | null | undefined): string[] {
  return [...(list ?? [])];
}

// ---------------------------------------------------------------------------------------------
// inventory → status.inventory
// ---------------------------------------------------------------------------------------------

function interfaceToStatus(i: Interface): HostInterface {
  return {
    ipV6Addresses: strings(i.ipv6_addresses),
    ...omitEmpty({
      vendor: i.vendor,
      name: i.name,
      hasCarrier: i.has_carrier,
      product: i.product,
      mtu: i.mtu,
    }),
    ipV4Addresses: strings(i.ipv4_addresses),
    ...omitEmpty({ biosDevName: i.biosdevname, clientID: i.client_id, macAddress: i.mac_address }),
    flags: strings(i.flags),
    ...omitEmpty({ speedMbps: i.speed_mbps }),
  };
}

function diskToStatus(d: Disk): HostDisk {
  return {
    id: d.id ?? '',
    ...omitEmpty({
      driveType: d.drive_type,
      vendor: d.vendor,
      name: d.name,
      path: d.path,
      hctl: d.hctl,
      byPath: d.by_path,
      byID: d.by_id,
      model: d.model,
      wwn: d.wwn,
      serial: d.serial,
      sizeBytes: d.size_bytes,
      bootable: d.bootable,
      smart: d.smart,
    }),
    installationEligibility: {
      ...omitEmpty({ eligible: d.installation_eligibility?.eligible }),
      notEligibleReasons: strings(d.installation_eligibility?.not_eligible_reasons),
    },
    ioPerf: omitEmpty({ syncDurationMilliseconds: d.io_perf?.sync_duration }),
  };
}

function gpuToStatus(g: Gpu): Json {
  return omitEmpty({
    vendor: g.vendor,
    vendorID: g.vendor_id,
    deviceID: g.device_id,
    name: g.name,
    address: g.address,
  });
}

function camelInventory(inv: Inventory): HostInventory {
  const frequency = inv.cpu?.frequency;
  return {
    ...omitEmpty({ hostname: inv.hostname, bmcAddress: inv.bmc_address, bmcV6Address: inv.bmc_v6address }),
    memory: omitEmpty({ physicalBytes: inv.memory?.physical_bytes, usableBytes: inv.memory?.usable_bytes }),
    cpu: omitEmpty({
      count: inv.cpu?.count,
      clockMegahertz: typeof frequency === 'number' ? Math.trunc(frequency) : undefined,
      flags: inv.cpu?.flags,
      modelName: inv.cpu?.model_name,
      architecture: inv.cpu?.architecture,
    }),
    ...omitEmpty({
      interfaces: (inv.interfaces ?? []).map((i) => interfaceToStatus(i ?? {})),
      disks: (inv.disks ?? []).map((d) => diskToStatus(d ?? {})),
    }),
    boot: omitEmpty({
      currentBootMode: inv.boot?.current_boot_mode,
      pxeInterface: inv.boot?.pxe_interface,
      deviceType: inv.boot?.device_type,
    }),
    systemVendor: omitEmpty({
      serialNumber: inv.system_vendor?.serial_number,
      productName: inv.system_vendor?.product_name,
      manufacturer: inv.system_vendor?.manufacturer,
      virtual: inv.system_vendor?.virtual,
    }),
    ...omitEmpty({ gpus: (inv.gpus ?? []).map((g) => gpuToStatus(g ?? {})) }),
  };
}

function diskExtra(d: Disk): InventoryDiskExtra {
  return defined({
    hasUuid: d.has_uuid,
    removable: d.removable,
    partitionTypes: d.partitionTypes,
    isInstallationMedia: d.is_installation_media,
    holders: d.holders,
    iscsi: d.iscsi === undefined ? undefined : defined({ hostIpAddress: d.iscsi?.host_ip_address }),
  });
}

/** Non-empty per-item extras, or undefined when no item has any. */
function alignedExtras<T extends object>(items: T[]): T[] | undefined {
  return items.some((e) => Object.keys(e).length > 0) ? items : undefined;
}

function namedExtra(inv: Inventory): InventoryExtra {
  const extra: InventoryExtra = defined({
    routes: clone(inv.routes),
    tpmVersion: inv.tpm_version,
    truncation: clone(inv.truncation),
  });
  if (inv.memory?.physical_bytes_method !== undefined) {
    extra.memory = { physicalBytesMethod: inv.memory.physical_bytes_method };
  }
  const boot = defined({ commandLine: inv.boot?.command_line, secureBootState: inv.boot?.secure_boot_state });
  if (Object.keys(boot).length > 0) extra.boot = boot;
  const interfaces = alignedExtras((inv.interfaces ?? []).map((i) => defined({ type: i?.type })));
  if (interfaces) extra.interfaces = interfaces;
  const disks = alignedExtras((inv.disks ?? []).map((d) => diskExtra(d ?? {})));
  if (disks) extra.disks = disks;
  return extra;
}

/**
 * The agent's inventory as upstream's `status.inventory`, and everything that form drops.
 * `inventoryFromStatus(inventory, extra)` returns a deep-equal copy of `inv`.
 */
export function inventoryToStatus(inv: Inventory): { inventory: HostInventory; extra: InventoryExtra } {
  const inventory = camelInventory(inv);
  const extra = namedExtra(inv);
  const corrections: InventoryCorrection[] = [];
  diff(inv, rebuild(inventory, extra), [], corrections);
  if (corrections.length > 0) extra.corrections = corrections;
  return { inventory, extra };
}

// ---------------------------------------------------------------------------------------------
// status.inventory (+ extra) → inventory
// ---------------------------------------------------------------------------------------------

/** An object with the given defined values, or undefined when it would be empty. */
function nonEmptyObject(entries: Record<string, unknown>): Json | undefined {
  const out = defined(entries);
  return Object.keys(out).length > 0 ? out : undefined;
}

function rebuildInterface(s: HostInterface, extra: { type?: string } | undefined): Interface {
  return defined({
    ipv6_addresses: [...(s.ipV6Addresses ?? [])],
    vendor: s.vendor,
    name: s.name,
    has_carrier: s.hasCarrier,
    product: s.product,
    mtu: s.mtu,
    ipv4_addresses: [...(s.ipV4Addresses ?? [])],
    biosdevname: s.biosDevName,
    client_id: s.clientID,
    mac_address: s.macAddress,
    flags: [...(s.flags ?? [])],
    speed_mbps: s.speedMbps,
    type: extra?.type,
  });
}

function rebuildDisk(s: HostDisk, extra: InventoryDiskExtra | undefined): Disk {
  const eligibility = s.installationEligibility;
  return defined({
    id: s.id === '' ? undefined : s.id,
    drive_type: s.driveType,
    has_uuid: extra?.hasUuid,
    vendor: s.vendor,
    name: s.name,
    path: s.path,
    hctl: s.hctl,
    by_path: s.byPath,
    by_id: s.byID,
    model: s.model,
    wwn: s.wwn,
    serial: s.serial,
    size_bytes: s.sizeBytes,
    bootable: s.bootable,
    removable: extra?.removable,
    partitionTypes: extra?.partitionTypes,
    is_installation_media: extra?.isInstallationMedia,
    installation_eligibility: defined({
      eligible: eligibility?.eligible,
      not_eligible_reasons: [...(eligibility?.notEligibleReasons ?? [])],
    }),
    smart: s.smart,
    io_perf: nonEmptyObject({ sync_duration: s.ioPerf?.syncDurationMilliseconds }),
    holders: extra?.holders,
    iscsi: extra?.iscsi === undefined ? undefined : defined({ host_ip_address: extra.iscsi.hostIpAddress }),
  });
}

/** The inventory the camelCase form and the named extras describe, before corrections. */
function rebuild(s: HostInventory, extra: InventoryExtra): Inventory {
  return defined({
    hostname: s.hostname,
    bmc_address: s.bmcAddress,
    bmc_v6address: s.bmcV6Address,
    interfaces: s.interfaces?.map((i, n) => rebuildInterface(i, extra.interfaces?.[n])),
    disks: s.disks?.map((d, n) => rebuildDisk(d, extra.disks?.[n])),
    boot: nonEmptyObject({
      current_boot_mode: s.boot?.currentBootMode,
      pxe_interface: s.boot?.pxeInterface,
      command_line: extra.boot?.commandLine,
      secure_boot_state: extra.boot?.secureBootState,
      device_type: s.boot?.deviceType,
    }),
    system_vendor: nonEmptyObject({
      serial_number: s.systemVendor?.serialNumber,
      product_name: s.systemVendor?.productName,
      manufacturer: s.systemVendor?.manufacturer,
      virtual: s.systemVendor?.virtual,
    }),
    memory: nonEmptyObject({
      physical_bytes: s.memory?.physicalBytes,
      usable_bytes: s.memory?.usableBytes,
      physical_bytes_method: extra.memory?.physicalBytesMethod,
    }),
    cpu: nonEmptyObject({
      count: s.cpu?.count,
      frequency: s.cpu?.clockMegahertz,
      flags: s.cpu?.flags === undefined ? undefined : [...s.cpu.flags],
      model_name: s.cpu?.modelName,
      architecture: s.cpu?.architecture,
    }),
    gpus: s.gpus?.map((g) =>
      defined({
        vendor: g.vendor,
        vendor_id: g.vendorID,
        device_id: g.deviceID,
        name: g.name,
        address: g.address,
      }),
    ),
    routes: clone(extra.routes),
    tpm_version: extra.tpmVersion,
    truncation: clone(extra.truncation),
  }) as Inventory;
}

/** The agent's inventory from `status.inventory` and `status.backend.inventoryExtra`. */
export function inventoryFromStatus(inventory: HostInventory, extra: InventoryExtra | undefined): Inventory {
  const base = rebuild(inventory, extra ?? {});
  for (const c of extra?.corrections ?? []) applyCorrection(base, c);
  return base;
}

// ---------------------------------------------------------------------------------------------
// Corrections
// ---------------------------------------------------------------------------------------------

function isPlainObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Records in `out` how to turn `rebuilt` into `original` (undefined values count as absent). Keys
 * are visited in sorted order, so the same inventory gives the same corrections whatever order its
 * keys were inserted in (a status read back must project to the same status).
 */
function diff(original: unknown, rebuilt: unknown, path: (string | number)[], out: InventoryCorrection[]) {
  if (isPlainObject(original) && isPlainObject(rebuilt)) {
    const keys = [...new Set([...Object.keys(original), ...Object.keys(rebuilt)])].sort();
    for (const k of keys) {
      const v = original[k];
      const r = rebuilt[k];
      if (v === undefined && r === undefined) continue;
      if (v === undefined) out.push({ path: [...path, k], absent: true });
      else if (r === undefined) out.push({ path: [...path, k], value: clone(v) });
      else diff(v, r, [...path, k], out);
    }
    return;
  }
  if (Array.isArray(original) && Array.isArray(rebuilt) && original.length === rebuilt.length) {
    original.forEach((v, i) => {
      diff(v, rebuilt[i], [...path, i], out);
    });
    return;
  }
  if (original !== rebuilt) out.push({ path, value: clone(original) });
}

function applyCorrection(target: unknown, c: InventoryCorrection): void {
  if (c.path.length === 0) return;
  let node = target as Record<string | number, unknown>;
  for (const key of c.path.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null) return;
    node = next as Record<string | number, unknown>;
  }
  const last = c.path[c.path.length - 1] as string | number;
  if (c.absent) delete node[last];
  else node[last] = clone(c.value);
}
