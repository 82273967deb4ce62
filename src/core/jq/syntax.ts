// The jq language as gojq parses it: a lexer and a recursive-descent parser that builds the tree the
// evaluator walks. Error messages follow gojq's ("unexpected EOF", "unexpected token …").
//
// The grammar follows the jq manual: pipes, `,`, `//`, assignment operators (non-associative),
// `or`, `and`, comparisons (non-associative), `+ -`, `* / %`, unary minus, postfix terms with
// `.field`, `."string"`, `[...]` indexing/slicing/iteration and `?`, string interpolation `\(...)`,
// formats (`@base64 "..."`), arrays, objects (keys: identifiers, keywords, variables, strings,
// `(expr)`; values: `|`-chained terms), `if/elif/else/end`, `try/catch`, `reduce`, `foreach`,
// `label`/`break`, `def` (with filter and `$` parameters), `as` bindings with destructuring and
// `?//` alternatives, comments, and `import`/`include`/`module` directives.

import type { FuncDef, Node, Pattern, Program } from './ast.ts';
import { JqSyntaxError } from './errors.ts';

type TokenType =
  | 'eof'
  | 'ident' // foo, foo::bar, and keywords (checked by value)
  | 'field' // .foo
  | 'var' // $foo
  | 'format' // @base64
  | 'number'
  | 'string'
  | 'op'; // punctuation and operators

interface Token {
  type: TokenType;
  value: string;
  start: number;
  end: number;
  /** For strings: source ranges of `\( ... )` interpolations. */
  interpolations?: Array<[number, number]>;
}

const KEYWORDS = new Set([
  'def',
  'as',
  'if',
  'then',
  'elif',
  'else',
  'end',
  'and',
  'or',
  'reduce',
  'foreach',
  'try',
  'catch',
  'label',
  'import',
  'include',
  'module',
  'break',
  '__loc__',
]);

/** Operators, longest first so that the lexer takes the longest match. */
const OPERATORS = [
  '?//',
  '//=',
  '|=',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '==',
  '!=',
  '<=',
  '>=',
  '//',
  '..',
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
  '=',
  '<',
  '>',
  '+',
  '-',
  '*',
  '/',
  '%',
  '?',
];

const ASSIGN_OPS = new Set(['=', '|=', '+=', '-=', '*=', '/=', '%=', '//=']);
const COMPARE_OPS = new Set(['==', '!=', '<', '<=', '>', '>=']);

const IDENT_START = /[A-Za-z_]/;
const IDENT_PART = /[A-Za-z0-9_]/;
const DIGIT = /[0-9]/;

function unexpected(tok: Token): string {
  return tok.type === 'eof' ? 'unexpected EOF' : `unexpected token ${JSON.stringify(tok.value)}`;
}

class Lexer {
  readonly src: string;

  constructor(src: string) {
    this.src = src;
  }

  /** The token starting at or after `pos` (whitespace and comments skipped). */
  tokenAt(pos: number): Token {
    const s = this.src;
    let i = this.skipSpace(pos);
    const start = i;
    if (i >= s.length) return { type: 'eof', value: '', start, end: i };
    const c = s[i]!;
    if (c === '"') return this.string(i);
    if (c === '.' && IDENT_START.test(s[i + 1] ?? '')) {
      i += 1;
      while (i < s.length && IDENT_PART.test(s[i]!)) i++;
      return { type: 'field', value: s.slice(start, i), start, end: i };
    }
    if (DIGIT.test(c) || (c === '.' && DIGIT.test(s[i + 1] ?? ''))) return this.number(i);
    if (IDENT_START.test(c)) {
      i = this.identEnd(i);
      // Module-qualified names: a::b::c
      while (s[i] === ':' && s[i + 1] === ':' && IDENT_START.test(s[i + 2] ?? '')) i = this.identEnd(i + 2);
      return { type: 'ident', value: s.slice(start, i), start, end: i };
    }
    if (c === '$') {
      const j = this.skipSpace(i + 1);
      if (!IDENT_START.test(s[j] ?? '')) throw new JqSyntaxError('unexpected token "$"', i);
      let k = this.identEnd(j);
      while (s[k] === ':' && s[k + 1] === ':' && IDENT_START.test(s[k + 2] ?? '')) k = this.identEnd(k + 2);
      return { type: 'var', value: `$${s.slice(j, k)}`, start, end: k };
    }
    if (c === '@') {
      i += 1;
      while (i < s.length && IDENT_PART.test(s[i]!)) i++;
      if (i === start + 1) throw new JqSyntaxError('unexpected token "@"', start);
      return { type: 'format', value: s.slice(start, i), start, end: i };
    }
    for (const op of OPERATORS) {
      if (s.startsWith(op, i)) return { type: 'op', value: op, start, end: i + op.length };
    }
    throw new JqSyntaxError(`unexpected token ${JSON.stringify(c)}`, i);
  }

