// Run host validations and pick one outcome.

import { validateHost } from '../../../../src/core/validations/host.ts';
import type { HostValidationInput } from '../../../../src/core/validations/host-context.ts';

export function run(input: HostValidationInput) {
  return validateHost(input);
}

/** [status, message] of one validation. */
export function outcome(input: HostValidationInput, id: string): [string, string] {
  const o = validateHost(input).outcomes.find((x) => x.id === id);
  if (!o) throw new Error(`no outcome ${id}`);
  return [o.status, o.message];
}

export function condition(input: HostValidationInput, id: string): boolean | undefined {
  return validateHost(input).conditions[id];
}
