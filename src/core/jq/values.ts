// jq's value semantics: types, truthiness, the total order, arithmetic, indexing and paths.

import type { Json } from './ast.ts';
import { JqError } from './errors.ts';

export type JsonObject = { [k: string]: Json };
/** A path step: an object key, an array index, or a slice `{start, end}`. */
export type PathKey = string | number | { start: Json; end: Json };

export function typeOf(v: Json): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? 'object' : typeof v;
}

export function isObject(v: Json): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function truthy(v: Json): boolean {
  return v !== null && v !== false;
}

const TYPE_ORDER = ['null', 'boolean', 'number', 'string', 'array', 'object'];

/** jq's total order: null < false < true < numbers < strings < arrays < objects. */
export function compare(a: Json, b: Json): number {
  const ta = TYPE_ORDER.indexOf(typeOf(a));
  const tb = TYPE_ORDER.indexOf(typeOf(b));
  if (ta !== tb) return ta - tb;
  if (a === null) return 0;
  if (typeof a === 'boolean') return Number(a) - Number(b as boolean);
  if (typeof a === 'number') return a - (b as number);
  if (typeof a === 'string') return a < (b as string) ? -1 : a > (b as string) ? 1 : 0;
  if (Array.isArray(a)) {
    const bb = b as Json[];
    for (let i = 0; i < Math.min(a.length, bb.length); i++) {
      const c = compare(a[i]!, bb[i]!);
      if (c !== 0) return c;
    }
    return a.length - bb.length;
  }
  const ao = a as JsonObject;
  const bo = b as JsonObject;
  const ka = Object.keys(ao).sort();
  const kb = Object.keys(bo).sort();
  const kc = compare(ka, kb);
  if (kc !== 0) return kc;
  for (const k of ka) {
    const c = compare(ao[k]!, bo[k]!);
    if (c !== 0) return c;
  }
  return 0;
}

/** Compact JSON with object keys sorted, as gojq prints values. */
export function toJson(v: Json): string {
  if (isObject(v)) {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${toJson(v[k]!)}`).join(',')}}`;
  }
  if (Array.isArray(v)) return `[${v.map(toJson).join(',')}]`;
  if (typeof v === 'number' && !Number.isFinite(v))
    return Number.isNaN(v) ? 'null' : v > 0 ? '1.7976931348623157e+308' : '-1.7976931348623157e+308';
  return JSON.stringify(v);
}

export function toText(v: Json): string {
  return typeof v === 'string' ? v : toJson(v);
}

export function describe(v: Json): string {
  const text = toJson(v);
  return `${typeOf(v)} (${text.length > 30 ? `${text.slice(0, 27)}...` : text})`;
}

function mergeDeep(a: JsonObject, b: JsonObject): JsonObject {
  const out: JsonObject = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const cur = out[k];
    out[k] = cur !== undefined && isObject(cur) && isObject(v) ? mergeDeep(cur, v) : v;
  }
  return out;
}

export function arith(op: string, l: Json, r: Json): Json {
  if (op === '+') {
    if (l === null) return r;
    if (r === null) return l;
    if (typeof l === 'number' && typeof r === 'number') return l + r;
    if (typeof l === 'string' && typeof r === 'string') return l + r;
    if (Array.isArray(l) && Array.isArray(r)) return [...l, ...r];
    if (isObject(l) && isObject(r)) return { ...l, ...r };
  } else if (op === '-') {
    if (typeof l === 'number' && typeof r === 'number') return l - r;
    if (Array.isArray(l) && Array.isArray(r)) return l.filter((x) => !r.some((y) => compare(x, y) === 0));
  } else if (op === '*') {
    if (typeof l === 'number' && typeof r === 'number') return l * r;
    if (typeof l === 'string' && typeof r === 'number')
      return r > 0 ? l.repeat(Math.min(Math.ceil(r), 1e6)) : null;
    if (isObject(l) && isObject(r)) return mergeDeep(l, r);
  } else if (op === '/') {
    if (typeof l === 'number' && typeof r === 'number') {
      if (r === 0)
        throw new JqError(`${describe(l)} and ${describe(r)} cannot be divided because the divisor is zero`);
      return l / r;
    }
    if (typeof l === 'string' && typeof r === 'string') return l === '' ? [] : l.split(r);
  } else if (op === '%') {
    if (typeof l === 'number' && typeof r === 'number') {
      if (Math.trunc(r) === 0)
        throw new JqError(`${describe(l)} and ${describe(r)} cannot be divided because the divisor is zero`);
      return Math.trunc(l) % Math.trunc(r);
    }
  }
  const verb = { '+': 'added', '-': 'subtracted', '*': 'multiplied', '/': 'divided', '%': 'divided' }[op];
  throw new JqError(`${describe(l)} and ${describe(r)} cannot be ${verb}`);
}

