// A jq evaluator for AgentClassification queries (kubeapi.md §3.8): the queries run on an Agent's
// status.inventory and must yield one boolean. Upstream embeds gojq; no jq implementation is a
// dependency here, so this covers the language classification queries use:
//   paths (`.a.b`, `."x"`, `.[n]`, `.[m:n]`, `.[]`, `..`, `?`), literals, arrays and objects,
//   `|`, `,`, `//`, `and`, `or`, comparisons, `+ - * / %`, unary minus, `if/elif/else/end`,
//   `try … catch …`, `Term as $x | …`, `$x`, and the builtins listed in BUILTINS.
// Not supported (the query then fails like a runtime error and the Agent gets QUERYERROR-<value>):
// `def`, `reduce`, `foreach`, `label`/`break`, string interpolation, formats (`@base64`),
// assignment operators, `import`/`include`, regex flags other than the ones of JS.
// Evaluation is eager (every filter yields an array of outputs), which is fine for inventories.

export class JqError extends Error {
  override name = 'JqError';
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

type Node =
  | { t: 'identity' }
  | { t: 'recurse' }
  | { t: 'literal'; v: Json }
  | { t: 'field'; of: Node; name: string; opt: boolean }
  | { t: 'index'; of: Node; index: Node; opt: boolean }
  | { t: 'slice'; of: Node; from?: Node; to?: Node; opt: boolean }
  | { t: 'iterate'; of: Node; opt: boolean }
  | { t: 'try'; body: Node; handler?: Node }
  | { t: 'pipe'; left: Node; right: Node }
  | { t: 'comma'; left: Node; right: Node }
  | { t: 'alt'; left: Node; right: Node }
  | { t: 'and' | 'or'; left: Node; right: Node }
  | { t: 'binop'; op: string; left: Node; right: Node }
  | { t: 'neg'; of: Node }
  | { t: 'array'; of?: Node }
  | { t: 'object'; entries: { key: Node; value: Node }[] }
  | { t: 'if'; branches: { cond: Node; body: Node }[]; else?: Node }
  | { t: 'call'; name: string; args: Node[] }
  | { t: 'var'; name: string }
  | { t: 'bind'; source: Node; name: string; body: Node };

// ---------------------------------------------------------------------------------------------
// Lexer
// ---------------------------------------------------------------------------------------------

type Tok = { k: 'num' | 'str' | 'ident' | 'field' | 'var' | 'op' | 'eof'; v: string; pos: number };

const OPS = [
  '?//',
  '//',
  '==',
  '!=',
  '<=',
  '>=',
  '..',
  '|=',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '.',
  '[',
  ']',
  '{',
  '}',
  '(',
  ')',
  '|',
  ',',
  ':',
  ';',
  '<',
  '>',
  '+',
  '-',
  '*',
  '/',
  '%',
  '?',
  '=',
];

function lex(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '#') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    const start = i;
    if (c === '"') {
      let s = '';
      i++;
      for (;;) {
        if (i >= src.length) throw new JqError('unterminated string literal');
        const ch = src[i]!;
        if (ch === '"') break;
        if (ch === '\\') {
          const e = src[i + 1];
          const simple: Record<string, string> = {
            '"': '"',
            '\\': '\\',
            '/': '/',
            b: '\b',
            f: '\f',
            n: '\n',
            r: '\r',
            t: '\t',
          };
          if (e !== undefined && e in simple) {
            s += simple[e];
            i += 2;
          } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(src.slice(i + 2, i + 6))) {
            s += String.fromCharCode(Number.parseInt(src.slice(i + 2, i + 6), 16));
            i += 6;
          } else if (e === '(') {
            throw new JqError('string interpolation is not supported');
          } else {
            throw new JqError(`invalid escape \\${e ?? ''}`);
          }
          continue;
        }
        s += ch;
        i++;
      }
      i++;
      out.push({ k: 'str', v: s, pos: start });
      continue;
    }
    const num = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/.exec(src.slice(i));
    if (num && (/\d/.test(c) || (c === '.' && /\d/.test(src[i + 1] ?? '')))) {
      out.push({ k: 'num', v: num[0], pos: start });
      i += num[0].length;
      continue;
    }
    if (c === '.' && /[A-Za-z_]/.test(src[i + 1] ?? '')) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i + 1))!;
      out.push({ k: 'field', v: m[0], pos: start });
      i += 1 + m[0].length;
      continue;
    }
    if (c === '$') {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i + 1));
      if (!m) throw new JqError('unexpected token "$"');
      out.push({ k: 'var', v: m[0], pos: start });
      i += 1 + m[0].length;
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i))!;
      out.push({ k: 'ident', v: m[0], pos: start });
      i += m[0].length;
      continue;
    }
    if (c === '@') throw new JqError('formats are not supported');
    const op = OPS.find((o) => src.startsWith(o, i));
    if (!op) throw new JqError(`unexpected character ${JSON.stringify(c)}`);
    out.push({ k: 'op', v: op, pos: start });
    i += op.length;
  }
  out.push({ k: 'eof', v: '', pos: src.length });
  return out;
}