  private identEnd(i: number): number {
    let j = i + 1;
    while (j < this.src.length && IDENT_PART.test(this.src[j]!)) j++;
    return j;
  }

  private skipSpace(pos: number): number {
    const s = this.src;
    let i = pos;
    for (;;) {
      while (i < s.length && /\s/.test(s[i]!)) i++;
      if (s[i] !== '#') return i;
      while (i < s.length && s[i] !== '\n') i++;
    }
  }

  private number(pos: number): Token {
    const m = /^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/.exec(this.src.slice(pos));
    const len = m?.[0].length ?? 1;
    const end = pos + len;
    if (IDENT_START.test(this.src[end] ?? '')) {
      throw new JqSyntaxError(`invalid number: ${JSON.stringify(this.src.slice(pos, end + 1))}`, pos);
    }
    return { type: 'number', value: this.src.slice(pos, end), start: pos, end };
  }

  /** A string literal starting at `pos` (the opening quote), interpolations included. */
  string(pos: number): Token {
    const s = this.src;
    const interpolations: Array<[number, number]> = [];
    let i = pos + 1;
    for (;;) {
      if (i >= s.length) throw new JqSyntaxError('unterminated string literal', pos);
      const c = s[i]!;
      if (c === '"') {
        return { type: 'string', value: s.slice(pos, i + 1), start: pos, end: i + 1, interpolations };
      }
      if (c !== '\\') {
        i++;
        continue;
      }
      const e = s[i + 1];
      if (e === undefined) throw new JqSyntaxError('unterminated string literal', pos);
      if ('"\\/bfnrt'.includes(e)) {
        i += 2;
      } else if (e === 'u') {
        if (!/^[0-9A-Fa-f]{4}$/.test(s.slice(i + 2, i + 6))) {
          throw new JqSyntaxError(`invalid escape: ${JSON.stringify(s.slice(i, i + 6))}`, i);
        }
        i += 6;
      } else if (e === '(') {
        const close = this.matchParen(i + 2);
        interpolations.push([i + 2, close]);
        i = close + 1;
      } else {
        throw new JqSyntaxError(`invalid escape: ${JSON.stringify(`\\${e}`)}`, i);
      }
    }
  }

  /** Offset of the `)` closing a group whose content starts at `pos`. */
  private matchParen(pos: number): number {
    let depth = 0;
    let i = pos;
    for (;;) {
      const tok = this.tokenAt(i);
      if (tok.type === 'eof') throw new JqSyntaxError('unterminated string interpolation', pos);
      if (tok.type === 'op' && tok.value === '(') depth++;
      if (tok.type === 'op' && tok.value === ')') {
        if (depth === 0) return tok.start;
        depth--;
      }
      i = tok.end;
    }
  }
}

class Parser {
  private readonly lexer: Lexer;
  private readonly limit: number;
  private pos: number;
  private tok: Token;
  private depth: { n: number };

