// The jq evaluator: lazy (generators), so `first`, `limit`, `label`/`break` and a caller that reads
// two outputs stop early; every output carries its path from the input when it has one, which is
// what `path(f)`, `paths`, `del` and the assignment operators are built on. A step budget and a
// call-depth bound keep a hostile query from holding the event loop.

import type { FuncDef, Json, Node, Pattern } from './ast.ts';
import { JqBudgetError, JqError } from './errors.ts';
import { applyFormat } from './formats.ts';
import {
  arith,
  binop,
  delpaths,
  describe,
  entriesOf,
  getpath,
  index,
  isObject,
  type JsonObject,
  type PathKey,
  setpath,
  toText,
  truthy,
} from './values.ts';

/** One output: its value and, when the output is a location in the input, the path to it. */
export interface Out {
  v: Json;
  p: PathKey[] | null;
}

export interface Limits {
  /** Evaluation steps (node visits and generated items) one run may take. */
  maxSteps: number;
  /** Nesting of user-defined function calls. */
  maxDepth: number;
}

// A classification query over an inventory takes a few thousand steps; 100,000 bounds a hostile one
// to well under a second of event-loop time.
export const DEFAULT_LIMITS: Limits = { maxSteps: 100_000, maxDepth: 1_000 };

export interface Ctx {
  steps: number;
  depth: number;
  limits: Limits;
}

/** A filter argument: the argument's tree with the scope of the call site. */
export interface Closure {
  kind: 'closure';
  node: Node;
  scope: Scope;
}

export type NativeFn = (ctx: Ctx, input: Out, args: Closure[]) => Iterable<Out>;

type Func = Closure | { kind: 'def'; def: FuncDef; scope: Scope } | { kind: 'native'; fn: NativeFn };

/** A lexical scope: one binding (variable, function or label) and its parent. */
export class Scope {
  readonly parent: Scope | undefined;
  readonly key: string;
  readonly value: Json | Func | symbol;

  constructor(parent: Scope | undefined, key: string, value: Json | Func | symbol) {
    this.parent = parent;
    this.key = key;
    this.value = value;
  }

  lookup(key: string): Json | Func | symbol | undefined {
    for (let s: Scope | undefined = this; s; s = s.parent) if (s.key === key) return s.value;
    return undefined;
  }

  withVar(name: string, v: Json): Scope {
    return new Scope(this, `$${name}`, v);
  }

  withFunc(name: string, arity: number, f: Func): Scope {
    return new Scope(this, `${name}/${arity}`, f);
  }
}

class BreakSignal {
  readonly label: symbol;

  constructor(label: symbol) {
    this.label = label;
  }
}

const LOC: Json = { file: '<stdin>', line: 1 };

export function step(ctx: Ctx): void {
  if (++ctx.steps > ctx.limits.maxSteps) {
    throw new JqBudgetError(`query exceeded its budget of ${ctx.limits.maxSteps} evaluation steps`);
  }
}

/** Values of a closure on an input (value mode: paths dropped). */
export function* valuesOf(ctx: Ctx, c: Closure, input: Json): Generator<Json> {
  for (const o of evaluate(ctx, c.node, { v: input, p: null }, c.scope)) yield o.v;
}

/** Paths of a path expression on an input; an output that is not a location is an error. */
export function* pathsOf(ctx: Ctx, node: Node, input: Json, scope: Scope): Generator<PathKey[]> {
  for (const o of evaluate(ctx, node, { v: input, p: [] }, scope)) {
    if (o.p === null) throw new JqError(`Invalid path expression with result ${describe(o.v)}`);
    yield o.p;
  }
}

function extend(p: PathKey[] | null, k: PathKey): PathKey[] | null {
  return p === null ? null : [...p, k];
}

function pathKeyOf(k: Json): PathKey {
  if (typeof k === 'string' || typeof k === 'number') return k;
  if (isObject(k)) return { start: k.start ?? null, end: k.end ?? null };
  return k as unknown as PathKey;
}

