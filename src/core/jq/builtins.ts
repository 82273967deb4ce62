// jq's builtin functions: natives written in TypeScript, and a prelude written in jq itself on top
// of them (the way jq and gojq define most of their library). The root scope holds both.

import type { Json } from './ast.ts';
import { JqError } from './errors.ts';
import {
  type Closure,
  type Ctx,
  defineFunc,
  evaluate,
  type NativeFn,
  pathsOf,
  Scope,
  step,
  valuesOf,
} from './evaluate.ts';
import { regexBuiltins } from './regex.ts';
import { parseJq } from './syntax.ts';
import {
  arith,
  compare,
  contains,
  delpaths,
  describe,
  entriesOf,
  getpath,
  indices,
  isObject,
  length,
  type PathKey,
  setpath,
  toJson,
  toText,
  truthy,
  typeOf,
} from './values.ts';

/** Every combination of the arguments' values (the first argument varies slowest). */
function* argValues(ctx: Ctx, args: Closure[], input: Json, at = 0, acc: Json[] = []): Generator<Json[]> {
  if (at === args.length) {
    yield acc;
    return;
  }
  for (const v of valuesOf(ctx, args[at]!, input)) yield* argValues(ctx, args, input, at + 1, [...acc, v]);
}

/** A native whose arguments are values: called once per combination, one output each. */
export function valueFn(f: (input: Json, ...args: Json[]) => Json): NativeFn {
  return function* (ctx, input, args) {
    for (const vs of argValues(ctx, args, input.v)) yield { v: f(input.v, ...vs), p: null };
  };
}

function str(v: Json, fn: string): string {
  if (typeof v !== 'string') throw new JqError(`${describe(v)} cannot be used with ${fn}`);
  return v;
}

function num(v: Json, fn: string): number {
  if (typeof v !== 'number') throw new JqError(`${describe(v)} number required for ${fn}`);
  return v;
}

function arr(v: Json, fn: string): Json[] {
  if (!Array.isArray(v)) throw new JqError(`${describe(v)} cannot be ${fn}, as it is not an array`);
  return v;
}

function pathArg(v: Json): PathKey[] {
  if (!Array.isArray(v)) throw new JqError('Path must be specified as an array');
  return v as PathKey[];
}

function keyed(ctx: Ctx, f: Closure, items: Json[]): Array<{ item: Json; key: Json }> {
  return items.map((item) => ({ item, key: [...valuesOf(ctx, f, item)] }));
}

function flatten(v: Json[], depth: number): Json[] {
  return v.flatMap((x) => (Array.isArray(x) && depth > 0 ? flatten(x, depth - 1) : [x]));
}

const math = (f: (x: number) => number, name: string): NativeFn => valueFn((v) => f(num(v, name)));