  constructor(lexer: Lexer, start: number, limit: number, depth: { n: number } = { n: 0 }) {
    this.lexer = lexer;
    this.limit = limit;
    this.pos = start;
    this.depth = depth;
    this.tok = this.read(start);
  }

  private read(pos: number): Token {
    const t = this.lexer.tokenAt(pos);
    if (t.start >= this.limit) return { type: 'eof', value: '', start: this.limit, end: this.limit };
    return t;
  }

  private next(): Token {
    const t = this.tok;
    this.pos = t.end;
    this.tok = this.read(this.pos);
    return t;
  }

  /** The current token (a call, so TypeScript does not carry narrowing across next()). */
  private cur(): Token {
    return this.tok;
  }

  /** A non-keyword identifier, or (with allowVar) a `$name`. */
  private isName(t: Token, allowVar: boolean): boolean {
    if (allowVar && t.type === 'var') return true;
    return t.type === 'ident' && !KEYWORDS.has(t.value) && !t.value.includes('::');
  }

  private peek2(): Token {
    return this.read(this.tok.end);
  }

  private isOp(v: string): boolean {
    return this.tok.type === 'op' && this.tok.value === v;
  }

  private isKw(v: string): boolean {
    return this.tok.type === 'ident' && this.tok.value === v;
  }

  private fail(tok: Token = this.tok): never {
    throw new JqSyntaxError(unexpected(tok), tok.start);
  }

  private expectOp(v: string): void {
    if (!this.isOp(v)) this.fail();
    this.next();
  }

  private expectKw(v: string): void {
    if (!this.isKw(v)) this.fail();
    this.next();
  }

  private guard<T>(fn: () => T): T {
    if (++this.depth.n > 512) throw new JqSyntaxError('query is nested too deeply', this.tok.start);
    try {
      return fn();
    } finally {
      this.depth.n--;
    }
  }

  // ---- program -----------------------------------------------------------------------------

  program(): Program {
    const imports: Program['imports'] = [];
    if (this.isKw('module')) {
      this.next();
      this.objectTerm();
      this.expectOp(';');
    }
    while (this.isKw('import') || this.isKw('include')) {
      const at = this.tok.start;
      const kind = this.next().value;
      if (this.tok.type !== 'string') this.fail();
      const path = this.stringToken();
      imports.push({ path: path.t === 'literal' ? String(path.v) : '', at });
      if (kind === 'import') {
        this.expectKw('as');
        if (!this.isName(this.cur(), true)) this.fail();
        this.next();
      }
      if (this.isOp('{')) this.objectTerm();
      this.expectOp(';');
    }
    // A program may consist of function definitions only; it then passes its input through.
    const defs: FuncDef[] = [];
    while (this.isKw('def')) defs.push(this.funcDef());
    let body: Node = this.tok.type !== 'eof' ? this.pipe() : { t: 'identity' };
    if (this.tok.type !== 'eof') this.fail();
    for (const def of defs.reverse()) body = { t: 'def', def, rest: body };
    return { body, imports };
  }

  /** Parses a complete query between `start` and `limit` (used for string interpolations). */
  private subQuery(start: number, limit: number): Node {
    const p = new Parser(this.lexer, start, limit, this.depth);
    const n = p.pipe();
    if (p.tok.type !== 'eof') p.fail();
    return n;
  }

  // ---- expressions -------------------------------------------------------------------------

  pipe(): Node {
    return this.guard(() => {
      if (this.isKw('def')) {
        const def = this.funcDef();
        return { t: 'def', def, rest: this.pipe() };
      }
      const left = this.comma();
      if (this.isOp('|')) {
        this.next();
        return { t: 'pipe', left, right: this.pipe() };
      }
      return left;
    });
  }

  private comma(): Node {
    let left = this.alternative();
    while (this.isOp(',')) {
      this.next();
      left = { t: 'comma', left, right: this.alternative() };
    }
    return left;
  }

