// coreos/ignition's config merge (MergeStructTranscribe) over the schema in schema.ts:
// * value fields: the child's value wins, even when absent (zero value);
// * pointer fields (and pointer structs): the child's wins only when set;
// * structs merge recursively;
// * keyed lists: entries with the same key are merged (child wins per field), new child entries are
//   appended; lists sharing a handle (files/directories/links by path) form one key space, so a
//   child entry removes a parent entry of the same path from a *different* list;
// * files[].append concatenates; an HTTP header without a value removes the parent's header.

import { configSpec, type FieldSpec, type ListSpec, type StructSpec } from './schema.ts';
import type { IgnitionConfig } from './types.ts';

type Obj = Record<string, unknown>;

/** Merges `child` over `parent`. Both must already be parsed (parse.ts); the result takes the child's version. */
export function mergeIgnitionConfigs(parent: IgnitionConfig, child: IgnitionConfig): IgnitionConfig {
  return (mergeStruct(parent as unknown as Obj, child as unknown as Obj, configSpec) ?? {
    ignition: { version: '' },
  }) as unknown as IgnitionConfig;
}

interface ChildEntry {
  list: string;
  value: unknown;
}

function mergeStruct(parent: Obj | undefined, child: Obj | undefined, spec: StructSpec): Obj | undefined {
  const p = parent ?? {};
  const c = child ?? {};
  const childKeys = indexChildLists(c, spec);
  const out: Obj = {};
  for (const [name, field] of Object.entries(spec.fields)) {
    const merged = mergeField(name, p[name], c[name], field, childKeys);
    if (!isEmpty(merged)) out[name] = merged;
  }
  return out;
}

function mergeField(
  name: string,
  parent: unknown,
  child: unknown,
  field: FieldSpec,
  childKeys: Map<string, ChildEntry>,
): unknown {
  switch (field.kind) {
    case 'primitive':
      return field.value ? child : (child ?? parent);
    case 'struct':
      if (field.pointer) return child ?? parent;
      return mergeStruct(parent as Obj | undefined, child as Obj | undefined, field);
    case 'list':
      if (field.appendOnly) return [...((parent as unknown[]) ?? []), ...((child as unknown[]) ?? [])];
      return mergeKeyedList(name, (parent as unknown[]) ?? [], (child as unknown[]) ?? [], field, childKeys);
  }
}

function mergeKeyedList(
  name: string,
  parent: unknown[],
  child: unknown[],
  spec: ListSpec,
  childKeys: Map<string, ChildEntry>,
): unknown[] {
  const handle = spec.handle ?? name;
  const result: unknown[] = [];
  const parentKeys = new Set(parent.map((item) => itemKey(item, spec)));
  for (const item of parent) {
    const match = childKeys.get(`${handle}\u0000${itemKey(item, spec)}`);
    if (!match) {
      result.push(item);
      continue;
    }
    // Same key in a sibling list (file vs. directory): the child's entry replaces this one there.
    if (match.list !== name) continue;
    if (spec.item.kind === 'struct') {
      if (name === 'httpHeaders' && (match.value as Obj).value === undefined) continue;
      result.push(mergeStruct(item as Obj, match.value as Obj, spec.item));
    } else {
      result.push(match.value);
    }
  }
  for (const item of child) {
    if (!parentKeys.has(itemKey(item, spec))) result.push(item);
  }
  return result;
}

/** handle + key → the child's entry (last one wins, as in a Go map). */
function indexChildLists(child: Obj, spec: StructSpec): Map<string, ChildEntry> {
  const index = new Map<string, ChildEntry>();
  for (const [name, field] of Object.entries(spec.fields)) {
    if (field.kind !== 'list' || field.appendOnly) continue;
    const items = child[name];
    if (!Array.isArray(items)) continue;
    const handle = field.handle ?? name;
    for (const item of items)
      index.set(`${handle}\u0000${itemKey(item, field)}`, { list: name, value: item });
  }
  return index;
}

function itemKey(item: unknown, spec: ListSpec): string {
  if (spec.item.kind === 'primitive' || !spec.key) return String(item);
  return spec.key(item as Obj);
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.keys(value).length === 0;
  return false;
}