const NATIVES: Record<string, NativeFn> = {
  'empty/0': function* () {},
  'error/0': (_ctx, input) => {
    throw new JqError(typeof input.v === 'string' ? input.v : toJson(input.v), 0, input.v);
  },
  'error/1': valueFn((_v, msg) => {
    throw new JqError(typeof msg === 'string' ? msg : toJson(msg ?? null), 0, msg);
  }),
  'not/0': valueFn((v) => !truthy(v)),
  'length/0': valueFn(length),
  'utf8bytelength/0': valueFn((v) => Buffer.byteLength(str(v, 'utf8bytelength'))),
  'type/0': valueFn(typeOf),
  'keys/0': valueFn((v) => {
    if (Array.isArray(v)) return v.map((_x, i) => i);
    if (!isObject(v)) throw new JqError(`${describe(v)} has no keys`);
    return Object.keys(v).sort();
  }),
  'keys_unsorted/0': valueFn((v) => {
    if (Array.isArray(v)) return v.map((_x, i) => i);
    if (!isObject(v)) throw new JqError(`${describe(v)} has no keys`);
    return Object.keys(v);
  }),
  'has/1': valueFn((v, k) => {
    if (Array.isArray(v) && typeof k === 'number') return k >= 0 && k < v.length;
    if (isObject(v) && typeof k === 'string') return k in v;
    throw new JqError(`Cannot check whether ${typeOf(v)} has a ${typeOf(k!)} key`);
  }),
  'contains/1': valueFn((v, b) => contains(v, b!)),
  'add/0': valueFn((v) => entriesOf(v).reduce<Json>((acc, [, x]) => arith('+', acc, x), null)),
  'range/2': function* (ctx, input, args) {
    for (const [from, upto] of argValues(ctx, args, input.v)) {
      for (let i = num(from!, 'range'); i < num(upto!, 'range'); i++) {
        step(ctx);
        yield { v: i, p: null };
      }
    }
  },
  'range/3': function* (ctx, input, args) {
    for (const [from, upto, by] of argValues(ctx, args, input.v)) {
      const [a, b, s] = [num(from!, 'range'), num(upto!, 'range'), num(by!, 'range')];
      if (s === 0) continue;
      for (let i = a; s > 0 ? i < b : i > b; i += s) {
        step(ctx);
        yield { v: i, p: null };
      }
    }
  },
  'floor/0': math(Math.floor, 'floor'),
  'ceil/0': math(Math.ceil, 'ceil'),
  'round/0': math(Math.round, 'round'),
  'trunc/0': math(Math.trunc, 'trunc'),
  'sqrt/0': math(Math.sqrt, 'sqrt'),
  'fabs/0': math(Math.abs, 'fabs'),
  'log/0': math(Math.log, 'log'),
  'log2/0': math(Math.log2, 'log2'),
  'log10/0': math(Math.log10, 'log10'),
  'exp/0': math(Math.exp, 'exp'),
  'exp2/0': math((x) => 2 ** x, 'exp2'),
  'exp10/0': math((x) => 10 ** x, 'exp10'),
  'pow/2': valueFn((_v, a, b) => num(a!, 'pow') ** num(b!, 'pow')),
  'abs/0': valueFn((v) => (typeof v === 'number' ? Math.abs(v) : v)),
  'infinite/0': valueFn(() => Number.POSITIVE_INFINITY),
  'nan/0': valueFn(() => Number.NaN),
  'isinfinite/0': valueFn(
    (v) => num(v, 'isinfinite') === Number.POSITIVE_INFINITY || v === Number.NEGATIVE_INFINITY,
  ),
  'isnan/0': valueFn((v) => Number.isNaN(num(v, 'isnan'))),
  'isnormal/0': valueFn((v) => Number.isFinite(num(v, 'isnormal')) && v !== 0),
  'tostring/0': valueFn(toText),
  'tojson/0': valueFn(toJson),
  'fromjson/0': valueFn((v) => {
    const text = str(v, 'fromjson');
    try {
      return JSON.parse(text) as Json;
    } catch {
      throw new JqError(`${text} (while parsing '${text}')`);
    }
  }),
  'tonumber/0': valueFn((v) => {
    if (typeof v === 'number') return v;
    const text = str(v, 'tonumber');
    const n = Number(text);
    if (Number.isNaN(n) || text.trim() === '') throw new JqError(`Cannot parse '${text}' as JSON`);
    return n;
  }),
  'toarray/0': valueFn((v) => (Array.isArray(v) ? v : [v])),
  'ascii_downcase/0': valueFn((v) => str(v, 'ascii_downcase').replace(/[A-Z]/g, (c) => c.toLowerCase())),
  'ascii_upcase/0': valueFn((v) => str(v, 'ascii_upcase').replace(/[a-z]/g, (c) => c.toUpperCase())),
  'explode/0': valueFn((v) => [...str(v, 'explode')].map((c) => c.codePointAt(0)!)),
  'implode/0': valueFn((v) => String.fromCodePoint(...arr(v, 'imploded').map((c) => num(c, 'implode')))),
  'ltrimstr/1': valueFn((v, p) =>
    typeof v === 'string' && typeof p === 'string' && v.startsWith(p) ? v.slice(p.length) : v,
  ),
  'rtrimstr/1': valueFn((v, p) =>
    typeof v === 'string' && typeof p === 'string' && p !== '' && v.endsWith(p) ? v.slice(0, -p.length) : v,
  ),
  'trim/0': valueFn((v) => str(v, 'trim').trim()),
  'ltrim/0': valueFn((v) => str(v, 'ltrim').trimStart()),
  'rtrim/0': valueFn((v) => str(v, 'rtrim').trimEnd()),
  'startswith/1': valueFn((v, p) => str(v, 'startswith').startsWith(str(p!, 'startswith'))),
  'endswith/1': valueFn((v, p) => str(v, 'endswith').endsWith(str(p!, 'endswith'))),
  'split/1': valueFn((v, sep) => {
    const s = str(v, 'split');
    return s === '' ? [] : s.split(str(sep!, 'split'));
  }),
  'join/1': valueFn((v, sep) =>
    entriesOf(v)
      .map(([, x]) => (x === null ? '' : typeof x === 'object' ? String(arith('+', '', x)) : String(x)))
      .join(str(sep!, 'join')),
  ),
  'sort/0': valueFn((v) => [...arr(v, 'sorted')].sort(compare)),
  'sort_by/1': function* (ctx, input, [f]) {
    const items = keyed(ctx, f!, arr(input.v, 'sorted'));
    yield { v: items.sort((a, b) => compare(a.key, b.key)).map((x) => x.item), p: null };
  },
  'group_by/1': function* (ctx, input, [f]) {
    const items = keyed(ctx, f!, arr(input.v, 'grouped')).sort((a, b) => compare(a.key, b.key));
    const groups: Json[][] = [];
    items.forEach((x, i) => {
      if (i > 0 && compare(items[i - 1]!.key, x.key) === 0) groups[groups.length - 1]!.push(x.item);
      else groups.push([x.item]);
    });
    yield { v: groups, p: null };
  },
  'unique_by/1': function* (ctx, input, [f]) {
    const items = keyed(ctx, f!, arr(input.v, 'grouped')).sort((a, b) => compare(a.key, b.key));
    yield {
      v: items.filter((x, i) => i === 0 || compare(items[i - 1]!.key, x.key) !== 0).map((x) => x.item),
      p: null,
    };
  },
  'min_by/1': function* (ctx, input, [f]) {
    const items = keyed(ctx, f!, arr(input.v, 'iterated'));
    yield {
      v:
        items.reduce<{ item: Json; key: Json } | null>(
          (m, x) => (m === null || compare(x.key, m.key) < 0 ? x : m),
          null,
        )?.item ?? null,
      p: null,
    };
  },
  'max_by/1': function* (ctx, input, [f]) {
    const items = keyed(ctx, f!, arr(input.v, 'iterated'));
    yield {
      v:
        items.reduce<{ item: Json; key: Json } | null>(
          (m, x) => (m === null || compare(x.key, m.key) >= 0 ? x : m),
          null,
        )?.item ?? null,
      p: null,
    };
  },
  'reverse/0': valueFn((v) =>
    typeof v === 'string' ? [...v].reverse().join('') : v === null ? [] : [...arr(v, 'reversed')].reverse(),
  ),
  'flatten/1': valueFn((v, d) => {
    if (num(d!, 'flatten') < 0) throw new JqError('flatten depth must not be negative');
    return flatten(arr(v, 'flattened'), d as number);
  }),
  'indices/1': valueFn((v, x) => indices(v, x!)),
  'transpose/0': valueFn((v) => {
    const rows = arr(v, 'transposed').map((r) => arr(r, 'transposed'));
    const width = Math.max(0, ...rows.map((r) => r.length));
    return Array.from({ length: width }, (_x, i) => rows.map((r) => r[i] ?? null));
  }),
  'path/1': function* (ctx, input, [f]) {
    for (const p of pathsOf(ctx, f!.node, input.v, f!.scope)) yield { v: p as Json, p: null };
  },
  'getpath/1': function* (ctx, input, [f]) {
    for (const p of valuesOf(ctx, f!, input.v)) {
      const path = pathArg(p);
      let v: Json;
      try {
        v = getpath(input.v, path);
      } catch {
        v = null;
      }
      yield { v, p: input.p === null ? null : [...input.p, ...path] };
    }
  },
  'setpath/2': valueFn((v, p, x) => setpath(v, pathArg(p!), x!)),
  'delpaths/1': valueFn((v, ps) => delpaths(v, arr(ps!, 'deleted').map(pathArg))),
  'limit/2': function* (ctx, input, [n, f]) {
    for (const v of valuesOf(ctx, n!, input.v)) {
      const max = num(v, 'limit');
      if (max <= 0) continue;
      let count = 0;
      for (const o of evaluate(ctx, f!.node, input, f!.scope)) {
        yield o;
        if (++count >= max) break;
      }
    }
  },
  'first/1': function* (ctx, input, [f]) {
    for (const o of evaluate(ctx, f!.node, input, f!.scope)) {
      yield o;
      return;
    }
  },
  'isempty/1': function* (ctx, input, [f]) {
    yield { v: evaluate(ctx, f!.node, input, f!.scope).next().done === true, p: null };
  },
  'isvalid/1': function* (ctx, input, [f]) {
    try {
      for (const _o of evaluate(ctx, f!.node, input, f!.scope));
      yield { v: true, p: null };
    } catch (err) {
      if (!(err instanceof JqError)) throw err;
      yield { v: false, p: null };
    }
  },
  'input/0': () => {
    throw new JqError('input is not available to this query');
  },
  'inputs/0': () => {
    throw new JqError('inputs is not available to this query');
  },
  'debug/0': function* (_ctx, input) {
    yield input;
  },
  'stderr/0': function* (_ctx, input) {
    yield input;
  },
  'input_filename/0': valueFn(() => null),
  'now/0': valueFn(() => Date.now() / 1000),
  'builtins/0': valueFn(() => builtinNames()),
  ...regexBuiltins(),
};