  private alternative(): Node {
    const left = this.assignment();
    if (this.isOp('//')) {
      this.next();
      return { t: 'alt', left, right: this.alternative() };
    }
    return left;
  }

  private assignment(): Node {
    const left = this.or();
    if (this.tok.type === 'op' && ASSIGN_OPS.has(this.tok.value)) {
      const op = this.next().value;
      const right = this.or();
      if (this.tok.type === 'op' && ASSIGN_OPS.has(this.tok.value)) this.fail();
      return { t: 'assign', op, left, right };
    }
    return left;
  }

  private or(): Node {
    let left = this.and();
    while (this.isKw('or')) {
      this.next();
      left = { t: 'or', left, right: this.and() };
    }
    return left;
  }

  private and(): Node {
    let left = this.comparison();
    while (this.isKw('and')) {
      this.next();
      left = { t: 'and', left, right: this.comparison() };
    }
    return left;
  }

  private comparison(): Node {
    const left = this.additive();
    if (this.tok.type === 'op' && COMPARE_OPS.has(this.tok.value)) {
      const op = this.next().value;
      const right = this.additive();
      if (this.tok.type === 'op' && COMPARE_OPS.has(this.tok.value)) this.fail();
      return { t: 'binop', op, left, right };
    }
    return left;
  }

  private additive(): Node {
    let left = this.multiplicative();
    while (this.isOp('+') || this.isOp('-')) {
      const op = this.next().value;
      left = { t: 'binop', op, left, right: this.multiplicative() };
    }
    return left;
  }

  private multiplicative(): Node {
    let left = this.unary();
    while (this.isOp('*') || this.isOp('/') || this.isOp('%')) {
      const op = this.next().value;
      left = { t: 'binop', op, left, right: this.unary() };
    }
    return left;
  }

  private unary(): Node {
    return this.guard(() => {
      if (this.isOp('-')) {
        this.next();
        return { t: 'neg', of: this.unary() };
      }
      return this.operand();
    });
  }

  /**
   * A postfix term, or one of the forms whose body extends as far right as possible:
   * `Term as Patterns | Pipe`, `def ...; Pipe` and `label $name | Pipe`.
   */
  private operand(): Node {
    if (this.isKw('def')) {
      const def = this.funcDef();
      return { t: 'def', def, rest: this.pipe() };
    }
    if (this.isKw('label')) {
      this.next();
      if (this.tok.type !== 'var') this.fail();
      const name = this.next().value.slice(1);
      this.expectOp('|');
      return { t: 'label', name, body: this.pipe() };
    }
    const source = this.postfixTerm();
    if (this.isKw('as')) {
      this.next();
      const patterns = this.patterns();
      this.expectOp('|');
      return { t: 'bind', source, patterns, body: this.pipe() };
    }
    return source;
  }

  private funcDef(): FuncDef {
    const at = this.tok.start;
    this.expectKw('def');
    if (!this.isName(this.cur(), false)) this.fail();
    const name = this.next().value;
    const params: string[] = [];
    if (this.isOp('(')) {
      this.next();
      for (;;) {
        if (!this.isName(this.cur(), true)) this.fail();
        params.push(this.next().value);
        if (this.isOp(';')) {
          this.next();
          continue;
        }
        this.expectOp(')');
        break;
      }
    }
    this.expectOp(':');
    const body = this.pipe();
    this.expectOp(';');
    return { name, params, body, at };
  }

  // ---- terms -------------------------------------------------------------------------------

  private postfixTerm(): Node {
    return this.guard(() => this.suffixes(this.primary()));
  }