const COMPARISONS: Record<string, (c: number) => boolean> = {
  '==': (c) => c === 0,
  '!=': (c) => c !== 0,
  '<': (c) => c < 0,
  '<=': (c) => c <= 0,
  '>': (c) => c > 0,
  '>=': (c) => c >= 0,
};

export function binop(op: string, l: Json, r: Json): Json {
  const cmp = COMPARISONS[op];
  return cmp ? cmp(compare(l, r)) : arith(op, l, r);
}

function sliceBounds(len: number, start: Json, end: Json): [number, number] {
  const clamp = (x: Json, d: number) => {
    if (x === null) return d;
    if (typeof x !== 'number') throw new JqError(`Start and end indices of an array slice must be numbers`);
    const i = x < 0 ? len + Math.floor(x) : Math.floor(x);
    return Math.max(0, Math.min(len, i));
  };
  const from = clamp(start, 0);
  return [from, Math.max(from, clamp(end, len))];
}

/** `v[k]`: object key, array index or slice (`{start, end}`); null yields null. */
export function index(v: Json, k: PathKey | Json): Json {
  if (v === null) return null;
  if (typeof k === 'string') {
    if (!isObject(v)) throw new JqError(`Cannot index ${typeOf(v)} with "${k}"`);
    return v[k] ?? null;
  }
  if (typeof k === 'number' && Array.isArray(v)) {
    if (Number.isNaN(k)) return null;
    const i = Math.floor(k);
    return v[i < 0 ? v.length + i : i] ?? null;
  }
  if (isObject(k as Json) && (Array.isArray(v) || typeof v === 'string') && 'start' in (k as JsonObject)) {
    const o = k as JsonObject;
    const [from, to] = sliceBounds(v.length, o.start ?? null, o.end ?? null);
    return v.slice(from, to);
  }
  if (Array.isArray(k) && Array.isArray(v)) return indices(v, k);
  throw new JqError(`Cannot index ${typeOf(v)} with ${typeOf(k as Json)}`);
}

export function indices(v: Json, x: Json): Json {
  if (v === null) return null;
  if (typeof v === 'string' && typeof x === 'string') {
    const out: number[] = [];
    if (x === '') return null;
    for (let i = v.indexOf(x); i >= 0; i = v.indexOf(x, i + 1)) out.push(i);
    return out;
  }
  if (Array.isArray(v)) {
    const needle = Array.isArray(x) ? x : [x];
    if (needle.length === 0) return null;
    const out: number[] = [];
    for (let i = 0; i + needle.length <= v.length; i++) {
      if (needle.every((n, j) => compare(v[i + j]!, n) === 0)) out.push(i);
    }
    return out;
  }
  throw new JqError(`Cannot determine indices of ${describe(x)} in ${describe(v)}`);
}

/** Children of an array or object with their path keys. */
export function entriesOf(v: Json): Array<[PathKey, Json]> {
  if (Array.isArray(v)) return v.map((x, i) => [i, x]);
  if (isObject(v)) return Object.entries(v);
  throw new JqError(`Cannot iterate over ${describe(v)}`);
}

