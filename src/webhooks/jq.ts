// Syntax check for jq queries (the dialect gojq parses), used by the AgentClassification webhook:
// a query that does not parse is rejected at admission instead of labelling every Agent with a
// QUERYERROR value later. Only the grammar is checked; function names and arities are not (gojq's
// parser does not check them either, the compiler does).
//
// The grammar follows the jq manual: pipes, `,`, `//`, assignment operators (non-associative),
// `or`, `and`, comparisons (non-associative), `+ -`, `* / %`, unary minus, postfix terms with
// `.field`, `."string"`, `[...]` indexing/slicing/iteration and `?`, string interpolation `\(...)`,
// formats (`@base64 "..."`), arrays, objects (keys: identifiers, keywords, variables, strings,
// `(expr)`; values: `|`-chained terms), `if/elif/else/end`, `try/catch`, `reduce`, `foreach`,
// `label`/`break`, `def` (with filter and `$` parameters), `as` bindings with destructuring and
// `?//` alternatives, comments, and `import`/`include`/`module` directives.

export class JqSyntaxError extends Error {
  /** Offset in the query where the error was detected. */
  readonly offset: number;

  constructor(message: string, offset: number) {
    super(message);
    this.name = 'JqSyntaxError';
    this.offset = offset;
  }
}

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
  private depth = 0;

  constructor(lexer: Lexer, start: number, limit: number) {
    this.lexer = lexer;
    this.limit = limit;
    this.pos = start;
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
    if (++this.depth > 512) throw new JqSyntaxError('query is nested too deeply', this.tok.start);
    try {
      return fn();
    } finally {
      this.depth--;
    }
  }

  // ---- program -----------------------------------------------------------------------------

  program(): void {
    if (this.isKw('module')) {
      this.next();
      this.objectTerm();
      this.expectOp(';');
    }
    while (this.isKw('import') || this.isKw('include')) {
      const kind = this.next().value;
      if (this.tok.type !== 'string') this.fail();
      this.stringToken();
      if (kind === 'import') {
        this.expectKw('as');
        if (!this.isName(this.cur(), true)) this.fail();
        this.next();
      }
      if (this.isOp('{')) this.objectTerm();
      this.expectOp(';');
    }
    // A program may consist of function definitions only.
    while (this.isKw('def')) {
      this.funcDef();
    }
    if (this.tok.type !== 'eof') this.pipe();
    if (this.tok.type !== 'eof') this.fail();
  }

  /** Parses a complete query between `start` and `limit` (used for string interpolations). */
  static parseRange(lexer: Lexer, start: number, limit: number): void {
    const p = new Parser(lexer, start, limit);
    p.pipe();
    if (p.tok.type !== 'eof') p.fail();
  }

  // ---- expressions -------------------------------------------------------------------------

  pipe(): void {
    this.guard(() => {
      if (this.isKw('def')) {
        this.funcDef();
        this.pipe();
        return;
      }
      this.comma();
      if (this.isOp('|')) {
        this.next();
        this.pipe();
      }
    });
  }

  private comma(): void {
    this.alternative();
    while (this.isOp(',')) {
      this.next();
      this.alternative();
    }
  }

  private alternative(): void {
    this.assignment();
    if (this.isOp('//')) {
      this.next();
      this.alternative();
    }
  }

  private assignment(): void {
    this.or();
    if (this.tok.type === 'op' && ASSIGN_OPS.has(this.tok.value)) {
      this.next();
      this.or();
      if (this.tok.type === 'op' && ASSIGN_OPS.has(this.tok.value)) this.fail();
    }
  }

  private or(): void {
    this.and();
    while (this.isKw('or')) {
      this.next();
      this.and();
    }
  }

  private and(): void {
    this.comparison();
    while (this.isKw('and')) {
      this.next();
      this.comparison();
    }
  }

  private comparison(): void {
    this.additive();
    if (this.tok.type === 'op' && COMPARE_OPS.has(this.tok.value)) {
      this.next();
      this.additive();
      if (this.tok.type === 'op' && COMPARE_OPS.has(this.tok.value)) this.fail();
    }
  }

  private additive(): void {
    this.multiplicative();
    while (this.isOp('+') || this.isOp('-')) {
      this.next();
      this.multiplicative();
    }
  }

  private multiplicative(): void {
    this.unary();
    while (this.isOp('*') || this.isOp('/') || this.isOp('%')) {
      this.next();
      this.unary();
    }
  }

  private unary(): void {
    this.guard(() => {
      if (this.isOp('-')) {
        this.next();
        this.unary();
        return;
      }
      this.operand();
    });
  }

  /**
   * A postfix term, or one of the forms whose body extends as far right as possible:
   * `Term as Patterns | Pipe`, `def ...; Pipe` and `label $name | Pipe`.
   */
  private operand(): void {
    if (this.isKw('def')) {
      this.funcDef();
      this.pipe();
      return;
    }
    if (this.isKw('label')) {
      this.next();
      if (this.tok.type !== 'var') this.fail();
      this.next();
      this.expectOp('|');
      this.pipe();
      return;
    }
    this.postfixTerm();
    if (this.isKw('as')) {
      this.next();
      this.patterns();
      this.expectOp('|');
      this.pipe();
    }
  }

  private funcDef(): void {
    this.expectKw('def');
    if (!this.isName(this.cur(), false)) this.fail();
    this.next();
    if (this.isOp('(')) {
      this.next();
      for (;;) {
        if (!this.isName(this.cur(), true)) this.fail();
        this.next();
        if (this.isOp(';')) {
          this.next();
          continue;
        }
        this.expectOp(')');
        break;
      }
    }
    this.expectOp(':');
    this.pipe();
    this.expectOp(';');
  }

  // ---- terms -------------------------------------------------------------------------------

  private postfixTerm(): void {
    this.guard(() => {
      this.primary();
      this.suffixes();
    });
  }

  private suffixes(): void {
    for (;;) {
      const t = this.tok;
      if (t.type === 'field') {
        this.next();
      } else if (t.type === 'op' && t.value === '.') {
        // ."string" or .[...] after a term
        const n = this.peek2();
        if (n.type === 'string') {
          this.next();
          this.stringToken();
        } else if (n.type === 'op' && n.value === '[') {
          this.next();
          this.bracketSuffix();
        } else {
          this.fail(n);
        }
      } else if (t.type === 'op' && t.value === '[') {
        this.bracketSuffix();
      } else if (t.type === 'op' && t.value === '?') {
        // `?//` introduces a destructuring alternative, which only follows patterns.
        this.next();
      } else {
        return;
      }
    }
  }

  /** `[]`, `[e]`, `[e:]`, `[:e]`, `[e:e]`. */
  private bracketSuffix(): void {
    this.expectOp('[');
    if (this.isOp(']')) {
      this.next();
      return;
    }
    if (this.isOp(':')) {
      this.next();
      this.pipe();
      this.expectOp(']');
      return;
    }
    this.pipe();
    if (this.isOp(':')) {
      this.next();
      if (!this.isOp(']')) this.pipe();
    }
    this.expectOp(']');
  }

  private primary(): void {
    const t = this.tok;
    switch (t.type) {
      case 'field':
      case 'number':
      case 'var':
        this.next();
        return;
      case 'string':
        this.stringToken();
        return;
      case 'format':
        this.next();
        if (this.tok.type === 'string') this.stringToken();
        return;
      case 'op':
        this.primaryOp(t);
        return;
      case 'ident':
        this.primaryIdent(t);
        return;
      default:
        this.fail();
    }
  }

  private primaryOp(t: Token): void {
    switch (t.value) {
      case '.': {
        this.next();
        // `."foo"`; `.[...]` is handled as a suffix.
        if (this.tok.type === 'string') this.stringToken();
        return;
      }
      case '..':
        this.next();
        return;
      case '(':
        this.next();
        this.pipe();
        this.expectOp(')');
        return;
      case '[':
        this.next();
        if (!this.isOp(']')) this.pipe();
        this.expectOp(']');
        return;
      case '{':
        this.objectTerm();
        return;
      default:
        this.fail();
    }
  }

  private primaryIdent(t: Token): void {
    switch (t.value) {
      case 'if':
        this.ifTerm();
        return;
      case 'try':
        this.next();
        this.postfixBody();
        if (this.isKw('catch')) {
          this.next();
          this.postfixBody();
        }
        return;
      case 'reduce':
      case 'foreach': {
        this.next();
        this.postfixTerm();
        this.expectKw('as');
        this.patterns();
        this.expectOp('(');
        this.pipe();
        this.expectOp(';');
        this.pipe();
        if (t.value === 'foreach' && this.isOp(';')) {
          this.next();
          this.pipe();
        }
        this.expectOp(')');
        return;
      }
      case 'break':
        this.next();
        if (this.tok.type !== 'var') this.fail();
        this.next();
        return;
      case '__loc__':
        this.fail();
    }
    if (KEYWORDS.has(t.value)) this.fail();
    this.next();
    if (this.isOp('(')) {
      this.next();
      this.pipe();
      while (this.isOp(';')) {
        this.next();
        this.pipe();
      }
      this.expectOp(')');
    }
  }

  /** Bodies of `try` and `catch`: a postfix term, optionally negated. */
  private postfixBody(): void {
    if (this.isOp('-')) {
      this.next();
      this.postfixBody();
      return;
    }
    this.postfixTerm();
  }

  private ifTerm(): void {
    this.expectKw('if');
    this.pipe();
    this.expectKw('then');
    this.pipe();
    while (this.isKw('elif')) {
      this.next();
      this.pipe();
      this.expectKw('then');
      this.pipe();
    }
    if (this.isKw('else')) {
      this.next();
      this.pipe();
    }
    this.expectKw('end');
  }

  private stringToken(): void {
    const t = this.tok;
    if (t.type !== 'string') this.fail();
    for (const [from, to] of t.interpolations ?? []) Parser.parseRange(this.lexer, from, to);
    this.next();
  }

  private objectTerm(): void {
    this.expectOp('{');
    if (this.isOp('}')) {
      this.next();
      return;
    }
    for (;;) {
      this.objectEntry();
      if (this.isOp(',')) {
        this.next();
        continue;
      }
      this.expectOp('}');
      return;
    }
  }

  private objectEntry(): void {
    const t = this.tok;
    if (t.type === 'var') {
      // {$x}, {$__loc__} or {$x: value}
      this.next();
      if (this.isOp(':')) {
        this.next();
        this.objectValue();
      }
      return;
    }
    if (t.type === 'ident' && !t.value.includes('::')) {
      this.next();
    } else if (t.type === 'string') {
      this.stringToken();
    } else if (t.type === 'format') {
      this.next();
      if (this.tok.type === 'string') this.stringToken();
    } else if (t.type === 'op' && t.value === '(') {
      this.next();
      this.pipe();
      this.expectOp(')');
      this.expectOp(':');
      this.objectValue();
      return;
    } else {
      this.fail();
    }
    if (this.isOp(':')) {
      this.next();
      this.objectValue();
    }
  }

  /** Object values: `|`-chained postfix terms (binary operators need parentheses). */
  private objectValue(): void {
    this.postfixBody();
    while (this.isOp('|')) {
      this.next();
      this.postfixBody();
    }
  }

  // ---- destructuring patterns --------------------------------------------------------------

  private patterns(): void {
    this.pattern();
    // `?//` separates alternative patterns; the lexer may also see `?` `//`.
    for (;;) {
      if (this.isOp('?//')) {
        this.next();
        this.pattern();
        continue;
      }
      if (this.isOp('?')) {
        const n = this.peek2();
        if (n.type === 'op' && n.value === '//' && n.start === this.tok.end) {
          this.next();
          this.next();
          this.pattern();
          continue;
        }
      }
      return;
    }
  }

  private pattern(): void {
    this.guard(() => {
      const t = this.tok;
      if (t.type === 'var') {
        this.next();
        return;
      }
      if (this.isOp('[')) {
        this.next();
        this.pattern();
        while (this.isOp(',')) {
          this.next();
          this.pattern();
        }
        this.expectOp(']');
        return;
      }
      if (this.isOp('{')) {
        this.next();
        this.objectPatternEntry();
        while (this.isOp(',')) {
          this.next();
          this.objectPatternEntry();
        }
        this.expectOp('}');
        return;
      }
      this.fail();
    });
  }

  private objectPatternEntry(): void {
    const t = this.tok;
    if (t.type === 'var') {
      this.next();
      if (this.isOp(':')) {
        this.next();
        this.pattern();
      }
      return;
    }
    if (t.type === 'ident' && !t.value.includes('::')) {
      this.next();
    } else if (t.type === 'string') {
      this.stringToken();
    } else if (this.isOp('(')) {
      this.next();
      this.pipe();
      this.expectOp(')');
    } else {
      this.fail();
    }
    this.expectOp(':');
    this.pattern();
  }
}

/** Throws JqSyntaxError when `query` is not a syntactically valid jq program. */
export function parseJq(query: string): void {
  const lexer = new Lexer(query);
  new Parser(lexer, 0, query.length).program();
}

/** undefined when `query` parses, otherwise the parse error message. */
export function jqSyntaxError(query: string): string | undefined {
  try {
    parseJq(query);
    return undefined;
  } catch (err) {
    if (err instanceof JqSyntaxError) return err.message;
    // Pathologically nested string interpolations exhaust the stack before the depth guard.
    if (err instanceof RangeError) return 'query is nested too deeply';
    throw err;
  }
}