// ---------------------------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------------------------

const UNSUPPORTED_KEYWORDS = new Set(['def', 'reduce', 'foreach', 'label', 'import', 'include', 'module']);
const CMP = new Set(['==', '!=', '<', '<=', '>', '>=']);

class Parser {
  private readonly toks: Tok[];
  private i = 0;

  constructor(toks: Tok[]) {
    this.toks = toks;
  }

  private get tok(): Tok {
    return this.toks[this.i]!;
  }

  private isOp(v: string): boolean {
    return this.tok.k === 'op' && this.tok.v === v;
  }

  private isKw(v: string): boolean {
    return this.tok.k === 'ident' && this.tok.v === v;
  }

  private next(): Tok {
    return this.toks[this.i++]!;
  }

  private expectOp(v: string): void {
    if (!this.isOp(v)) this.fail();
    this.i++;
  }

  private expectKw(v: string): void {
    if (!this.isKw(v)) this.fail();
    this.i++;
  }

  private fail(): never {
    const t = this.tok;
    throw new JqError(t.k === 'eof' ? 'unexpected end of query' : `unexpected token ${JSON.stringify(t.v)}`);
  }

  program(): Node {
    const n = this.pipe();
    if (this.tok.k !== 'eof') this.fail();
    return n;
  }

  pipe(): Node {
    const left = this.comma();
    if (this.isKw('as')) {
      this.i++;
      if (this.tok.k !== 'var') throw new JqError('destructuring patterns are not supported');
      const name = this.next().v;
      this.expectOp('|');
      return { t: 'bind', source: left, name, body: this.pipe() };
    }
    if (this.isOp('|')) {
      this.i++;
      return { t: 'pipe', left, right: this.pipe() };
    }
    return left;
  }

  private comma(): Node {
    let left = this.alt();
    while (this.isOp(',')) {
      this.i++;
      left = { t: 'comma', left, right: this.alt() };
    }
    return left;
  }

  private alt(): Node {
    const left = this.or();
    if (['=', '|=', '+=', '-=', '*=', '/=', '%=', '?//'].some((o) => this.isOp(o))) {
      throw new JqError('assignment operators are not supported');
    }
    if (this.isOp('//')) {
      this.i++;
      return { t: 'alt', left, right: this.alt() };
    }
    return left;
  }

  private or(): Node {
    let left = this.and();
    while (this.isKw('or')) {
      this.i++;
      left = { t: 'or', left, right: this.and() };
    }
    return left;
  }

  private and(): Node {
    let left = this.cmp();
    while (this.isKw('and')) {
      this.i++;
      left = { t: 'and', left, right: this.cmp() };
    }
    return left;
  }

