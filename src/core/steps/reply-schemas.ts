// Shapes of the structured step outputs (agent-api.md §5.2). Arrays may be `null` (Go nil
// slices); unknown fields are kept (newer agents add some).

import { z } from 'zod';
import { NTP_SOURCE_STATES } from '../model.ts';

const list = <T extends z.ZodType>(item: T) => z.array(item).nullish();
const str = z.string().nullish();
const num = z.number().nullish();
const bool = z.boolean().nullish();

const interfaceSchema = z.looseObject({
  ipv6_addresses: list(z.string()),
  ipv4_addresses: list(z.string()),
  name: str,
  mac_address: str,
  mtu: num,
  speed_mbps: num,
  has_carrier: bool,
  flags: list(z.string()),
  type: str,
  vendor: str,
  product: str,
  biosdevname: str,
  client_id: str,
});

const diskSchema = z.looseObject({
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
  installation_eligibility: z
    .looseObject({ eligible: bool, not_eligible_reasons: list(z.string()) })
    .nullish(),
  smart: str,
  io_perf: z.looseObject({ sync_duration: num }).nullish(),
  holders: str,
  iscsi: z.looseObject({ host_ip_address: str }).nullish(),
});

export const inventorySchema = z.looseObject({
  hostname: str,
  bmc_address: str,
  bmc_v6address: str,
  interfaces: list(interfaceSchema),
  disks: list(diskSchema),
  boot: z
    .looseObject({
      current_boot_mode: str,
      pxe_interface: str,
      command_line: str,
      secure_boot_state: str,
      device_type: str,
    })
    .nullish(),
  system_vendor: z
    .looseObject({ serial_number: str, product_name: str, manufacturer: str, virtual: bool })
    .nullish(),
  memory: z.looseObject({ physical_bytes: num, usable_bytes: num, physical_bytes_method: str }).nullish(),
  cpu: z
    .looseObject({ count: num, frequency: num, flags: list(z.string()), model_name: str, architecture: str })
    .nullish(),
  gpus: list(z.looseObject({ vendor: str, vendor_id: str, device_id: str, name: str, address: str })),
  routes: list(z.looseObject({ interface: str, gateway: str, destination: str, family: num, metric: num })),
  tpm_version: str,
  truncation: z.looseObject({ type: z.enum(['partial', 'full']), reasons: list(z.string()) }).nullish(),
});

export const connectivityReportSchema = z.looseObject({
  remote_hosts: list(
    z.looseObject({
      host_id: z.string(),
      l2_connectivity: list(
        z.looseObject({
          outgoing_nic: str,
          outgoing_ip_address: str,
          remote_ip_address: str,
          remote_mac: str,
          successful: bool,
        }),
      ),
      l3_connectivity: list(
        z.looseObject({
          outgoing_nic: str,
          remote_ip_address: str,
          successful: bool,
          average_rtt_ms: num,
          packet_loss_percentage: num,
        }),
      ),
      mtu_report: list(z.looseObject({ outgoing_nic: str, remote_ip_address: str, mtu_successful: bool })),
    }),
  ),
});

export const freeAddressesSchema = z.array(
  z.looseObject({ network: z.string(), free_addresses: list(z.string()) }),
);

export const ntpResponseSchema = z.looseObject({
  ntp_sources: list(z.looseObject({ source_name: str, source_state: z.enum(NTP_SOURCE_STATES).nullish() })),
});

export const domainResolutionSchema = z.looseObject({
  resolutions: list(
    z.looseObject({
      domain_name: z.string(),
      ipv4_addresses: list(z.string()),
      ipv6_addresses: list(z.string()),
      cnames: list(z.string()),
    }),
  ),
});

export const imageAvailabilitySchema = z.looseObject({
  images: list(
    z.looseObject({
      name: z.string(),
      result: z.enum(['success', 'failure']).nullish(),
      size_bytes: num,
      time: num,
      download_rate: num,
    }),
  ),
});

export const diskSpeedSchema = z.looseObject({ io_sync_duration: num, path: z.string() });

export const apiVipConnectivitySchema = z.looseObject({
  is_success: bool,
  url: str,
  download_error: str,
  ignition: str,
});

export const tangResponseSchema = z.looseObject({
  is_success: bool,
  tang_server_response: z.unknown().nullish(),
});

export const dhcpLeaseSchema = z.looseObject({
  api_vip_address: str,
  ingress_vip_address: str,
  api_vip_lease: str,
  ingress_vip_lease: str,
});

export const verifyVipsSchema = z.array(
  z.looseObject({
    vip: z.string(),
    vip_type: z.enum(['api', 'ingress']),
    verification: z.enum(['unverified', 'failed', 'succeeded']).nullish(),
  }),
);

export const upgradeAgentSchema = z.looseObject({ agent_image: str, result: z.enum(['success', 'failure']) });
