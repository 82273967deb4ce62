// Versioned hardware requirements (§5.1): the HW_VALIDATOR_REQUIREMENTS document, its decode-time
// merging and validation, and the lookup of the entry for an OpenShift version.

import { baseVersion, compareBaseVersions, isVersion } from '../version.ts';

/** One role's requirements, field names as in HW_VALIDATOR_REQUIREMENTS. */
export interface RoleRequirements {
  cpu_cores: number;
  ram_mib: number;
  /** Decimal gigabytes. */
  disk_size_gb: number;
  /** p99 fdatasync threshold of the disk-speed check. */
  installation_disk_speed_threshold_ms: number;
  /** Absent → latency is not checked for the role. */
  network_latency_threshold_ms?: number;
  /** Absent → packet loss is not checked for the role. */
  packet_loss_percentage?: number;
}

export const REQUIREMENT_ROLES = ['master', 'arbiter', 'worker', 'sno', 'edge-worker'] as const;
export type RequirementRole = (typeof REQUIREMENT_ROLES)[number];

/** An entry as written in the JSON document; roles and fields may be partial. */
export interface RequirementsEntryInput {
  version: string;
  match_type?: string;
  master?: Partial<RoleRequirements>;
  arbiter?: Partial<RoleRequirements>;
  worker?: Partial<RoleRequirements>;
  sno?: Partial<RoleRequirements>;
  'edge-worker'?: Partial<RoleRequirements>;
}

/** A fully merged requirement set: every role present. */
export type RequirementSet = Record<RequirementRole, RoleRequirements>;

/** The decoded document, ready for lookups. */
export interface HardwareRequirementsConfig {
  default?: RequirementSet;
  exact: ReadonlyMap<string, RequirementSet>;
  /** Sorted by version, ascending. */
  minVersion: readonly { version: string; set: RequirementSet }[];
}

export const DEFAULT_VERSION_KEY = 'default';

/** The shipped defaults (data/default_hw_requirements.json). */
export const DEFAULT_HW_REQUIREMENTS: readonly RequirementsEntryInput[] = [
  {
    version: 'default',
    master: {
      cpu_cores: 4,
      ram_mib: 16384,
      disk_size_gb: 100,
      installation_disk_speed_threshold_ms: 10,
      network_latency_threshold_ms: 100,
      packet_loss_percentage: 0,
    },
    arbiter: {
      cpu_cores: 2,
      ram_mib: 8192,
      disk_size_gb: 50,
      installation_disk_speed_threshold_ms: 10,
      network_latency_threshold_ms: 1000,
      packet_loss_percentage: 0,
    },
    worker: {
      cpu_cores: 2,
      ram_mib: 8192,
      disk_size_gb: 100,
      installation_disk_speed_threshold_ms: 10,
      network_latency_threshold_ms: 1000,
      packet_loss_percentage: 10,
    },
    sno: { cpu_cores: 8, ram_mib: 16384, disk_size_gb: 100, installation_disk_speed_threshold_ms: 10 },
    'edge-worker': {
      cpu_cores: 2,
      ram_mib: 8192,
      disk_size_gb: 15,
      installation_disk_speed_threshold_ms: 10,
    },
  },
  { version: '4.22', match_type: 'min_version', sno: { cpu_cores: 4 } },
];

export class HardwareRequirementsError extends Error {
  override name = 'HardwareRequirementsError';
}

const ROLE_FIELDS = [
  'cpu_cores',
  'ram_mib',
  'disk_size_gb',
  'installation_disk_speed_threshold_ms',
  'network_latency_threshold_ms',
  'packet_loss_percentage',
] as const satisfies readonly (keyof RoleRequirements)[];

function mergeRole(base: Partial<RoleRequirements> | undefined, over: Partial<RoleRequirements> | undefined) {
  const merged: Partial<RoleRequirements> = { ...base };
  for (const field of ROLE_FIELDS) {
    const value = over?.[field];
    if (value !== undefined && value !== null) merged[field] = value;
  }
  return merged;
}

