// Field-level differences between two JSON values, for the "Unsupported change" list of the
// AgentClusterInstall webhook. Paths use the JSON field names (`networking.machineNetwork[0].cidr`);
// keys are visited in sorted order so the message is deterministic. Empty values (null, absent,
// '', [], {}) are equal to each other; `zeroIsEmpty` decides whether false and 0 are too (Go
// non-pointer fields cannot tell them from "unset").

import { isObject } from './types.ts';

export interface FieldDiff {
  path: string;
  old: unknown;
  new: unknown;
}

export interface DiffOptions {
  /** Paths (as produced in FieldDiff.path) where false and 0 are values, not "unset". */
  pointerPaths?: ReadonlySet<string>;
}

function isEmptyLeaf(v: unknown, zeroIsEmpty: boolean): boolean {
  if (v === undefined || v === null || v === '') return true;
  if (zeroIsEmpty && (v === false || v === 0)) return true;
  return Array.isArray(v) && v.length === 0;
}

function join(base: string, key: string): string {
  return base ? `${base}.${key}` : key;
}

export function diffJson(a: unknown, b: unknown, opts: DiffOptions = {}, path = ''): FieldDiff[] {
  const zeroIsEmpty = !opts.pointerPaths?.has(path);
  const ea = isEmptyLeaf(a, zeroIsEmpty);
  const eb = isEmptyLeaf(b, zeroIsEmpty);
  // Objects (an unset object counts as {}) are compared field by field.
  if ((isObject(a) || isObject(b)) && (isObject(a) || ea) && (isObject(b) || eb)) {
    const oa = isObject(a) ? a : {};
    const ob = isObject(b) ? b : {};
    const keys = [...new Set([...Object.keys(oa), ...Object.keys(ob)])].sort();
    return keys.flatMap((k) => diffJson(oa[k], ob[k], opts, join(path, k)));
  }
  if (ea && eb) return [];
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    return a.flatMap((x, i) => diffJson(x, b[i], opts, `${path}[${i}]`));
  }
  if (!ea && !eb && a === b) return [];
  return [{ path, old: ea ? undefined : a, new: eb ? undefined : b }];
}

/** Renders a value the way the message shows it: `<nil>` when unset, strings bare, else JSON. */
export function formatDiffValue(v: unknown): string {
  if (v === undefined || v === null) return '<nil>';
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

/** `\t<path>: (<old> => <new>)` lines joined with newlines. */
export function formatDiffs(diffs: readonly FieldDiff[]): string {
  return diffs.map((d) => `\t${d.path}: (${formatDiffValue(d.old)} => ${formatDiffValue(d.new)})`).join('\n');
}
