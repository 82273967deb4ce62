import type { Json } from './ast.ts';

// Errors of the jq module. JqError is what `try` catches; the budget error is deliberately not a
// JqError, so a query cannot catch its own exhaustion and keep running.

export class JqError extends Error {
  override name = 'JqError';
  /** Offset in the query where the problem was found (syntax and compile errors). */
  readonly offset: number;
  /** The value `error(v)` raised, which `catch` receives (the message otherwise). */
  readonly value: Json | undefined;

  constructor(message: string, offset = 0, value?: Json) {
    super(message);
    this.offset = offset;
    this.value = value;
  }
}

export class JqSyntaxError extends JqError {
  override name = 'JqSyntaxError';
}

/** A query ran out of its evaluation budget (steps or recursion depth). */
export class JqBudgetError extends Error {
  override name = 'JqBudgetError';
}