export function* evaluate(ctx: Ctx, n: Node, input: Out, scope: Scope): Generator<Out> {
  step(ctx);
  switch (n.t) {
    case 'identity':
      yield input;
      return;
    case 'recurse':
      yield* recurseAll(ctx, input);
      return;
    case 'literal':
      yield { v: n.v, p: null };
      return;
    case 'string':
      for (const v of interpolate(ctx, n.parts, n.parts.length - 1, input, scope, n.format))
        yield { v, p: null };
      return;
    case 'format':
      yield { v: applyFormat(n.name, input.v), p: null };
      return;
    case 'index':
      for (const o of evaluate(ctx, n.of, input, scope)) {
        for (const k of evaluate(ctx, n.key, input, scope))
          yield { v: index(o.v, k.v), p: extend(o.p, pathKeyOf(k.v)) };
      }
      return;
    case 'slice':
      yield* slice(ctx, n, input, scope);
      return;
    case 'iterate':
      for (const o of evaluate(ctx, n.of, input, scope)) {
        for (const [k, v] of entriesOf(o.v)) yield { v, p: extend(o.p, k) };
      }
      return;
    case 'try':
      yield* tryCatch(ctx, n.body, n.handler, input, scope);
      return;
    case 'pipe':
      for (const o of evaluate(ctx, n.left, input, scope)) yield* evaluate(ctx, n.right, o, scope);
      return;
    case 'comma':
      yield* evaluate(ctx, n.left, input, scope);
      yield* evaluate(ctx, n.right, input, scope);
      return;
    case 'alt':
      yield* alternative(ctx, n.left, n.right, input, scope);
      return;
    case 'assign':
      yield* assign(ctx, n.op, n.left, n.right, input, scope);
      return;
    case 'and':
    case 'or':
      for (const l of evaluate(ctx, n.left, input, scope)) {
        if (n.t === 'and' && !truthy(l.v)) yield { v: false, p: null };
        else if (n.t === 'or' && truthy(l.v)) yield { v: true, p: null };
        else for (const r of evaluate(ctx, n.right, input, scope)) yield { v: truthy(r.v), p: null };
      }
      return;
    case 'binop':
      for (const r of evaluate(ctx, n.right, input, scope)) {
        for (const l of evaluate(ctx, n.left, input, scope)) yield { v: binop(n.op, l.v, r.v), p: null };
      }
      return;
    case 'neg':
      for (const o of evaluate(ctx, n.of, input, scope)) {
        if (typeof o.v !== 'number') throw new JqError(`${describe(o.v)} cannot be negated`);
        yield { v: -o.v, p: null };
      }
      return;
    case 'array':
      yield { v: n.of ? [...valuesOfNode(ctx, n.of, input, scope)] : [], p: null };
      return;
    case 'object':
      for (const v of objects(ctx, n.entries, 0, {}, input, scope)) yield { v, p: null };
      return;
    case 'if':
      yield* ifThen(ctx, n.branches, 0, n.else, input, scope);
      return;
    case 'call':
      yield* call(ctx, n.name, n.args, input, scope);
      return;
    case 'var':
      yield { v: variable(n.name, scope), p: null };
      return;
    case 'bind':
      yield* bind(ctx, n.source, n.patterns, n.body, input, scope);
      return;
    case 'reduce':
      yield* reduce(ctx, n, input, scope);
      return;
    case 'foreach':
      yield* foreach(ctx, n, input, scope);
      return;
    case 'def': {
      yield* evaluate(ctx, n.rest, input, defineFunc(n.def, scope));
      return;
    }
    case 'label':
      yield* label(ctx, n.name, n.body, input, scope);
      return;
    case 'break': {
      const sym = scope.lookup(`*label*${n.name}`);
      throw new BreakSignal(sym as symbol);
    }
  }
}

function* valuesOfNode(ctx: Ctx, n: Node, input: Out, scope: Scope): Generator<Json> {
  for (const o of evaluate(ctx, n, input, scope)) yield o.v;
}

