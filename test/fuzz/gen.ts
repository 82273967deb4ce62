// Structure-aware generators of bad input for the fuzz suites: wrong types, huge strings and
// arrays, deep nesting, unicode, boundary numbers and mutations of valid objects. Deterministic:
// every case comes from a seeded PRNG (src/sim/prng.ts), so a failure is reproduced by its seed.

import { seededRandom } from '../../src/sim/prng.ts';

/** Seed of a target: FUZZ_SEED when set (to replay a failure), else the target's fixed seed. */
export function seedFor(fixed: number): number {
  const fromEnv = process.env.FUZZ_SEED;
  return fromEnv !== undefined && fromEnv !== '' ? Number(fromEnv) >>> 0 : fixed;
}

/** Cases per target: the suite's default times FUZZ_SCALE (e.g. 0.1 for a quick local run). */
export function casesFor(defaultCount: number): number {
  const scale = Number(process.env.FUZZ_SCALE ?? '1');
  return Math.max(1, Math.round(defaultCount * (Number.isFinite(scale) && scale > 0 ? scale : 1)));
}

/** What a suite prints for the lead to quote: target, cases, seed, failures. */
export interface FuzzFigures {
  target: string;
  cases: number;
  seed: number;
  failures: number;
  ms: number;
}

export function printFigures(suite: string, figures: FuzzFigures[]): void {
  const total = figures.reduce((n, f) => n + f.cases, 0);
  const failed = figures.reduce((n, f) => n + f.failures, 0);
  const lines = figures.map(
    (f) =>
      `  ${f.target.padEnd(34)} cases=${String(f.cases).padStart(5)} seed=${f.seed} failures=${f.failures} ${f.ms}ms`,
  );
  console.log(`[fuzz] ${suite}: ${total} cases, ${failed} failures\n${lines.join('\n')}`);
}

const UNICODE_SAMPLES = [
  '\u0000',
  '\u202e', // right-to-left override
  '\ud800', // lone surrogate
  '\udfff',
  '\ufeff', // byte-order mark
  'e\u0301', // combining accent
  '😀',
  '𝕏',
  '中文',
  'ǅ',
  '\u2028',
  '\r\n',
  '\t',
];

const SPECIAL_STRINGS = [
  '',
  ' ',
  'null',
  'undefined',
  'true',
  '0',
  '-1',
  'NaN',
  'Infinity',
  '1e309',
  '../../../../etc/passwd',
  '%00',
  '%',
  '%zz',
  '$' + '{jndi:ldap://x}',
  '<script>alert(1)</script>',
  '{"a":',
  '[]',
  '{}',
  "' OR 1=1 --",
  '__proto__',
  'constructor',
  'prototype',
  'x'.repeat(64),
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '::',
  '0.0.0.0/0',
  '256.256.256.256',
  'fe80::1%eth0',
  '52:54:00:zz:00:01',
  '-bad_domain..com',
];

const BOUNDARY_NUMBERS = [
  0,
  -0,
  1,
  -1,
  0.5,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31),
  2 ** 32,
  2 ** 53 - 1,
  2 ** 53 + 2,
  -(2 ** 63),
  2 ** 64,
  1e308,
  -1e308,
  Number.MIN_VALUE,
];

