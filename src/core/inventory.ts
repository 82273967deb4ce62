// The agent's inventory report (step `inventory` output), field names exactly as on the wire.
// Every field is optional: agents of different versions fill different subsets.

export interface Inventory {
  hostname?: string;
  bmc_address?: string;
  bmc_v6address?: string;
  interfaces?: Interface[] | null;
  disks?: Disk[] | null;
  boot?: Boot;
  system_vendor?: SystemVendor;
  memory?: Memory;
  cpu?: Cpu;
  gpus?: Gpu[] | null;
  routes?: Route[] | null;
  tpm_version?: 'none' | '1.2' | '2.0' | string;
  truncation?: { type: 'partial' | 'full'; reasons?: string[] | null };
}

export interface Cpu {
  count?: number;
  frequency?: number;
  flags?: string[] | null;
  model_name?: string;
  architecture?: string;
}

export interface Memory {
  physical_bytes?: number;
  usable_bytes?: number;
  physical_bytes_method?: 'dmidecode' | 'ghw' | 'meminfo';
}

export type DriveType =
  | 'Unknown'
  | 'HDD'
  | 'FDD'
  | 'ODD'
  | 'SSD'
  | 'virtual'
  | 'Multipath'
  | 'iSCSI'
  | 'FC'
  | 'LVM'
  | 'RAID'
  | 'ECKD'
  | 'ECKD (ESE)'
  | 'FBA';

export interface Disk {
  id?: string;
  drive_type?: DriveType | string;
  has_uuid?: boolean;
  vendor?: string;
  name?: string;
  path?: string;
  hctl?: string;
  by_path?: string;
  by_id?: string;
  model?: string;
  wwn?: string;
  serial?: string;
  size_bytes?: number;
  bootable?: boolean;
  removable?: boolean;
  /** camelCase on the wire, unlike its siblings. */
  partitionTypes?: string;
  is_installation_media?: boolean;
  installation_eligibility?: { eligible?: boolean; not_eligible_reasons?: string[] | null };
  smart?: string;
  io_perf?: { sync_duration?: number };
  holders?: string;
  iscsi?: { host_ip_address?: string };
}

export interface Interface {
  ipv6_addresses?: string[] | null;
  vendor?: string;
  name?: string;
  has_carrier?: boolean;
  product?: string;
  mtu?: number;
  ipv4_addresses?: string[] | null;
  biosdevname?: string;
  client_id?: string;
  mac_address?: string;
  flags?: string[] | null;
  speed_mbps?: number;
  type?: string;
}

export interface Boot {
  current_boot_mode?: 'uefi' | 'bios' | string;
  pxe_interface?: string;
  command_line?: string;
  secure_boot_state?: 'Unknown' | 'NotSupported' | 'Enabled' | 'Disabled';
  device_type?: 'persistent' | 'ephemeral';
}

export interface SystemVendor {
  serial_number?: string;
  product_name?: string;
  manufacturer?: string;
  virtual?: boolean;
}

export interface Gpu {
  vendor?: string;
  vendor_id?: string;
  device_id?: string;
  name?: string;
  address?: string;
}

export interface Route {
  interface?: string;
  gateway?: string;
  destination?: string;
  /** AF_INET = 2, AF_INET6 = 10 as real agents send; 4/6 also accepted. */
  family?: number;
  metric?: number;
}

export function isIPv6Family(family: number | undefined): boolean {
  return family === 10 || family === 6;
}