/** Adds a `def` to a scope; the function sees itself, so it may recurse. */
export function defineFunc(def: FuncDef, scope: Scope): Scope {
  const func: { kind: 'def'; def: FuncDef; scope: Scope } = { kind: 'def', def, scope };
  const inner = scope.withFunc(def.name, def.params.length, func);
  func.scope = inner;
  return inner;
}

function variable(name: string, scope: Scope): Json {
  const v = scope.lookup(`$${name}`);
  if (v !== undefined) return v as Json;
  if (name === '__loc__') return LOC;
  if (name === 'ENV') return {};
  throw new JqError(`variable not defined: $${name}`);
}

function* recurseAll(ctx: Ctx, o: Out): Generator<Out> {
  step(ctx);
  yield o;
  if (Array.isArray(o.v) || isObject(o.v)) {
    for (const [k, v] of entriesOf(o.v)) yield* recurseAll(ctx, { v, p: extend(o.p, k) });
  }
}

function* slice(ctx: Ctx, n: Extract<Node, { t: 'slice' }>, input: Out, scope: Scope): Generator<Out> {
  const bounds = (b: Node | undefined) => (b ? [...valuesOfNode(ctx, b, input, scope)] : [null]);
  for (const o of evaluate(ctx, n.of, input, scope)) {
    for (const end of bounds(n.to)) {
      for (const start of bounds(n.from)) {
        const key = { start, end };
        if (o.v !== null && typeof o.v !== 'string' && !Array.isArray(o.v)) {
          throw new JqError(`Cannot index ${describe(o.v)} with object`);
        }
        yield { v: index(o.v, key as Json), p: extend(o.p, key) };
      }
    }
  }
}

function* tryCatch(
  ctx: Ctx,
  body: Node,
  handler: Node | undefined,
  input: Out,
  scope: Scope,
): Generator<Out> {
  try {
    yield* evaluate(ctx, body, input, scope);
  } catch (err) {
    if (!(err instanceof JqError)) throw err;
    if (handler) yield* evaluate(ctx, handler, { v: err.value ?? err.message, p: null }, scope);
  }
}

function* alternative(ctx: Ctx, left: Node, right: Node, input: Out, scope: Scope): Generator<Out> {
  let any = false;
  try {
    for (const o of evaluate(ctx, left, input, scope)) {
      if (!truthy(o.v)) continue;
      any = true;
      yield o;
    }
  } catch (err) {
    if (!(err instanceof JqError)) throw err;
  }
  if (!any) yield* evaluate(ctx, right, input, scope);
}

/** `=`, `|=`, `+=` …, `//=`: paths of the left side on the input, then setpath for each. */
function* assign(ctx: Ctx, op: string, left: Node, right: Node, input: Out, scope: Scope): Generator<Out> {
  const paths = [...pathsOf(ctx, left, input.v, scope)];
  if (op === '|=') {
    let acc = input.v;
    const dropped: PathKey[][] = [];
    for (const p of paths) {
      const first = evaluate(ctx, right, { v: getpath(acc, p), p: null }, scope).next();
      if (first.done) dropped.push(p);
      else acc = setpath(acc, p, first.value.v);
    }
    yield { v: dropped.length > 0 ? delpaths(acc, dropped) : acc, p: null };
    return;
  }
  for (const r of valuesOfNode(ctx, right, input, scope)) {
    let acc = input.v;
    for (const p of paths) {
      const cur = getpath(acc, p);
      const next = op === '=' ? r : op === '//=' ? (truthy(cur) ? cur : r) : arith(op.slice(0, -1), cur, r);
      acc = setpath(acc, p, next);
    }
    yield { v: acc, p: null };
  }
}

function* objects(
  ctx: Ctx,
  entries: Array<{ key: Node; value: Node }>,
  at: number,
  acc: JsonObject,
  input: Out,
  scope: Scope,
): Generator<Json> {
  if (at === entries.length) {
    yield acc;
    return;
  }
  const e = entries[at]!;
  for (const k of valuesOfNode(ctx, e.key, input, scope)) {
    if (typeof k !== 'string') throw new JqError(`Object keys must be strings`);
    for (const v of valuesOfNode(ctx, e.value, input, scope)) {
      yield* objects(ctx, entries, at + 1, { ...acc, [k]: v }, input, scope);
    }
  }
}