  private suffixes(term: Node): Node {
    let n = term;
    for (;;) {
      const t = this.tok;
      if (t.type === 'field') {
        this.next();
        n = { t: 'index', of: n, key: { t: 'literal', v: t.value.slice(1) } };
      } else if (t.type === 'op' && t.value === '.') {
        // ."string" or .[...] after a term
        const after = this.peek2();
        if (after.type === 'string') {
          this.next();
          n = { t: 'index', of: n, key: this.stringToken() };
        } else if (after.type === 'op' && after.value === '[') {
          this.next();
          n = this.bracketSuffix(n);
        } else {
          this.fail(after);
        }
      } else if (t.type === 'op' && t.value === '[') {
        n = this.bracketSuffix(n);
      } else if (t.type === 'op' && t.value === '?') {
        // `?//` introduces a destructuring alternative, which only follows patterns.
        this.next();
        n = { t: 'try', body: n };
      } else {
        return n;
      }
    }
  }

  /** `[]`, `[e]`, `[e:]`, `[:e]`, `[e:e]`. */
  private bracketSuffix(of: Node): Node {
    this.expectOp('[');
    if (this.isOp(']')) {
      this.next();
      return { t: 'iterate', of };
    }
    if (this.isOp(':')) {
      this.next();
      const to = this.pipe();
      this.expectOp(']');
      return { t: 'slice', of, to };
    }
    const key = this.pipe();
    if (this.isOp(':')) {
      this.next();
      const to = this.isOp(']') ? undefined : this.pipe();
      this.expectOp(']');
      return to ? { t: 'slice', of, from: key, to } : { t: 'slice', of, from: key };
    }
    this.expectOp(']');
    return { t: 'index', of, key };
  }

  private primary(): Node {
    const t = this.tok;
    switch (t.type) {
      case 'field':
        this.next();
        return { t: 'index', of: { t: 'identity' }, key: { t: 'literal', v: t.value.slice(1) } };
      case 'number':
        this.next();
        return { t: 'literal', v: Number(t.value) };
      case 'var':
        this.next();
        return { t: 'var', name: t.value.slice(1), at: t.start };
      case 'string':
        return this.stringToken();
      case 'format':
        return this.formatTerm();
      case 'op':
        return this.primaryOp(t);
      case 'ident':
        return this.primaryIdent(t);
      default:
        this.fail();
    }
  }

  private formatTerm(): Node {
    const name = this.next().value.slice(1);
    if (this.tok.type !== 'string') return { t: 'format', name };
    const s = this.stringToken();
    return s.t === 'string'
      ? { ...s, format: name }
      : { t: 'string', parts: [String(s.t === 'literal' ? s.v : '')], format: name };
  }

  private primaryOp(t: Token): Node {
    switch (t.value) {
      case '.': {
        this.next();
        // `."foo"`; `.[...]` is handled as a suffix.
        if (this.tok.type === 'string') return { t: 'index', of: { t: 'identity' }, key: this.stringToken() };
        return { t: 'identity' };
      }
      case '..':
        this.next();
        return { t: 'recurse' };
      case '(': {
        this.next();
        const n = this.pipe();
        this.expectOp(')');
        return n;
      }
      case '[': {
        this.next();
        if (this.isOp(']')) {
          this.next();
          return { t: 'array' };
        }
        const of = this.pipe();
        this.expectOp(']');
        return { t: 'array', of };
      }
      case '{':
        return this.objectTerm();
      default:
        this.fail();
    }
  }

  private primaryIdent(t: Token): Node {
    switch (t.value) {
      case 'if':
        return this.ifTerm();
      case 'try': {
        this.next();
        const body = this.postfixBody();
        if (this.isKw('catch')) {
          this.next();
          return { t: 'try', body, handler: this.postfixBody() };
        }
        return { t: 'try', body };
      }
      case 'reduce':
      case 'foreach':
        return this.reduceTerm(t);
      case 'break': {
        this.next();
        if (this.tok.type !== 'var') this.fail();
        return { t: 'break', name: this.next().value.slice(1), at: t.start };
      }
      case '__loc__':
        return this.fail();
      case 'true':
      case 'false':
      case 'null':
        this.next();
        return { t: 'literal', v: t.value === 'null' ? null : t.value === 'true' };
    }
    if (KEYWORDS.has(t.value)) this.fail();
    this.next();
    const args: Node[] = [];
    if (this.isOp('(')) {
      this.next();
      args.push(this.pipe());
      while (this.isOp(';')) {
        this.next();
        args.push(this.pipe());
      }
      this.expectOp(')');
    }
    return { t: 'call', name: t.value, args, at: t.start };
  }