function checkRole(version: string, role: string, r: Partial<RoleRequirements>): RoleRequirements {
  const where = `hardware requirements for version ${version}, role ${role}`;
  for (const field of ['cpu_cores', 'ram_mib', 'disk_size_gb'] as const) {
    const value = r[field];
    if (typeof value !== 'number' || !(value > 0)) {
      throw new HardwareRequirementsError(`${where}: ${field} must be a positive number`);
    }
  }
  const speed = r.installation_disk_speed_threshold_ms ?? 0;
  if (typeof speed !== 'number' || speed < 0) {
    throw new HardwareRequirementsError(
      `${where}: installation_disk_speed_threshold_ms must not be negative`,
    );
  }
  const out: RoleRequirements = {
    cpu_cores: r.cpu_cores!,
    ram_mib: r.ram_mib!,
    disk_size_gb: r.disk_size_gb!,
    installation_disk_speed_threshold_ms: speed,
  };
  if (r.network_latency_threshold_ms != null)
    out.network_latency_threshold_ms = r.network_latency_threshold_ms;
  if (r.packet_loss_percentage != null) out.packet_loss_percentage = r.packet_loss_percentage;
  return out;
}

function mergeSet(version: string, base: Partial<RequirementSet> | undefined, over: RequirementsEntryInput) {
  const set = {} as RequirementSet;
  for (const role of REQUIREMENT_ROLES)
    set[role] = checkRole(version, role, mergeRole(base?.[role], over[role]));
  return set;
}

/**
 * Decodes HW_VALIDATOR_REQUIREMENTS (JSON text or parsed entries). The default entry gets arbiter
 * and edge-worker from worker when absent; every other entry is merged over the default, field by
 * field. Rejects duplicate versions, an unknown match_type, a min_version entry without a default,
 * and non-positive cores/RAM/disk or a negative disk-speed threshold.
 */
export function parseHardwareRequirements(
  input: string | readonly RequirementsEntryInput[],
): HardwareRequirementsConfig {
  const entries = typeof input === 'string' ? (JSON.parse(input) as unknown) : input;
  if (!Array.isArray(entries))
    throw new HardwareRequirementsError('hardware requirements must be a JSON array');
  const seen = new Set<string>();
  for (const e of entries as RequirementsEntryInput[]) {
    if (!e || typeof e.version !== 'string' || e.version === '') {
      throw new HardwareRequirementsError('hardware requirements entry without a version');
    }
    if (seen.has(e.version))
      throw new HardwareRequirementsError(`duplicate hardware requirements version ${e.version}`);
    seen.add(e.version);
    if (e.match_type !== undefined && e.match_type !== 'exact' && e.match_type !== 'min_version') {
      throw new HardwareRequirementsError(`invalid match_type ${e.match_type} for version ${e.version}`);
    }
  }
  const defaultInput = (entries as RequirementsEntryInput[]).find((e) => e.version === DEFAULT_VERSION_KEY);
  let defaultSet: RequirementSet | undefined;
  if (defaultInput) {
    const filled: RequirementsEntryInput = {
      ...defaultInput,
      arbiter: defaultInput.arbiter ?? defaultInput.worker,
      'edge-worker': defaultInput['edge-worker'] ?? defaultInput.worker,
    };
    defaultSet = mergeSet(DEFAULT_VERSION_KEY, undefined, filled);
  }
  const exact = new Map<string, RequirementSet>();
  const minVersion: { version: string; set: RequirementSet }[] = [];
  for (const e of entries as RequirementsEntryInput[]) {
    if (e.version === DEFAULT_VERSION_KEY) continue;
    if (e.match_type === 'min_version') {
      if (!defaultSet) {
        throw new HardwareRequirementsError(`min_version entry ${e.version} requires a default entry`);
      }
      if (!isVersion(e.version)) throw new HardwareRequirementsError(`invalid min_version ${e.version}`);
      minVersion.push({ version: e.version, set: mergeSet(e.version, defaultSet, e) });
    } else {
      exact.set(e.version, mergeSet(e.version, defaultSet, e));
    }
  }
  minVersion.sort((a, b) => compareBaseVersions(a.version, b.version));
  return { ...(defaultSet ? { default: defaultSet } : {}), exact, minVersion };
}

/** The shipped defaults, decoded. */
export const DEFAULT_HARDWARE_REQUIREMENTS: HardwareRequirementsConfig =
  parseHardwareRequirements(DEFAULT_HW_REQUIREMENTS);

/**
 * The requirement set for an OpenShift version: exact key match on the full string, else the highest
 * min_version entry ≤ the base version, else default. Throws "requirements for version <v> not found".
 */
export function requirementsForVersion(config: HardwareRequirementsConfig, version: string): RequirementSet {
  const exact = config.exact.get(version);
  if (exact) return exact;
  if (isVersion(version)) {
    const base = baseVersion(version);
    for (let i = config.minVersion.length - 1; i >= 0; i--) {
      const entry = config.minVersion[i]!;
      if (compareBaseVersions(entry.version, base) <= 0) return entry.set;
    }
  }
  if (config.default) return config.default;
  throw new HardwareRequirementsError(`requirements for version ${version} not found`);
}
