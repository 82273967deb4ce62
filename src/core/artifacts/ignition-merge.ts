// Ignition config merge (core.md §8.2), the semantics of coreos/ignition's merge for the parent
// (generated) and child (override) configs:
//   objects merge recursively; child scalars replace; an absent or null child key keeps the
//   parent's; keyed lists merge entry by entry (matching keys merged, new ones appended);
//   storage files/directories/links share one key space by path; files[].append concatenates;
//   lists of plain values are unions; ignition.version becomes the child's.
// Kept local to install-time ignition until a shared implementation exists in src/core/ignition.

import { type IgnitionConfig, IgnitionError } from './ignition.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export const ACCEPTED_OVERRIDE_VERSIONS = ['3.1.0', '3.2.0'] as const;

const byField =
  (field: string) =>
  (item: JsonObject): string | undefined => {
    const v = item[field];
    return v === undefined || v === null ? undefined : String(v);
  };

/** List paths (indices dropped, "[]" marks "inside an element") and how their entries are keyed. */
const KEYED_LISTS: Record<string, (item: JsonObject) => string | undefined> = {
  'ignition.config.merge': byField('source'),
  'ignition.config.merge[].httpHeaders': byField('name'),
  'ignition.config.replace.httpHeaders': byField('name'),
  'ignition.security.tls.certificateAuthorities': byField('source'),
  'ignition.security.tls.certificateAuthorities[].httpHeaders': byField('name'),
  'storage.files': byField('path'),
  'storage.files[].contents.httpHeaders': byField('name'),
  'storage.directories': byField('path'),
  'storage.links': byField('path'),
  'storage.disks': byField('device'),
  'storage.disks[].partitions': (p) => (p.number ? `#${String(p.number)}` : byField('label')(p)),
  'storage.filesystems': byField('device'),
  'storage.luks': byField('name'),
  'storage.luks[].clevis.tang': byField('url'),
  'storage.raid': byField('name'),
  'systemd.units': byField('name'),
  'systemd.units[].dropins': byField('name'),
  'passwd.users': byField('name'),
  'passwd.groups': byField('name'),
};

const CONCATENATED_LISTS = new Set(['storage.files[].append']);
const NODE_LISTS = ['files', 'directories', 'links'] as const;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function mergeList(parent: Json[], child: Json[], path: string): Json[] {
  if (CONCATENATED_LISTS.has(path)) return [...parent, ...child];
  const keyOf = KEYED_LISTS[path];
  if (!keyOf) {
    // Lists of plain values act as sets.
    const out = [...parent];
    for (const v of child) if (!out.some((p) => JSON.stringify(p) === JSON.stringify(v))) out.push(v);
    return out;
  }
  const out = [...parent];
  for (const entry of child) {
    const key = isObject(entry) ? keyOf(entry) : undefined;
    const index = key === undefined ? -1 : out.findIndex((p) => isObject(p) && keyOf(p) === key);
    if (index >= 0) out[index] = mergeValue(out[index] as Json, entry, `${path}[]`);
    else out.push(entry);
  }
  return out;
}

/** Files, directories and links share one key space: a child entry removes same-path parent nodes of other kinds. */
function dropShadowedNodes(parentStorage: JsonObject, childStorage: JsonObject): JsonObject {
  const out = { ...parentStorage };
  for (const kind of NODE_LISTS) {
    const list = out[kind];
    if (!Array.isArray(list)) continue;
    const shadowing = new Set<string>();
    for (const other of NODE_LISTS) {
      if (other === kind) continue;
      for (const e of Array.isArray(childStorage[other]) ? childStorage[other] : []) {
        if (isObject(e) && typeof e.path === 'string') shadowing.add(e.path);
      }
    }
    out[kind] = list.filter((e) => !(isObject(e) && typeof e.path === 'string' && shadowing.has(e.path)));
  }
  return out;
}

function mergeValue(parent: Json, child: Json, path: string): Json {
  if (child === null) return parent;
  if (Array.isArray(child)) return Array.isArray(parent) ? mergeList(parent, child, path) : child;
  if (!isObject(child)) return child;
  let base: JsonObject = isObject(parent) ? parent : {};
  if (path === 'storage') base = dropShadowedNodes(base, child);
  const out: JsonObject = { ...base };
  for (const [key, value] of Object.entries(child)) {
    out[key] = key in out ? mergeValue(out[key] as Json, value, join(path, key)) : value;
  }
  return out;
}

/** The version of an override, checked against the accepted ones (3.1.0 and 3.2.0). */
export function checkOverrideVersion(override: IgnitionConfig, what: string): void {
  const version = override.ignition?.version;
  if (!(ACCEPTED_OVERRIDE_VERSIONS as readonly string[]).includes(version)) {
    throw new IgnitionError(
      `${what} uses ignition version "${String(version)}"; only ${ACCEPTED_OVERRIDE_VERSIONS.join(' and ')} are accepted`,
    );
  }
}

/** Merges `child` on top of `parent` (neither is modified). The result takes the child's version. */
export function mergeIgnition(parent: IgnitionConfig, child: IgnitionConfig): IgnitionConfig {
  return mergeValue(
    structuredClone(parent) as unknown as Json,
    structuredClone(child) as unknown as Json,
    '',
  ) as unknown as IgnitionConfig;
}