  private cmp(): Node {
    const left = this.add();
    if (this.tok.k === 'op' && CMP.has(this.tok.v)) {
      const op = this.next().v;
      const right = this.add();
      if (this.tok.k === 'op' && CMP.has(this.tok.v)) this.fail();
      return { t: 'binop', op, left, right };
    }
    return left;
  }

  private add(): Node {
    let left = this.mul();
    while (this.isOp('+') || this.isOp('-')) {
      const op = this.next().v;
      left = { t: 'binop', op, left, right: this.mul() };
    }
    return left;
  }

  private mul(): Node {
    let left = this.unary();
    while (this.isOp('*') || this.isOp('/') || this.isOp('%')) {
      const op = this.next().v;
      left = { t: 'binop', op, left, right: this.unary() };
    }
    return left;
  }

  private unary(): Node {
    if (this.isOp('-')) {
      this.i++;
      return { t: 'neg', of: this.unary() };
    }
    return this.postfix();
  }

  private postfix(): Node {
    let n = this.primary();
    for (;;) {
      if (this.tok.k === 'field') {
        n = { t: 'field', of: n, name: this.next().v, opt: false };
      } else if (this.isOp('.') && this.toks[this.i + 1]?.k === 'str') {
        this.i++;
        n = { t: 'field', of: n, name: this.next().v, opt: false };
      } else if (this.isOp('[') || (this.isOp('.') && this.toks[this.i + 1]?.v === '[')) {
        if (this.isOp('.')) this.i++;
        n = this.bracket(n);
      } else if (this.isOp('?')) {
        this.i++;
        n = optional(n);
      } else {
        return n;
      }
    }
  }

  private bracket(of: Node): Node {
    this.expectOp('[');
    if (this.isOp(']')) {
      this.i++;
      return { t: 'iterate', of, opt: false };
    }
    if (this.isOp(':')) {
      this.i++;
      const to = this.pipe();
      this.expectOp(']');
      return { t: 'slice', of, to, opt: false };
    }
    const index = this.pipe();
    if (this.isOp(':')) {
      this.i++;
      const to = this.isOp(']') ? undefined : this.pipe();
      this.expectOp(']');
      return { t: 'slice', of, from: index, ...(to ? { to } : {}), opt: false };
    }
    this.expectOp(']');
    return { t: 'index', of, index, opt: false };
  }

  private primary(): Node {
    const t = this.tok;
    switch (t.k) {
      case 'num':
        this.i++;
        return { t: 'literal', v: Number(t.v) };
      case 'str':
        this.i++;
        return { t: 'literal', v: t.v };
      case 'field':
        this.i++;
        return { t: 'field', of: { t: 'identity' }, name: t.v, opt: false };
      case 'var':
        this.i++;
        return { t: 'var', name: t.v };
      case 'ident':
        return this.identifier();
      case 'op':
        return this.opPrimary();
      default:
        this.fail();
    }
  }

  private opPrimary(): Node {
    if (this.isOp('.')) {
      this.i++;
      if (this.tok.k === 'str') return { t: 'field', of: { t: 'identity' }, name: this.next().v, opt: false };
      if (this.isOp('[')) return this.bracket({ t: 'identity' });
      return { t: 'identity' };
    }
    if (this.isOp('..')) {
      this.i++;
      return { t: 'recurse' };
    }
    if (this.isOp('(')) {
      this.i++;
      const n = this.pipe();
      this.expectOp(')');
      return n;
    }
    if (this.isOp('[')) {
      this.i++;
      if (this.isOp(']')) {
        this.i++;
        return { t: 'array' };
      }
      const of = this.pipe();
      this.expectOp(']');
      return { t: 'array', of };
    }
    if (this.isOp('{')) return this.object();
    this.fail();
  }

