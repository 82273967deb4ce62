// One jq for the project: the AgentClassification webhook admits a query exactly when it compiles
// here, and the AgentLabel controller evaluates it here, so admission accepts what can be run.
// Upstream embeds gojq; this follows gojq's grammar, compile checks and value semantics for the
// builtins listed in docs/compatibility.md.

import type { Json } from './ast.ts';
import { ROOT_SCOPE } from './builtins.ts';
import { checkProgram } from './compile.ts';
import { JqBudgetError, JqError } from './errors.ts';
import { DEFAULT_LIMITS, evaluate, type Limits } from './evaluate.ts';
import { parseJq } from './syntax.ts';

export { JqBudgetError, JqError, JqSyntaxError } from './errors.ts';
export { DEFAULT_LIMITS, type Limits } from './evaluate.ts';

export interface CompiledJq {
  /** Lazily runs the query on a JSON value; throws JqError (runtime) or JqBudgetError. */
  outputs(input: unknown, limits?: Limits): Generator<Json>;
}

/** Parses and compiles a query; throws JqError (or JqSyntaxError) when it cannot run. */
export function compileJq(query: string): CompiledJq {
  const program = parseJq(query);
  checkProgram(program);
  return {
    *outputs(input, limits = DEFAULT_LIMITS) {
      const ctx = { steps: 0, depth: 0, limits };
      const json = JSON.parse(JSON.stringify(input ?? null)) as Json;
      try {
        for (const o of evaluate(ctx, program.body, { v: json, p: null }, ROOT_SCOPE)) yield o.v;
      } catch (err) {
        // Deep recursion in a query exhausts the native stack before the depth bound.
        if (err instanceof RangeError)
          throw new JqBudgetError('query exceeded its stack budget (calls nested too deeply)');
        throw err;
      }
    },
  };
}

/**
 * undefined when the query compiles, otherwise why not (a JqSyntaxError when it does not parse):
 * what the admission webhook reports.
 */
export function jqQueryError(query: string): JqError | undefined {
  try {
    compileJq(query);
    return undefined;
  } catch (err) {
    if (err instanceof JqError) return err;
    throw err;
  }
}

export type ClassificationResult =
  | { kind: 'match' }
  | { kind: 'no-match' }
  | { kind: 'error'; message: string };

/**
 * Upstream's reading of a classification query: exactly one boolean `true` matches; a single false
 * or non-boolean does not; no output, several outputs, or an error are query errors. At most two
 * outputs are computed.
 */
export function classify(
  query: string,
  inventory: unknown,
  limits: Limits = DEFAULT_LIMITS,
): ClassificationResult {
  const outputs: Json[] = [];
  try {
    for (const v of compileJq(query).outputs(inventory, limits)) {
      outputs.push(v);
      if (outputs.length > 1) break;
    }
  } catch (err) {
    if (err instanceof JqError || err instanceof JqBudgetError)
      return { kind: 'error', message: err.message };
    throw err;
  }
  if (outputs.length === 0) return { kind: 'error', message: 'Expected boolean, found no values' };
  if (outputs.length > 1) return { kind: 'error', message: 'Expected one value, found more' };
  return outputs[0] === true ? { kind: 'match' } : { kind: 'no-match' };
}