export function getpath(v: Json, path: readonly PathKey[]): Json {
  let cur = v;
  for (const k of path) {
    if (cur === null) return null;
    cur = index(cur, k as Json);
  }
  return cur;
}

export function setpath(v: Json, path: readonly PathKey[], value: Json, at = 0): Json {
  if (at === path.length) return value;
  const k = path[at]!;
  if (typeof k === 'string') {
    if (v !== null && !isObject(v)) throw new JqError(`Cannot index ${typeOf(v)} with "${k}"`);
    const base = v ?? {};
    return { ...base, [k]: setpath(base[k] ?? null, path, value, at + 1) };
  }
  if (typeof k === 'number') {
    if (v !== null && !Array.isArray(v)) throw new JqError(`Cannot index ${typeOf(v)} with number`);
    const arr = [...(v ?? [])];
    const i = k < 0 ? arr.length + Math.floor(k) : Math.floor(k);
    if (i < 0) throw new JqError('Out of bounds negative array index');
    if (i > 1e6) throw new JqError('Array index too large');
    while (arr.length < i) arr.push(null);
    arr[i] = setpath(arr[i] ?? null, path, value, at + 1);
    return arr;
  }
  if (v !== null && !Array.isArray(v))
    throw new JqError(`Cannot update field at object index of ${typeOf(v)}`);
  const arr = v ?? [];
  const [from, to] = sliceBounds(arr.length, k.start, k.end);
  const replaced = setpath(arr.slice(from, to), path, value, at + 1);
  if (!Array.isArray(replaced)) throw new JqError('A slice of an array can only be assigned another array');
  return [...arr.slice(0, from), ...replaced, ...arr.slice(to)];
}

function deletePath(v: Json, path: readonly PathKey[]): Json {
  if (v === null || path.length === 0) return path.length === 0 ? null : v;
  const [k, ...rest] = path as [PathKey, ...PathKey[]];
  if (rest.length > 0) {
    const child = index(v, k as Json);
    if (child === null) return v;
    return setpath(v, [k], deletePath(child, rest));
  }
  if (typeof k === 'string') {
    if (!isObject(v)) throw new JqError(`Cannot delete field at object index of ${typeOf(v)}`);
    const { [k]: _gone, ...keep } = v;
    return keep;
  }
  if (!Array.isArray(v)) throw new JqError(`Cannot delete field at index of ${typeOf(v)}`);
  if (typeof k === 'number') {
    const i = k < 0 ? v.length + Math.floor(k) : Math.floor(k);
    return i < 0 || i >= v.length ? v : [...v.slice(0, i), ...v.slice(i + 1)];
  }
  const [from, to] = sliceBounds(v.length, k.start, k.end);
  return [...v.slice(0, from), ...v.slice(to)];
}

/** Deletes the paths, longest and last first so earlier deletions do not shift later ones. */
export function delpaths(v: Json, paths: readonly PathKey[][]): Json {
  const sorted = [...paths].sort((a, b) => compare(b as Json, a as Json));
  return sorted.reduce((acc, p) => deletePath(acc, p), v);
}

export function length(v: Json): number {
  if (v === null) return 0;
  if (typeof v === 'boolean') throw new JqError('boolean (' + String(v) + ') has no length');
  if (typeof v === 'number') return Math.abs(v);
  if (typeof v === 'string') return [...v].length;
  return Array.isArray(v) ? v.length : Object.keys(v).length;
}

export function contains(a: Json, b: Json): boolean {
  if (typeOf(a) !== typeOf(b))
    throw new JqError(`${describe(a)} and ${describe(b)} cannot have their containment checked`);
  if (typeof a === 'string') return a.includes(b as string);
  if (Array.isArray(a))
    return (b as Json[]).every((y) => a.some((x) => typeOf(x) === typeOf(y) && contains(x, y)));
  if (isObject(a)) {
    const bo = b as JsonObject;
    return Object.keys(bo).every(
      (k) => k in a && typeOf(a[k]!) === typeOf(bo[k]!) && contains(a[k]!, bo[k]!),
    );
  }
  return compare(a, b) === 0;
}