  private reduceTerm(t: Token): Node {
    this.next();
    const source = this.postfixTerm();
    this.expectKw('as');
    const patterns = this.patterns();
    if (patterns.length > 1) {
      throw new JqSyntaxError(`alternative patterns (?//) are not supported in ${t.value}`, t.start);
    }
    const pattern = patterns[0]!;
    this.expectOp('(');
    const init = this.pipe();
    this.expectOp(';');
    const update = this.pipe();
    if (t.value === 'reduce') {
      this.expectOp(')');
      return { t: 'reduce', source, pattern, init, update };
    }
    let extract: Node | undefined;
    if (this.isOp(';')) {
      this.next();
      extract = this.pipe();
    }
    this.expectOp(')');
    return extract
      ? { t: 'foreach', source, pattern, init, update, extract }
      : { t: 'foreach', source, pattern, init, update };
  }

  /** Bodies of `try` and `catch`: a postfix term, optionally negated. */
  private postfixBody(): Node {
    if (this.isOp('-')) {
      this.next();
      return { t: 'neg', of: this.postfixBody() };
    }
    return this.postfixTerm();
  }

  private ifTerm(): Node {
    this.expectKw('if');
    const branches: Array<{ cond: Node; body: Node }> = [];
    const cond = this.pipe();
    this.expectKw('then');
    branches.push({ cond, body: this.pipe() });
    while (this.isKw('elif')) {
      this.next();
      const c = this.pipe();
      this.expectKw('then');
      branches.push({ cond: c, body: this.pipe() });
    }
    let otherwise: Node | undefined;
    if (this.isKw('else')) {
      this.next();
      otherwise = this.pipe();
    }
    this.expectKw('end');
    return otherwise ? { t: 'if', branches, else: otherwise } : { t: 'if', branches };
  }

  /** A string token: a literal, or a string node when it has interpolations. */
  private stringToken(): Node {
    const t = this.tok;
    if (t.type !== 'string') this.fail();
    const parts: Array<string | Node> = [];
    let text = '';
    const raw = t.value;
    const ranges = t.interpolations ?? [];
    let i = 1;
    let r = 0;
    while (i < raw.length - 1) {
      const c = raw[i]!;
      if (c !== '\\') {
        text += c;
        i++;
        continue;
      }
      const e = raw[i + 1]!;
      if (e === '(') {
        const [from, to] = ranges[r++]!;
        if (text) parts.push(text);
        text = '';
        parts.push(this.subQuery(from, to));
        i = to - t.start + 1;
      } else if (e === 'u') {
        text += String.fromCharCode(Number.parseInt(raw.slice(i + 2, i + 6), 16));
        i += 6;
      } else {
        text += ESCAPES[e] ?? e;
        i += 2;
      }
    }
    if (text || parts.length === 0) parts.push(text);
    this.next();
    if (parts.length === 1 && typeof parts[0] === 'string') return { t: 'literal', v: parts[0] };
    return { t: 'string', parts };
  }

  private objectTerm(): Node {
    this.expectOp('{');
    const entries: Array<{ key: Node; value: Node }> = [];
    if (this.isOp('}')) {
      this.next();
      return { t: 'object', entries };
    }
    for (;;) {
      entries.push(this.objectEntry());
      if (this.isOp(',')) {
        this.next();
        continue;
      }
      this.expectOp('}');
      return { t: 'object', entries };
    }
  }

