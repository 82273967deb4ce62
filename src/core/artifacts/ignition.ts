// Minimal Ignition (spec 3.x) model and helpers for install-time configs. Only the parts the
// service writes are typed; everything else passes through untouched.

export const POINTER_IGNITION_VERSION = '3.2.0';
export const MACHINE_CONFIG_SERVER_PORT = 22623;
/** Plain-HTTP machine-config-server port, used for day-2 pointers when no CA is known. */
export const MACHINE_CONFIG_SERVER_HTTP_PORT = 22624;

export interface IgnitionResource {
  source?: string;
  compression?: string;
  httpHeaders?: { name: string; value?: string }[];
  [key: string]: unknown;
}

export interface IgnitionFile {
  overwrite?: boolean;
  path: string;
  user?: { name?: string; id?: number };
  contents?: IgnitionResource;
  append?: IgnitionResource[];
  mode?: number;
  [key: string]: unknown;
}

export interface IgnitionUnit {
  name: string;
  enabled?: boolean;
  contents?: string;
  [key: string]: unknown;
}

export interface IgnitionConfig {
  ignition: {
    version: string;
    config?: { merge?: IgnitionResource[]; replace?: IgnitionResource; [key: string]: unknown };
    security?: { tls?: { certificateAuthorities?: IgnitionResource[] } };
    [key: string]: unknown;
  };
  passwd?: {
    users?: { name: string; sshAuthorizedKeys?: string[]; [key: string]: unknown }[];
    [key: string]: unknown;
  };
  storage?: { files?: IgnitionFile[]; [key: string]: unknown };
  systemd?: { units?: IgnitionUnit[]; [key: string]: unknown };
  [key: string]: unknown;
}

/** An ignition config that cannot be read or combined; the message is user-facing. */
export class IgnitionError extends Error {
  override name = 'IgnitionError';
}

/** RFC 2397 data URL carrying `content` base64-encoded, as openshift-install writes them. */
export function dataUrl(content: string | Buffer): string {
  return `data:text/plain;charset=utf-8;base64,${Buffer.from(content).toString('base64')}`;
}

/** The bytes of a data URL (base64 or percent-encoded), or undefined for anything else. */
export function decodeDataUrl(url: string): Buffer | undefined {
  const m = /^data:([^,]*),(.*)$/s.exec(url);
  if (!m) return undefined;
  const meta = m[1] ?? '';
  const payload = m[2] ?? '';
  if (meta.endsWith(';base64')) return Buffer.from(payload, 'base64');
  try {
    return Buffer.from(decodeURIComponent(payload), 'utf8');
  } catch {
    return undefined;
  }
}

export function parseIgnition(text: string, what: string): IgnitionConfig {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new IgnitionError(`${what} is not valid JSON: ${(err as Error).message}`);
  }
  const version = (parsed as IgnitionConfig | null)?.ignition?.version;
  if (typeof version !== 'string') throw new IgnitionError(`${what} has no ignition.version`);
  return parsed as IgnitionConfig;
}

/** Compact JSON, as upstream writes ignition files. */
export function serializeIgnition(config: IgnitionConfig): string {
  return JSON.stringify(config);
}

/** Adds a file, replacing any existing entry with the same path. */
export function setFile(config: IgnitionConfig, file: IgnitionFile): void {
  config.storage ??= {};
  config.storage.files ??= [];
  const files = config.storage.files;
  const index = files.findIndex((f) => f.path === file.path);
  if (index >= 0) files[index] = file;
  else files.push(file);
}

/** A root-owned file with inline contents (mode in decimal, as ignition JSON carries it). */
export function inlineFile(path: string, contents: string, mode = 420, overwrite = true): IgnitionFile {
  return { overwrite, path, user: { name: 'root' }, contents: { source: dataUrl(contents) }, mode };
}

/** Adds a unit, replacing any existing unit with the same name. */
export function setUnit(config: IgnitionConfig, unit: IgnitionUnit): void {
  config.systemd ??= {};
  config.systemd.units ??= [];
  const units = config.systemd.units;
  const index = units.findIndex((u) => u.name === unit.name);
  if (index >= 0) units[index] = unit;
  else units.push(unit);
}

/** https://api-int.<cluster>.<base>:22623/config/<role>: where a role's rendered config is served. */
export function machineConfigServerUrl(clusterName: string, baseDomain: string, role: string): string {
  return `https://api-int.${clusterName}.${baseDomain}:${MACHINE_CONFIG_SERVER_PORT}/config/${role}`;
}

/** openshift-install's pointer config: merge the role's config from the MCS, trusting the root CA. */
export function pointerIgnition(source: string, rootCaPem: string): IgnitionConfig {
  return {
    ignition: {
      config: { merge: [{ source }] },
      security: { tls: { certificateAuthorities: [{ source: dataUrl(rootCaPem) }] } },
      version: POINTER_IGNITION_VERSION,
    },
  };
}

/** An ignition config with nothing but its version (SNO master.ign / worker.ign). */
export function emptyIgnition(version = POINTER_IGNITION_VERSION): IgnitionConfig {
  return { ignition: { version } };
}