// Written in jq on top of the natives; a definition sees the ones before it and itself.
const PRELUDE = `
def select(f): if f then . else empty end;
def recurse(f): def r: ., (f | r); r;
def recurse(f; cond): def r: ., (f | select(cond) | r); r;
def recurse: recurse(.[]?);
def values: select(. != null);
def nulls: select(. == null);
def booleans: select(type == "boolean");
def numbers: select(type == "number");
def strings: select(type == "string");
def arrays: select(type == "array");
def objects: select(type == "object");
def iterables: select(type | . == "array" or . == "object");
def scalars: select(type | . != "array" and . != "object");
def finites: select(isinfinite or isnan | not);
def normals: select(isnormal);
def map(f): [.[] | f];
def map_values(f): .[] |= f;
def range($x): range(0; $x);
def to_entries: [keys_unsorted[] as $k | {key: $k, value: .[$k]}];
def from_entries: reduce .[] as $x ({};
  . + { ($x | if type == "object" then (if has("key") then .key elif has("k") then .k elif has("name") then .name
          elif has("Name") then .Name elif has("Key") then .Key elif has("K") then .K else null end) else . end
        | if type == "string" then . elif type == "null" then "null" else tojson end):
        ($x | if type == "object" then (if has("value") then .value elif has("v") then .v elif has("Value") then .Value
          elif has("V") then .V else null end) else null end) });
def with_entries(f): to_entries | map(f) | from_entries;
def paths: path(..) | select(length > 0);
def paths(node_filter): . as $dot | paths | select(. as $p | $dot | getpath($p) | node_filter);
def leaf_paths: paths(scalars);
def del(f): delpaths([path(f)]);
def pick(pathexps): . as $top | reduce path(pathexps) as $p (null; setpath($p; $top | getpath($p)));
def any: reduce .[] as $x (false; . or $x);
def all: reduce .[] as $x (true; . and $x);
def any(f): reduce (.[] | f) as $x (false; . or $x);
def all(f): reduce (.[] | f) as $x (true; . and $x);
def any(g; cond): isempty(first(g | cond | select(.))) | not;
def all(g; cond): isempty(first(g | cond | select(. | not)));
def in(xs): . as $x | xs | has($x);
def inside(xs): . as $x | xs | contains($x);
def IN(s): any(s == .; .);
def IN(src; s): any(src == s; .);
def INDEX(stream; idx_expr): reduce stream as $row ({}; .[$row | idx_expr | tostring] |= $row);
def INDEX(idx_expr): INDEX(.[]; idx_expr);
def add(f): reduce f as $x (null; . + $x);
def min: min_by(.);
def max: max_by(.);
def unique: unique_by(.);
def flatten: flatten(1e9);
def first: .[0];
def last: .[-1];
def last(f): reduce f as $x (null; $x);
def nth($n): .[$n];
def nth($n; f): if $n < 0 then error("Out of bounds negative array index") else last(limit($n + 1; f)) end;
def index($i): indices($i) | .[0];
def rindex($i): indices($i) | .[-1:][0];
def until(cond; update): def _until: if cond then . else (update | _until) end; _until;
def while(cond; update): def _while: if cond then ., (update | _while) else empty end; _while;
def repeat(f): def _repeat: ., (f | _repeat); _repeat;
def walk(f): def w: if type == "object" then map_values(w) elif type == "array" then map(w) else . end | f; w;
def env: $ENV;
def combinations: if length == 0 then [] else .[0][] as $x | (.[1:] | combinations) as $w | [$x] + $w end;
def combinations(n): . as $dot | [range(n)] | map($dot) | combinations;
def ascii: [.] | implode;
def debug(msg): (msg | debug | empty), .;
def splits($re): splits($re; null);
def splits($re; flags): split($re; flags) | .[];
`;

function buildRoot(): Scope {
  let scope = new Scope(undefined, '', null);
  for (const [key, fn] of Object.entries(NATIVES)) {
    const [name, arity] = key.split('/') as [string, string];
    scope = scope.withFunc(name, Number(arity), { kind: 'native', fn });
  }
  let body = parseJq(PRELUDE).body;
  while (body.t === 'def') {
    scope = defineFunc(body.def, scope);
    body = body.rest;
  }
  return scope;
}

export const ROOT_SCOPE: Scope = buildRoot();

/** `name/arity` of every builtin, for the compiler's name check and `builtins`. */
export function builtinNames(): string[] {
  const names = new Set<string>();
  for (let s: Scope | undefined = ROOT_SCOPE; s; s = s.parent) if (s.key.includes('/')) names.add(s.key);
  return [...names].sort();
}