/** String interpolation: the last interpolation varies slowest, as in jq. */
function* interpolate(
  ctx: Ctx,
  parts: Array<string | Node>,
  at: number,
  input: Out,
  scope: Scope,
  format: string | undefined,
): Generator<string> {
  if (at < 0) {
    yield '';
    return;
  }
  const part = parts[at]!;
  if (typeof part === 'string') {
    for (const head of interpolate(ctx, parts, at - 1, input, scope, format)) yield head + part;
    return;
  }
  for (const v of valuesOfNode(ctx, part, input, scope)) {
    const text = format ? String(applyFormat(format, v)) : toText(v);
    for (const head of interpolate(ctx, parts, at - 1, input, scope, format)) yield head + text;
  }
}

function* ifThen(
  ctx: Ctx,
  branches: Array<{ cond: Node; body: Node }>,
  at: number,
  otherwise: Node | undefined,
  input: Out,
  scope: Scope,
): Generator<Out> {
  if (at === branches.length) {
    if (otherwise) yield* evaluate(ctx, otherwise, input, scope);
    else yield input;
    return;
  }
  const b = branches[at]!;
  for (const c of valuesOfNode(ctx, b.cond, input, scope)) {
    if (truthy(c)) yield* evaluate(ctx, b.body, input, scope);
    else yield* ifThen(ctx, branches, at + 1, otherwise, input, scope);
  }
}

function* call(ctx: Ctx, name: string, args: Node[], input: Out, scope: Scope): Generator<Out> {
  const f = scope.lookup(`${name}/${args.length}`) as Func | undefined;
  if (!f) throw new JqError(`function not defined: ${name}/${args.length}`);
  if (f.kind === 'closure') {
    yield* evaluate(ctx, f.node, input, f.scope);
    return;
  }
  const closures: Closure[] = args.map((node) => ({ kind: 'closure', node, scope }));
  if (f.kind === 'native') {
    yield* f.fn(ctx, input, closures);
    return;
  }
  if (++ctx.depth > ctx.limits.maxDepth) {
    throw new JqBudgetError(`query exceeded its budget of ${ctx.limits.maxDepth} nested function calls`);
  }
  try {
    yield* callDef(ctx, f.def, f.scope, closures, 0, input);
  } finally {
    ctx.depth--;
  }
}

/** Binds parameters one by one: filter parameters as closures, `$x` parameters per value. */
function* callDef(
  ctx: Ctx,
  def: FuncDef,
  scope: Scope,
  args: Closure[],
  at: number,
  input: Out,
): Generator<Out> {
  if (at === args.length) {
    yield* evaluate(ctx, def.body, input, scope);
    return;
  }
  const param = def.params[at]!;
  const arg = args[at]!;
  if (!param.startsWith('$')) {
    yield* callDef(ctx, def, scope.withFunc(param, 0, arg), args, at + 1, input);
    return;
  }
  const name = param.slice(1);
  for (const v of valuesOf(ctx, arg, input.v)) {
    const bound = scope.withVar(name, v);
    const withFilter = bound.withFunc(name, 0, { kind: 'closure', node: { t: 'literal', v }, scope: bound });
    yield* callDef(ctx, def, withFilter, args, at + 1, input);
  }
}

function* bind(
  ctx: Ctx,
  source: Node,
  patterns: Pattern[],
  body: Node,
  input: Out,
  scope: Scope,
): Generator<Out> {
  for (const s of valuesOfNode(ctx, source, input, scope)) {
    if (patterns.length === 1) {
      for (const sc of destructure(ctx, patterns[0]!, s, input, scope)) yield* evaluate(ctx, body, input, sc);
      continue;
    }
    // `?//`: every variable of every pattern is bound (null by default); an error while binding
    // or in the body moves on to the next pattern.
    let base = scope;
    for (const name of new Set(patterns.flatMap(patternVars))) base = base.withVar(name, null);
    for (let i = 0; i < patterns.length; i++) {
      try {
        for (const sc of destructure(ctx, patterns[i]!, s, input, base))
          yield* evaluate(ctx, body, input, sc);
        break;
      } catch (err) {
        if (!(err instanceof JqError) || i === patterns.length - 1) throw err;
      }
    }
  }
}

