// A small JSON reader for override documents. Unlike JSON.parse it keeps numbers as written (Go
// decides int-vs-float from the literal), keeps duplicate keys in order (Go decodes each in turn),
// reads only the first value of the text (as Go's json.Decoder does) and reports line and column.

export type JsonNode =
  | { type: 'null' }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'number'; raw: string }
  | { type: 'array'; items: JsonNode[] }
  | { type: 'object'; entries: [string, JsonNode][] };

export class JsonSyntaxError extends Error {
  override name = 'JsonSyntaxError';
  readonly line: number;
  readonly column: number;

  constructor(message: string, line: number, column: number) {
    super(`${message} at line ${line}, column ${column}`);
    this.line = line;
    this.column = column;
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

class Reader {
  private pos = 0;
  private readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  fail(message: string, at = this.pos): never {
    const before = this.text.slice(0, at);
    const line = before.split('\n').length;
    const column = at - before.lastIndexOf('\n');
    throw new JsonSyntaxError(message, line, column);
  }

  private skipSpace(): void {
    while (this.pos < this.text.length && ' \t\r\n'.includes(this.text[this.pos] as string)) this.pos++;
  }

  private describeHere(): string {
    const ch = this.text[this.pos];
    return ch === undefined ? 'end of input' : `character ${JSON.stringify(ch)}`;
  }

  value(): JsonNode {
    this.skipSpace();
    const ch = this.text[this.pos];
    if (ch === '{') return this.object();
    if (ch === '[') return this.array();
    if (ch === '"') return { type: 'string', value: this.string() };
    if (ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9')) return this.number();
    for (const [word, node] of [
      ['true', { type: 'bool', value: true }],
      ['false', { type: 'bool', value: false }],
      ['null', { type: 'null' }],
    ] as const) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return node;
      }
    }
    return this.fail(`unexpected ${this.describeHere()} where a value should start`);
  }

  private object(): JsonNode {
    this.pos++;
    const entries: [string, JsonNode][] = [];
    this.skipSpace();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return { type: 'object', entries };
    }
    for (;;) {
      this.skipSpace();
      if (this.text[this.pos] !== '"') this.fail(`expected a quoted key but found ${this.describeHere()}`);
      const key = this.string();
      this.skipSpace();
      if (this.text[this.pos] !== ':')
        this.fail(`expected ':' after key "${key}" but found ${this.describeHere()}`);
      this.pos++;
      entries.push([key, this.value()]);
      this.skipSpace();
      const sep = this.text[this.pos];
      this.pos++;
      if (sep === '}') return { type: 'object', entries };
      if (sep !== ',') this.fail(`expected ',' or '}' after the value of "${key}"`, this.pos - 1);
    }
  }

  private array(): JsonNode {
    this.pos++;
    const items: JsonNode[] = [];
    this.skipSpace();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return { type: 'array', items };
    }
    for (;;) {
      items.push(this.value());
      this.skipSpace();
      const sep = this.text[this.pos];
      this.pos++;
      if (sep === ']') return { type: 'array', items };
      if (sep !== ',') this.fail(`expected ',' or ']' after array element ${items.length - 1}`, this.pos - 1);
    }
  }

  private string(): string {
    const start = this.pos;
    this.pos++;
    let out = '';
    for (;;) {
      const ch = this.text[this.pos];
      if (ch === undefined) this.fail('unterminated string', start);
      if (ch === '"') {
        this.pos++;
        return out;
      }
      if (ch < ' ') this.fail('control character in string');
      if (ch === '\\') {
        const esc = this.text[this.pos + 1] ?? '';
        if (esc === 'u') {
          const hex = this.text.slice(this.pos + 2, this.pos + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('invalid \\u escape in string');
          out += String.fromCharCode(Number.parseInt(hex, 16));
          this.pos += 6;
          continue;
        }
        const decoded = ESCAPES[esc];
        if (decoded === undefined) this.fail(`invalid escape "\\${esc}" in string`);
        out += decoded;
        this.pos += 2;
        continue;
      }
      out += ch;
      this.pos++;
    }
  }

  private number(): JsonNode {
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(this.text.slice(this.pos));
    if (!m) return this.fail('invalid number');
    this.pos += m[0].length;
    return { type: 'number', raw: m[0] };
  }
}

/** Parses the first JSON value of `text`; anything after it is ignored, as Go's Decoder does. */
export function parseFirstJsonValue(text: string): JsonNode {
  if (text.trim() === '') throw new JsonSyntaxError('empty document', 1, 1);
  return new Reader(text).value();
}

/** Short description of a node's JSON type for messages ("string \"3\"", "number 1.5", "object"). */
export function describeJsonNode(node: JsonNode): string {
  switch (node.type) {
    case 'null':
      return 'null';
    case 'bool':
      return `boolean ${node.value}`;
    case 'string':
      return `string ${JSON.stringify(node.value.length > 40 ? `${node.value.slice(0, 40)}…` : node.value)}`;
    case 'number':
      return `number ${node.raw}`;
    case 'array':
      return 'array';
    case 'object':
      return 'object';
  }
}