  private identifier(): Node {
    const name = this.next().v;
    if (UNSUPPORTED_KEYWORDS.has(name)) throw new JqError(`${name} is not supported`);
    if (name === 'true' || name === 'false') return { t: 'literal', v: name === 'true' };
    if (name === 'null') return { t: 'literal', v: null };
    if (name === 'if') return this.ifTerm();
    if (name === 'try') {
      const body = this.postfix();
      if (this.isKw('catch')) {
        this.i++;
        return { t: 'try', body, handler: this.postfix() };
      }
      return { t: 'try', body };
    }
    if (['then', 'elif', 'else', 'end', 'and', 'or', 'as', 'catch'].includes(name)) {
      this.i--;
      this.fail();
    }
    const args: Node[] = [];
    if (this.isOp('(')) {
      this.i++;
      args.push(this.pipe());
      while (this.isOp(';')) {
        this.i++;
        args.push(this.pipe());
      }
      this.expectOp(')');
    }
    return { t: 'call', name, args };
  }

  private ifTerm(): Node {
    const branches: { cond: Node; body: Node }[] = [];
    const cond = this.pipe();
    this.expectKw('then');
    branches.push({ cond, body: this.pipe() });
    while (this.isKw('elif')) {
      this.i++;
      const c = this.pipe();
      this.expectKw('then');
      branches.push({ cond: c, body: this.pipe() });
    }
    let otherwise: Node | undefined;
    if (this.isKw('else')) {
      this.i++;
      otherwise = this.pipe();
    }
    this.expectKw('end');
    return otherwise ? { t: 'if', branches, else: otherwise } : { t: 'if', branches };
  }

  private object(): Node {
    this.expectOp('{');
    const entries: { key: Node; value: Node }[] = [];
    if (this.isOp('}')) {
      this.i++;
      return { t: 'object', entries };
    }
    for (;;) {
      let key: Node;
      let value: Node | undefined;
      const t = this.tok;
      if (t.k === 'var') {
        this.i++;
        key = { t: 'literal', v: t.v };
        value = { t: 'var', name: t.v };
      } else if (t.k === 'ident' || t.k === 'str') {
        this.i++;
        key = { t: 'literal', v: t.v };
      } else if (this.isOp('(')) {
        this.i++;
        key = this.pipe();
        this.expectOp(')');
      } else {
        this.fail();
      }
      if (this.isOp(':')) {
        this.i++;
        value = this.objectValue();
      }
      entries.push({
        key,
        value: value ?? {
          t: 'field',
          of: { t: 'identity' },
          name: String((key as { v: Json }).v),
          opt: false,
        },
      });
      if (this.isOp(',')) {
        this.i++;
        continue;
      }
      this.expectOp('}');
      return { t: 'object', entries };
    }
  }

  private objectValue(): Node {
    let n = this.unary();
    while (this.isOp('|')) {
      this.i++;
      n = { t: 'pipe', left: n, right: this.unary() };
    }
    return n;
  }
}

function optional(n: Node): Node {
  return { t: 'try', body: n };
}

// ---------------------------------------------------------------------------------------------
// Evaluation
// ---------------------------------------------------------------------------------------------

type Env = ReadonlyMap<string, Json>;

function typeOf(v: Json): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? 'object' : typeof v;
}

