// The compile step after parsing, as gojq does it: every function call must name a defined function
// of that arity, every `$name` a bound variable, every `break` a label in scope, and modules cannot
// be loaded. A query that compiles can be evaluated; the admission webhook runs exactly this check.

import type { Node, Pattern, Program } from './ast.ts';
import { builtinNames } from './builtins.ts';
import { JqError } from './errors.ts';
import { patternVars } from './evaluate.ts';
import { FORMAT_NAMES } from './formats.ts';

/** Names in scope: `name/arity` for functions, `$name` for variables, `*label*name` for labels. */
type Names = ReadonlySet<string>;

const GLOBAL_VARS = ['$ENV', '$__loc__'];

function withNames(names: Names, added: Iterable<string>): Names {
  const next = new Set(names);
  for (const n of added) next.add(n);
  return next;
}

export function checkProgram(program: Program): void {
  const [first] = program.imports;
  if (first) throw new JqError(`module not found: ${JSON.stringify(first.path)}`, first.at);
  check(program.body, withNames(new Set(builtinNames()), GLOBAL_VARS));
}

function checkPattern(p: Pattern, names: Names): void {
  if (p.t === 'parray') for (const item of p.items) checkPattern(item, names);
  if (p.t === 'pobject') {
    for (const e of p.entries) {
      check(e.key, names);
      if (e.pattern) checkPattern(e.pattern, names);
    }
  }
}

function bindNames(patterns: Pattern[], names: Names): Names {
  for (const p of patterns) checkPattern(p, names);
  return withNames(
    names,
    patterns.flatMap(patternVars).map((v) => `$${v}`),
  );
}

function check(n: Node, names: Names): void {
  switch (n.t) {
    case 'call':
      if (!names.has(`${n.name}/${n.args.length}`)) {
        throw new JqError(`function not defined: ${n.name}/${n.args.length}`, n.at);
      }
      for (const a of n.args) check(a, names);
      return;
    case 'var':
      if (!names.has(`$${n.name}`)) throw new JqError(`variable not defined: $${n.name}`, n.at);
      return;
    case 'break':
      if (!names.has(`*label*${n.name}`)) throw new JqError(`label not defined: $${n.name}`, n.at);
      return;
    case 'format':
    case 'string':
      if ((n.t === 'format' || n.format) && !FORMAT_NAMES.has(n.t === 'format' ? n.name : n.format!)) {
        throw new JqError(`format not defined: @${n.t === 'format' ? n.name : n.format}`);
      }
      if (n.t === 'string') for (const p of n.parts) if (typeof p !== 'string') check(p, names);
      return;
    case 'def': {
      const self = `${n.def.name}/${n.def.params.length}`;
      const params = n.def.params.flatMap((p) => (p.startsWith('$') ? [p, `${p.slice(1)}/0`] : [`${p}/0`]));
      check(n.def.body, withNames(names, [self, ...params]));
      check(n.rest, withNames(names, [self]));
      return;
    }
    case 'bind':
      check(n.source, names);
      check(n.body, bindNames(n.patterns, names));
      return;
    case 'reduce':
    case 'foreach': {
      check(n.source, names);
      check(n.init, names);
      const inner = bindNames([n.pattern], names);
      check(n.update, inner);
      if (n.t === 'foreach' && n.extract) check(n.extract, inner);
      return;
    }
    case 'label':
      check(n.body, withNames(names, [`*label*${n.name}`]));
      return;
    default:
      for (const child of children(n)) check(child, names);
  }
}

function children(n: Node): Node[] {
  switch (n.t) {
    case 'index':
      return [n.of, n.key];
    case 'slice':
      return [n.of, ...(n.from ? [n.from] : []), ...(n.to ? [n.to] : [])];
    case 'iterate':
    case 'neg':
      return [n.of];
    case 'try':
      return [n.body, ...(n.handler ? [n.handler] : [])];
    case 'pipe':
    case 'comma':
    case 'alt':
    case 'assign':
    case 'and':
    case 'or':
    case 'binop':
      return [n.left, n.right];
    case 'array':
      return n.of ? [n.of] : [];
    case 'object':
      return n.entries.flatMap((e) => [e.key, e.value]);
    case 'if':
      return [...n.branches.flatMap((b) => [b.cond, b.body]), ...(n.else ? [n.else] : [])];
    default:
      return [];
  }
}