  private objectEntry(): { key: Node; value: Node } {
    const t = this.tok;
    if (t.type === 'var') {
      // {$x} is {"x": $x}; {$x: v} keys by the variable's value.
      this.next();
      const variable: Node = { t: 'var', name: t.value.slice(1), at: t.start };
      if (this.isOp(':')) {
        this.next();
        return { key: variable, value: this.objectValue() };
      }
      return { key: { t: 'literal', v: t.value.slice(1) }, value: variable };
    }
    let key: Node;
    if (t.type === 'ident' && !t.value.includes('::')) {
      this.next();
      key = { t: 'literal', v: t.value };
    } else if (t.type === 'string') {
      key = this.stringToken();
    } else if (t.type === 'format') {
      key = this.formatTerm();
    } else if (t.type === 'op' && t.value === '(') {
      this.next();
      key = this.pipe();
      this.expectOp(')');
      this.expectOp(':');
      return { key, value: this.objectValue() };
    } else {
      this.fail();
    }
    if (this.isOp(':')) {
      this.next();
      return { key, value: this.objectValue() };
    }
    return { key, value: { t: 'index', of: { t: 'identity' }, key } };
  }

  /** Object values: `|`-chained postfix terms (binary operators need parentheses). */
  private objectValue(): Node {
    let n = this.postfixBody();
    while (this.isOp('|')) {
      this.next();
      n = { t: 'pipe', left: n, right: this.postfixBody() };
    }
    return n;
  }

  // ---- destructuring patterns --------------------------------------------------------------

  private patterns(): Pattern[] {
    const out = [this.pattern()];
    // `?//` separates alternative patterns; the lexer may also see `?` `//`.
    for (;;) {
      if (this.isOp('?//')) {
        this.next();
        out.push(this.pattern());
        continue;
      }
      if (this.isOp('?')) {
        const after = this.peek2();
        if (after.type === 'op' && after.value === '//' && after.start === this.tok.end) {
          this.next();
          this.next();
          out.push(this.pattern());
          continue;
        }
      }
      return out;
    }
  }

  private pattern(): Pattern {
    return this.guard((): Pattern => {
      const t = this.tok;
      if (t.type === 'var') {
        this.next();
        return { t: 'pvar', name: t.value.slice(1) };
      }
      if (this.isOp('[')) {
        this.next();
        const items = [this.pattern()];
        while (this.isOp(',')) {
          this.next();
          items.push(this.pattern());
        }
        this.expectOp(']');
        return { t: 'parray', items };
      }
      if (this.isOp('{')) {
        this.next();
        const entries = [this.objectPatternEntry()];
        while (this.isOp(',')) {
          this.next();
          entries.push(this.objectPatternEntry());
        }
        this.expectOp('}');
        return { t: 'pobject', entries };
      }
      this.fail();
    });
  }

  private objectPatternEntry(): { key: Node; bind?: string; pattern?: Pattern } {
    const t = this.tok;
    if (t.type === 'var') {
      this.next();
      const name = t.value.slice(1);
      const key: Node = { t: 'literal', v: name };
      if (this.isOp(':')) {
        this.next();
        return { key, bind: name, pattern: this.pattern() };
      }
      return { key, bind: name };
    }
    let key: Node;
    if (t.type === 'ident' && !t.value.includes('::')) {
      this.next();
      key = { t: 'literal', v: t.value };
    } else if (t.type === 'string') {
      key = this.stringToken();
    } else if (this.isOp('(')) {
      this.next();
      key = this.pipe();
      this.expectOp(')');
    } else {
      this.fail();
    }
    this.expectOp(':');
    return { key, pattern: this.pattern() };
  }
}

const ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/** Parses `query` into a program; throws JqSyntaxError when it is not valid jq. */
export function parseJq(query: string): Program {
  const lexer = new Lexer(query);
  try {
    return new Parser(lexer, 0, query.length).program();
  } catch (err) {
    // Pathologically nested string interpolations exhaust the stack before the depth guard.
    if (err instanceof RangeError) throw new JqSyntaxError('query is nested too deeply', 0);
    throw err;
  }
}
