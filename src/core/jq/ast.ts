// The syntax tree of a jq program, as the parser builds it and the evaluator walks it.

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export type Node =
  | { t: 'identity' }
  | { t: 'recurse' }
  | { t: 'literal'; v: Json }
  /** A string literal with `\(…)` interpolations, optionally under a format (`@base64 "…"`). */
  | { t: 'string'; parts: Array<string | Node>; format?: string }
  /** A format used as a filter (`@base64`). */
  | { t: 'format'; name: string }
  | { t: 'index'; of: Node; key: Node }
  | { t: 'slice'; of: Node; from?: Node; to?: Node }
  | { t: 'iterate'; of: Node }
  | { t: 'try'; body: Node; handler?: Node }
  | { t: 'pipe'; left: Node; right: Node }
  | { t: 'comma'; left: Node; right: Node }
  | { t: 'alt'; left: Node; right: Node }
  | { t: 'assign'; op: string; left: Node; right: Node }
  | { t: 'and' | 'or'; left: Node; right: Node }
  | { t: 'binop'; op: string; left: Node; right: Node }
  | { t: 'neg'; of: Node }
  | { t: 'array'; of?: Node }
  | { t: 'object'; entries: Array<{ key: Node; value: Node }> }
  | { t: 'if'; branches: Array<{ cond: Node; body: Node }>; else?: Node }
  | { t: 'call'; name: string; args: Node[]; at: number }
  | { t: 'var'; name: string; at: number }
  | { t: 'bind'; source: Node; patterns: Pattern[]; body: Node }
  | { t: 'reduce'; source: Node; pattern: Pattern; init: Node; update: Node }
  | { t: 'foreach'; source: Node; pattern: Pattern; init: Node; update: Node; extract?: Node }
  | { t: 'def'; def: FuncDef; rest: Node }
  | { t: 'label'; name: string; body: Node }
  | { t: 'break'; name: string; at: number };

/** `def name(params): body;` — a parameter starting with `$` is a value parameter. */
export interface FuncDef {
  name: string;
  params: string[];
  body: Node;
  at: number;
}

export type Pattern =
  | { t: 'pvar'; name: string }
  | { t: 'parray'; items: Pattern[] }
  | { t: 'pobject'; entries: Array<{ key: Node; bind?: string; pattern?: Pattern }> };

/** A parsed program: top-level module directives are refused by the compiler, not the parser. */
export interface Program {
  body: Node;
  /** `import`/`include` directives (no module loader exists, so the compiler refuses them). */
  imports: Array<{ path: string; at: number }>;
}