export function patternVars(p: Pattern): string[] {
  if (p.t === 'pvar') return [p.name];
  if (p.t === 'parray') return p.items.flatMap(patternVars);
  return p.entries.flatMap((e) => [
    ...(e.bind ? [e.bind] : []),
    ...(e.pattern ? patternVars(e.pattern) : []),
  ]);
}

/** The scopes a destructuring pattern binds for a value (several when keys are generators). */
function* destructure(ctx: Ctx, p: Pattern, v: Json, input: Out, scope: Scope): Generator<Scope> {
  if (p.t === 'pvar') {
    yield scope.withVar(p.name, v);
    return;
  }
  if (p.t === 'parray') {
    if (v !== null && !Array.isArray(v)) throw new JqError(`Cannot index ${describe(v)} with number`);
    yield* destructureItems(ctx, p.items, 0, v, input, scope);
    return;
  }
  yield* destructureEntries(ctx, p.entries, 0, v, input, scope);
}

function* destructureItems(
  ctx: Ctx,
  items: Pattern[],
  at: number,
  v: Json,
  input: Out,
  scope: Scope,
): Generator<Scope> {
  if (at === items.length) {
    yield scope;
    return;
  }
  for (const sc of destructure(ctx, items[at]!, index(v, at), input, scope)) {
    yield* destructureItems(ctx, items, at + 1, v, input, sc);
  }
}

function* destructureEntries(
  ctx: Ctx,
  entries: Extract<Pattern, { t: 'pobject' }>['entries'],
  at: number,
  v: Json,
  input: Out,
  scope: Scope,
): Generator<Scope> {
  if (at === entries.length) {
    yield scope;
    return;
  }
  const e = entries[at]!;
  for (const k of valuesOfNode(ctx, e.key, input, scope)) {
    if (typeof k !== 'string') throw new JqError(`Cannot index object with ${describe(k)}`);
    const child = index(v, k);
    const bound = e.bind ? scope.withVar(e.bind, child) : scope;
    const scopes = e.pattern ? destructure(ctx, e.pattern, child, input, bound) : [bound];
    for (const sc of scopes) yield* destructureEntries(ctx, entries, at + 1, v, input, sc);
  }
}

function* reduce(ctx: Ctx, n: Extract<Node, { t: 'reduce' }>, input: Out, scope: Scope): Generator<Out> {
  for (const init of valuesOfNode(ctx, n.init, input, scope)) {
    let acc: Json = init;
    for (const s of valuesOfNode(ctx, n.source, input, scope)) {
      for (const sc of destructure(ctx, n.pattern, s, input, scope)) {
        let last: Json = null;
        for (const o of evaluate(ctx, n.update, { v: acc, p: null }, sc)) last = o.v;
        acc = last;
      }
    }
    yield { v: acc, p: null };
  }
}

function* foreach(ctx: Ctx, n: Extract<Node, { t: 'foreach' }>, input: Out, scope: Scope): Generator<Out> {
  for (const init of valuesOfNode(ctx, n.init, input, scope)) {
    let acc: Json = init;
    for (const s of valuesOfNode(ctx, n.source, input, scope)) {
      for (const sc of destructure(ctx, n.pattern, s, input, scope)) {
        for (const o of evaluate(ctx, n.update, { v: acc, p: null }, sc)) {
          acc = o.v;
          if (n.extract) yield* evaluate(ctx, n.extract, { v: acc, p: null }, sc);
          else yield { v: acc, p: null };
        }
      }
    }
  }
}

function* label(ctx: Ctx, name: string, body: Node, input: Out, scope: Scope): Generator<Out> {
  const sym = Symbol(name);
  try {
    yield* evaluate(ctx, body, input, new Scope(scope, `*label*${name}`, sym));
  } catch (err) {
    if (err instanceof BreakSignal && err.label === sym) return;
    throw err;
  }
}