/** Sets an own property, even `__proto__` (which plain assignment turns into a prototype change). */
function setOwn(target: object, key: string | number, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

export class Fuzzer {
  private readonly random: () => number;
  readonly seed: number;

  constructor(seed: number) {
    this.seed = seed;
    this.random = seededRandom(seed);
  }

  int(n: number): number {
    return Math.floor(this.random() * n);
  }

  chance(p: number): boolean {
    return this.random() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }

  /** Mostly short strings; sometimes huge (up to `maxHuge` characters), unicode or special. */
  string(maxHuge = 70_000): string {
    switch (this.int(8)) {
      case 0:
        return this.pick(SPECIAL_STRINGS);
      case 1:
        return Array.from({ length: 1 + this.int(8) }, () => this.pick(UNICODE_SAMPLES)).join('');
      case 2:
        return this.pick(['a', 'A', '-', '.', ',', '/', '0', ' ', '\\']).repeat(1 + this.int(maxHuge));
      case 3: {
        // Random printable ASCII.
        const n = 1 + this.int(40);
        return String.fromCharCode(...Array.from({ length: n }, () => 32 + this.int(95)));
      }
      case 4: {
        // Random code points, including control characters and astral planes.
        const n = 1 + this.int(12);
        return String.fromCodePoint(...Array.from({ length: n }, () => this.int(0x110000 - 0x800)));
      }
      default:
        return this.pick(['master', 'worker', 'x86_64', 'full-iso', 'example.com', 'eth0', '10.0.0.1']);
    }
  }

  number(): number {
    return this.chance(0.7) ? this.pick(BOUNDARY_NUMBERS) : (this.random() - 0.5) * 10 ** this.int(20);
  }

  /** Nested arrays or objects `depth` levels deep. */
  deep(depth: number): unknown {
    let v: unknown = this.chance(0.5) ? 1 : 'x';
    const asArray = this.chance(0.5);
    for (let i = 0; i < depth; i++) v = asArray ? [v] : { a: v };
    return v;
  }

  /** JSON text nested `depth` levels deep (deeper than JSON.stringify can write). */
  deepText(depth: number): string {
    return this.chance(0.5)
      ? `${'['.repeat(depth)}1${']'.repeat(depth)}`
      : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  }

  /** Any JSON value (of a random type), nested at most `depth` levels. */
  value(depth = 3): unknown {
    switch (this.int(depth > 0 ? 9 : 5)) {
      case 0:
        return null;
      case 1:
        return this.chance(0.5);
      case 2:
        return this.number();
      case 3:
      case 4:
        return this.string(this.chance(0.1) ? 300_000 : 5_000);
      case 5:
        return Array.from({ length: this.int(5) }, () => this.value(depth - 1));
      case 6:
        return Array.from({ length: this.pick([0, 1, 1_000, 30_000]) }, () => this.pick([0, 'x', null, {}]));
      case 7:
        return this.deep(this.pick([10, 200, 1_000]));
      default: {
        const o: Record<string, unknown> = {};
        for (let i = this.int(5); i > 0; i--) setOwn(o, this.string(40), this.value(depth - 1));
        return o;
      }
    }
  }

  /**
   * A copy of `base` with one to three fields replaced (by a value of another type, a huge string,
   * a deep structure, …), removed or added, at any depth. Keeps the rest valid so the input gets
   * past the first checks and exercises the deeper ones.
   */
  mutate<T>(base: T): T {
    const copy = structuredClone(base) as unknown;
    const edits = 1 + this.int(3);
    for (let i = 0; i < edits; i++) this.mutateOnce(copy);
    return copy as T;
  }

  private mutateOnce(root: unknown): void {
    const containers: { parent: Record<string, unknown> | unknown[]; key: string | number }[] = [];
    const walk = (node: unknown, depth: number) => {
      if (depth > 8 || node === null || typeof node !== 'object') return;
      // The first few entries of each node: huge lists the generator added need not all be visited.
      const entries: [string | number, unknown][] = Array.isArray(node)
        ? Array.from(node.slice(0, 16), (v, i) => [i, v]) // sparse lists: holes read as undefined
        : Object.keys(node)
            .slice(0, 16)
            .map((k) => [k, (node as Record<string, unknown>)[k]]);
      for (const [k, v] of entries) {
        containers.push({ parent: node as Record<string, unknown>, key: k });
        walk(v, depth + 1);
      }
    };
    walk(root, 0);
    if (containers.length === 0 || root === null || typeof root !== 'object') return;
    const { parent, key } = this.pick(containers);
    const slot = parent as Record<string | number, unknown>;
    switch (this.int(4)) {
      case 0:
        if (Array.isArray(parent)) parent.splice(key as number, 1);
        else delete slot[key];
        return;
      case 1:
        setOwn(slot, `${String(key)}${this.pick(['', 'X', '_', '.'])}${this.int(10)}`, this.value(2));
        return;
      default:
        setOwn(slot, key, this.value(2));
    }
  }

  /** Raw request bodies that are not (valid) JSON. */
  rawBody(): string {
    switch (this.int(7)) {
      case 0:
        return '';
      case 1:
        return '{'.repeat(1 + this.int(100_000));
      case 2:
        return '['.repeat(50_000) + ']'.repeat(50_000);
      case 3:
        return `\ufeff${JSON.stringify(this.value(2))}`;
      case 4:
        return JSON.stringify(this.value(2)).slice(0, -1);
      case 5:
        return this.string(200_000);
      default:
        return JSON.stringify(this.value(3));
    }
  }
}
