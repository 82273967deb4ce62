// jq's regular-expression builtins on JavaScript's RegExp (jq uses Oniguruma; named groups, classes
// and the `g`, `i`, `x`, `n` flags carry over; offsets are in code units).

import type { Json } from './ast.ts';
import { JqError } from './errors.ts';
import { type Closure, type Ctx, evaluate, type NativeFn, valuesOf } from './evaluate.ts';
import { describe, type JsonObject } from './values.ts';

interface Compiled {
  re: RegExp;
  global: boolean;
  skipEmpty: boolean;
}

const cache = new Map<string, Compiled>();

function compile(pattern: Json, flags: Json): Compiled {
  if (typeof pattern !== 'string')
    throw new JqError(`${describe(pattern)} cannot be matched, as it is not a string`);
  const f = flags === null ? '' : flags;
  if (typeof f !== 'string' || /[^gimnpslx]/.test(f))
    throw new JqError(`${describe(flags)} is not a valid modifier string`);
  const key = `${f}\u0000${pattern}`;
  let c = cache.get(key);
  if (!c) {
    // `x`: whitespace and #-comments are not part of the pattern (escaped characters are kept).
    const source = f.includes('x')
      ? pattern.replace(/\\.|#[^\n]*|\s+/g, (m) => (m.startsWith('\\') ? m : ''))
      : pattern;
    try {
      c = {
        re: new RegExp(source, `d${f.includes('i') ? 'i' : ''}${f.includes('p') ? 's' : ''}`),
        global: f.includes('g'),
        skipEmpty: f.includes('n'),
      };
    } catch (err) {
      throw new JqError(`${pattern} (at offset 0) is not a valid regex: ${(err as Error).message}`);
    }
    if (cache.size > 256) cache.clear();
    cache.set(key, c);
  }
  return c;
}

function matches(input: Json, pattern: Json, flags: Json, forceGlobal = false): JsonObject[] {
  if (typeof input !== 'string')
    throw new JqError(`${describe(input)} cannot be matched, as it is not a string`);
  const { re, global, skipEmpty } = compile(pattern, flags);
  const out: JsonObject[] = [];
  const r = new RegExp(re.source, `${re.flags}g`);
  for (let m = r.exec(input); m; m = r.exec(input)) {
    if (m[0] === '') r.lastIndex++;
    if (!(skipEmpty && m[0] === '')) out.push(matchObject(m, r));
    if (!global && !forceGlobal) break;
    if (r.lastIndex > input.length) break;
  }
  return out;
}

function matchObject(m: RegExpExecArray, re: RegExp): JsonObject {
  const names = groupNames(re);
  const captures = m.slice(1).map((text, i) => {
    const at = m.indices?.[i + 1];
    return {
      offset: at ? at[0] : -1,
      length: text?.length ?? 0,
      string: text ?? null,
      name: names[i] ?? null,
    };
  });
  return { offset: m.index, length: m[0].length, string: m[0], captures };
}

/** Names of the capture groups in order (null for unnamed groups). */
function groupNames(re: RegExp): Array<string | null> {
  const names: Array<string | null> = [];
  const src = re.source;
  for (let i = 0; i < src.length; i++) {
    if (src[i] === '\\') {
      i++;
      continue;
    }
    if (src[i] !== '(') continue;
    if (src[i + 1] !== '?') names.push(null);
    else if (src[i + 2] === '<' && src[i + 3] !== '=' && src[i + 3] !== '!')
      names.push(/^\(\?<([^>]+)>/.exec(src.slice(i))![1]!);
  }
  return names;
}

function captureObject(m: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const c of m.captures as JsonObject[]) if (c.name !== null) out[c.name as string] = c.string!;
  return out;
}

function* withArgs(ctx: Ctx, args: Closure[], input: Json): Generator<[Json, Json]> {
  for (const re of valuesOf(ctx, args[0]!, input)) {
    if (args.length < 2) yield [re, null];
    else for (const flags of valuesOf(ctx, args[1]!, input)) yield [re, flags];
  }
}

function matchFn(project: (ms: JsonObject[]) => Json[], forceGlobal = false): NativeFn {
  return function* (ctx, input, args) {
    for (const [re, flags] of withArgs(ctx, args, input.v)) {
      for (const v of project(matches(input.v, re, flags, forceGlobal))) yield { v, p: null };
    }
  };
}

function subFn(global: boolean): NativeFn {
  return function* (ctx, input, args) {
    const [re, replacement, flagArg] = args as [Closure, Closure, Closure | undefined];
    const flagValues = flagArg ? [...valuesOf(ctx, flagArg, input.v)] : [null];
    for (const pattern of valuesOf(ctx, re, input.v)) {
      for (const flags of flagValues) {
        const f = `${typeof flags === 'string' ? flags : ''}${global ? 'g' : ''}`;
        const text = input.v as string;
        let out = '';
        let last = 0;
        for (const m of matches(text, pattern, f)) {
          const first = evaluate(
            ctx,
            replacement.node,
            { v: captureObject(m), p: null },
            replacement.scope,
          ).next();
          const rep = first.done ? '' : first.value.v;
          if (typeof rep !== 'string') throw new JqError(`${describe(rep)} cannot be added to a string`);
          out += text.slice(last, m.offset as number) + rep;
          last = (m.offset as number) + (m.length as number);
        }
        yield { v: out + text.slice(last), p: null };
      }
    }
  };
}

function splitFn(): NativeFn {
  return function* (ctx, input, args) {
    for (const [re, flags] of withArgs(ctx, args, input.v)) {
      const text = input.v as string;
      const parts: Json[] = [];
      let last = 0;
      for (const m of matches(text, re, flags, true)) {
        parts.push(text.slice(last, m.offset as number));
        last = (m.offset as number) + (m.length as number);
      }
      parts.push(text.slice(last));
      yield { v: parts, p: null };
    }
  };
}

export function regexBuiltins(): Record<string, NativeFn> {
  const test = matchFn((ms) => [ms.length > 0]);
  const match = matchFn((ms) => ms);
  const capture = matchFn((ms) => ms.map(captureObject));
  const scan = matchFn(
    (ms) =>
      ms.map((m) =>
        (m.captures as Json[]).length > 0 ? (m.captures as JsonObject[]).map((c) => c.string!) : m.string!,
      ),
    true,
  );
  return {
    'test/1': test,
    'test/2': test,
    'match/1': match,
    'match/2': match,
    'capture/1': capture,
    'capture/2': capture,
    'scan/1': scan,
    'scan/2': scan,
    'split/2': splitFn(),
    'sub/2': subFn(false),
    'sub/3': subFn(false),
    'gsub/2': subFn(true),
    'gsub/3': subFn(true),
  };
}