function truthy(v: Json): boolean {
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
  const ao = a as Record<string, Json>;
  const bo = b as Record<string, Json>;
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

function describe(v: Json): string {
  const text = JSON.stringify(v);
  return `${typeOf(v)} (${text.length > 30 ? `${text.slice(0, 27)}...` : text})`;
}

function arith(op: string, l: Json, r: Json): Json {
  if (op === '+') {
    if (l === null) return r;
    if (r === null) return l;
    if (typeof l === 'number' && typeof r === 'number') return l + r;
    if (typeof l === 'string' && typeof r === 'string') return l + r;
    if (Array.isArray(l) && Array.isArray(r)) return [...l, ...r];
    if (typeOf(l) === 'object' && typeOf(r) === 'object')
      return { ...(l as object), ...(r as object) } as Json;
  } else if (op === '-') {
    if (typeof l === 'number' && typeof r === 'number') return l - r;
    if (Array.isArray(l) && Array.isArray(r)) return l.filter((x) => !r.some((y) => compare(x, y) === 0));
  } else if (op === '*') {
    if (typeof l === 'number' && typeof r === 'number') return l * r;
  } else if (op === '/') {
    if (typeof l === 'number' && typeof r === 'number') {
      if (r === 0)
        throw new JqError(`${describe(l)} and ${describe(r)} cannot be divided because the divisor is zero`);
      return l / r;
    }
    if (typeof l === 'string' && typeof r === 'string') return l.split(r);
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

function index(v: Json, k: Json): Json {
  if (v === null) return null;
  if (typeof k === 'string') {
    if (typeOf(v) !== 'object') throw new JqError(`Cannot index ${typeOf(v)} with "${k}"`);
    return (v as Record<string, Json>)[k] ?? null;
  }
  if (typeof k === 'number' && Array.isArray(v)) {
    const i = Math.floor(k);
    return v[i < 0 ? v.length + i : i] ?? null;
  }
  throw new JqError(`Cannot index ${typeOf(v)} with ${typeOf(k)}`);
}

function iterate(v: Json): Json[] {
  if (Array.isArray(v)) return v;
  if (v !== null && typeof v === 'object') return Object.values(v);
  throw new JqError(`Cannot iterate over ${describe(v)}`);
}

function recurse(v: Json): Json[] {
  const out: Json[] = [v];
  if (Array.isArray(v)) for (const x of v) out.push(...recurse(x));
  else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) out.push(...recurse(x));
  return out;
}

function length(v: Json): number {
  if (v === null) return 0;
  if (typeof v === 'boolean') throw new JqError('boolean has no length');
  if (typeof v === 'number') return Math.abs(v);
  if (typeof v === 'string') return [...v].length;
  return Array.isArray(v) ? v.length : Object.keys(v).length;
}

function contains(a: Json, b: Json): boolean {
  if (typeOf(a) !== typeOf(b))
    throw new JqError(`${describe(a)} and ${describe(b)} cannot have their containment checked`);
  if (typeof a === 'string') return a.includes(b as string);
  if (Array.isArray(a))
    return (b as Json[]).every((y) => a.some((x) => typeOf(x) === typeOf(y) && contains(x, y)));
  if (a !== null && typeof a === 'object') {
    const bo = b as Record<string, Json>;
    return Object.keys(bo).every(
      (k) =>
        k in a &&
        typeOf((a as Record<string, Json>)[k]!) === typeOf(bo[k]!) &&
        contains((a as Record<string, Json>)[k]!, bo[k]!),
    );
  }
  return compare(a, b) === 0;
}

function str(v: Json, fn: string): string {
  if (typeof v !== 'string') throw new JqError(`${describe(v)} cannot be used with ${fn}`);
  return v;
}

type Builtin = (input: Json, args: Node[], env: Env) => Json[];

function one(n: Node, input: Json, env: Env): Json[] {
  return evaluate(n, input, env);
}

const BUILTINS: Record<string, Builtin> = {
  empty: () => [],
  not: (v) => [!truthy(v)],
  length: (v) => [length(v)],
  utf8bytelength: (v) => [Buffer.byteLength(str(v, 'utf8bytelength'))],
  type: (v) => [typeOf(v)],
  keys: (v) => {
    if (Array.isArray(v)) return [v.map((_x, i) => i)];
    if (typeOf(v) !== 'object') throw new JqError(`${describe(v)} has no keys`);
    return [Object.keys(v as object).sort()];
  },
  values: (v) => (v === null ? [] : [v]),
  has: (v, args, env) =>
    one(args[0]!, v, env).map((k) => {
      if (Array.isArray(v) && typeof k === 'number') return k >= 0 && k < v.length;
      if (typeOf(v) === 'object' && typeof k === 'string') return k in (v as object);
      throw new JqError(`Cannot check whether ${typeOf(v)} has a ${typeOf(k)} key`);
    }),
  in: (v, args, env) => one(args[0]!, v, env).flatMap((o) => BUILTINS.has!(o, [{ t: 'literal', v }], env)),
  map: (v, args, env) => [iterate(v).flatMap((x) => one(args[0]!, x, env))],
  select: (v, args, env) =>
    one(args[0]!, v, env)
      .filter(truthy)
      .map(() => v),
  any: (v, args, env) => {
    if (args.length === 0) return [iterate(v).some(truthy)];
    if (args.length === 1) return [iterate(v).some((x) => one(args[0]!, x, env).some(truthy))];
    return [one(args[0]!, v, env).some((x) => one(args[1]!, x, env).some(truthy))];
  },
  all: (v, args, env) => {
    if (args.length === 0) return [iterate(v).every(truthy)];
    if (args.length === 1) return [iterate(v).every((x) => one(args[0]!, x, env).every(truthy))];
    return [one(args[0]!, v, env).every((x) => one(args[1]!, x, env).every(truthy))];
  },
  add: (v) => [iterate(v).reduce<Json>((acc, x) => arith('+', acc, x), null)],
  min: (v) => [iterate(v).reduce<Json>((m, x) => (m === null || compare(x, m) < 0 ? x : m), null)],
  max: (v) => [iterate(v).reduce<Json>((m, x) => (m === null || compare(x, m) > 0 ? x : m), null)],
  min_by: (v, args, env) => {
    const items = iterate(v);
    return [
      items.length === 0
        ? null
        : items.reduce((m, x) => (compare(one(args[0]!, x, env), one(args[0]!, m, env)) < 0 ? x : m)),
    ];
  },
  max_by: (v, args, env) => {
    const items = iterate(v);
    return [
      items.length === 0
        ? null
        : items.reduce((m, x) => (compare(one(args[0]!, x, env), one(args[0]!, m, env)) > 0 ? x : m)),
    ];
  },
  sort: (v) => [[...iterate(v)].sort(compare)],
  sort_by: (v, args, env) => [
    [...iterate(v)].sort((a, b) => compare(one(args[0]!, a, env), one(args[0]!, b, env))),
  ],
  unique: (v) => [
    [...iterate(v)].sort(compare).filter((x, i, arr) => i === 0 || compare(arr[i - 1]!, x) !== 0),
  ],
  reverse: (v) => [typeof v === 'string' ? [...v].reverse().join('') : [...iterate(v ?? [])].reverse()],
  flatten: (v) => [(iterate(v) as unknown[]).flat(Number.POSITIVE_INFINITY) as Json[]],
  first: (v, args, env) => (args.length === 0 ? [index(v, 0)] : one(args[0]!, v, env).slice(0, 1)),
  last: (v, args, env) => (args.length === 0 ? [index(v, -1)] : one(args[0]!, v, env).slice(-1)),
  contains: (v, args, env) => one(args[0]!, v, env).map((b) => contains(v, b)),
  inside: (v, args, env) => one(args[0]!, v, env).map((a) => contains(a, v)),
  startswith: (v, args, env) =>
    one(args[0]!, v, env).map((p) => str(v, 'startswith').startsWith(str(p, 'startswith'))),
  endswith: (v, args, env) =>
    one(args[0]!, v, env).map((p) => str(v, 'endswith').endsWith(str(p, 'endswith'))),
  ltrimstr: (v, args, env) =>
    one(args[0]!, v, env).map((p) =>
      typeof v === 'string' && typeof p === 'string' && v.startsWith(p) ? v.slice(p.length) : v,
    ),
  rtrimstr: (v, args, env) =>
    one(args[0]!, v, env).map((p) =>
      typeof v === 'string' && typeof p === 'string' && p !== '' && v.endsWith(p) ? v.slice(0, -p.length) : v,
    ),
  ascii_downcase: (v) => [str(v, 'ascii_downcase').replace(/[A-Z]/g, (c) => c.toLowerCase())],
  ascii_upcase: (v) => [str(v, 'ascii_upcase').replace(/[a-z]/g, (c) => c.toUpperCase())],
  split: (v, args, env) => one(args[0]!, v, env).map((s) => str(v, 'split').split(str(s, 'split'))),
  join: (v, args, env) =>
    one(args[0]!, v, env).map((sep) =>
      iterate(v)
        .map((x) => (x === null ? '' : typeof x === 'object' ? arith('+', '', x) : String(x)))
        .join(str(sep, 'join')),
    ),
  test: (v, args, env) => {
    const flags = args[1]
      ? one(args[1], v, env)
          .map((f) => str(f, 'test'))
          .join('')
      : '';
    return one(args[0]!, v, env).map((re) => {
      try {
        return new RegExp(str(re, 'test'), flags.replace(/[^gimsuy]/g, '')).test(str(v, 'test'));
      } catch (err) {
        throw new JqError(`${(err as Error).message} (at offset 0) is not a valid regex`);
      }
    });
  },
  tostring: (v) => [typeof v === 'string' ? v : JSON.stringify(v)],
  tojson: (v) => [JSON.stringify(v)],
  fromjson: (v) => [JSON.parse(str(v, 'fromjson')) as Json],
  tonumber: (v) => {
    if (typeof v === 'number') return [v];
    const text = str(v, 'tonumber');
    const n = Number(text);
    if (Number.isNaN(n) || text.trim() === '') throw new JqError(`Cannot parse '${text}' as JSON`);
    return [n];
  },
  floor: (v) => [Math.floor(v as number)],
  ceil: (v) => [Math.ceil(v as number)],
  round: (v) => [Math.round(v as number)],
  fabs: (v) => [Math.abs(v as number)],
  sqrt: (v) => [Math.sqrt(v as number)],
  abs: (v) => [typeof v === 'number' ? Math.abs(v) : v],
  to_entries: (v) => [Object.entries(v as Record<string, Json>).map(([key, value]) => ({ key, value }))],
  range: (_v, args, env) => {
    const bounds = args.map((a) => one(a, _v, env)[0]);
    const [from, to] =
      bounds.length === 1 ? [0, bounds[0] as number] : [bounds[0] as number, bounds[1] as number];
    const out: Json[] = [];
    for (let i = from; i < to && out.length < 100_000; i++) out.push(i);
    return out;
  },
  error: (v, args, env) => {
    const message = args.length > 0 ? one(args[0]!, v, env)[0] : v;
    throw new JqError(typeof message === 'string' ? message : JSON.stringify(message));
  },
  isvalid: (v, args, env) => {
    try {
      one(args[0]!, v, env);
      return [true];
    } catch {
      return [false];
    }
  },
};

function evaluate(n: Node, input: Json, env: Env): Json[] {
  switch (n.t) {
    case 'identity':
      return [input];
    case 'recurse':
      return recurse(input);
    case 'literal':
      return [n.v];
    case 'field':
      return evaluate(n.of, input, env).map((v) => index(v, n.name));
    case 'index':
      return evaluate(n.of, input, env).flatMap((v) => evaluate(n.index, input, env).map((k) => index(v, k)));
    case 'slice':
      return evaluate(n.of, input, env).flatMap((v) => {
        if (v === null) return [null];
        if (typeof v !== 'string' && !Array.isArray(v))
          throw new JqError(`Cannot index ${typeOf(v)} with object`);
        const from = n.from ? (evaluate(n.from, input, env)[0] as number) : 0;
        const to = n.to ? (evaluate(n.to, input, env)[0] as number) : v.length;
        return [v.slice(from, to)];
      });
    case 'iterate':
      return evaluate(n.of, input, env).flatMap(iterate);
    case 'try':
      try {
        return evaluate(n.body, input, env);
      } catch (err) {
        if (!(err instanceof JqError) || !n.handler) return [];
        return evaluate(n.handler, err.message, env);
      }
    case 'pipe':
      return evaluate(n.left, input, env).flatMap((v) => evaluate(n.right, v, env));
    case 'comma':
      return [...evaluate(n.left, input, env), ...evaluate(n.right, input, env)];
    case 'alt': {
      let left: Json[] = [];
      try {
        left = evaluate(n.left, input, env).filter(truthy);
      } catch (err) {
        if (!(err instanceof JqError)) throw err;
      }
      return left.length > 0 ? left : evaluate(n.right, input, env);
    }
    case 'and':
    case 'or':
      return evaluate(n.left, input, env).flatMap((l) => {
        if (n.t === 'and' && !truthy(l)) return [false];
        if (n.t === 'or' && truthy(l)) return [true];
        return evaluate(n.right, input, env).map(truthy);
      });
    case 'binop':
      return evaluate(n.right, input, env).flatMap((r) =>
        evaluate(n.left, input, env).map((l): Json => {
          if (CMP.has(n.op)) {
            const c = compare(l, r);
            return { '==': c === 0, '!=': c !== 0, '<': c < 0, '<=': c <= 0, '>': c > 0, '>=': c >= 0 }[
              n.op
            ]!;
          }
          return arith(n.op, l, r);
        }),
      );
    case 'neg':
      return evaluate(n.of, input, env).map((v) => {
        if (typeof v !== 'number') throw new JqError(`${describe(v)} cannot be negated`);
        return -v;
      });
    case 'array':
      return [n.of ? evaluate(n.of, input, env) : []];
    case 'object': {
      let objects: Record<string, Json>[] = [{}];
      for (const e of n.entries) {
        const next: Record<string, Json>[] = [];
        for (const o of objects) {
          for (const k of evaluate(e.key, input, env)) {
            if (typeof k !== 'string') throw new JqError(`Object keys must be strings`);
            for (const v of evaluate(e.value, input, env)) next.push({ ...o, [k]: v });
          }
        }
        objects = next;
      }
      return objects;
    }
    case 'if': {
      const [first, ...rest] = n.branches;
      return evaluate(first!.cond, input, env).flatMap((c) => {
        if (truthy(c)) return evaluate(first!.body, input, env);
        if (rest.length > 0)
          return evaluate({ t: 'if', branches: rest, ...(n.else ? { else: n.else } : {}) }, input, env);
        return n.else ? evaluate(n.else, input, env) : [input];
      });
    }
    case 'var': {
      if (!env.has(n.name)) throw new JqError(`$${n.name} is not defined`);
      return [env.get(n.name)!];
    }
    case 'bind':
      return evaluate(n.source, input, env).flatMap((v) =>
        evaluate(n.body, input, new Map([...env, [n.name, v]])),
      );
    case 'call': {
      const fn = BUILTINS[n.name];
      if (!fn) throw new JqError(`function not defined: ${n.name}/${n.args.length}`);
      return fn(input, n.args, env);
    }
  }
}

/** A parsed query; throws JqError when the query uses syntax this evaluator does not support. */
export function compileJq(query: string): (input: unknown) => unknown[] {
  const ast = new Parser(lex(query)).program();
  return (input) => evaluate(ast, JSON.parse(JSON.stringify(input ?? null)) as Json, new Map());
}

export type ClassificationResult =
  | { kind: 'match' }
  | { kind: 'no-match' }
  | { kind: 'error'; message: string };

/**
 * Upstream's reading of a classification query: exactly one boolean `true` matches; a single false
 * or non-boolean does not; no output, several outputs, or an error are query errors.
 */
export function classify(query: string, inventory: unknown): ClassificationResult {
  let outputs: unknown[];
  try {
    outputs = compileJq(query)(inventory);
  } catch (err) {
    if (err instanceof JqError || err instanceof RangeError || err instanceof SyntaxError) {
      return { kind: 'error', message: err.message };
    }
    throw err;
  }
  if (outputs.length === 0) return { kind: 'error', message: 'Expected boolean, found no values' };
  if (outputs.length > 1) return { kind: 'error', message: `Expected one value, found ${outputs.length}` };
  return outputs[0] === true ? { kind: 'match' } : { kind: 'no-match' };
}
