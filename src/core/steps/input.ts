// What every step builder receives, plus small shared helpers.

import type { Cluster, Host, InfraEnv } from '../model.ts';
import type { StepArgs, StepsOptions } from './types.ts';

export interface StepInput {
  host: Host;
  cluster: Cluster | undefined;
  infraEnv: InfraEnv;
  options: StepsOptions;
}

export type StepBuilder = (input: StepInput) => StepArgs;

export const skip = (reason: string): StepArgs => ({ skip: true, reason });
export const fail = (error: string): StepArgs => ({ error });
/** One argument holding a JSON document (most steps take exactly that). */
export const jsonArg = (value: unknown): StepArgs => ({ args: [JSON.stringify(value)] });

/** Comma list → trimmed, non-empty, de-duplicated items in first-seen order. */
export function splitUnique(...lists: (string | undefined)[]): string[] {
  const out: string[] = [];
  for (const list of lists) {
    for (const item of (list ?? '').split(',')) {
      const s = item.trim();
      if (s !== '' && !out.includes(s)) out.push(s);
    }
  }
  return out;
}

/** An inventory address without its prefix length ("10.0.0.5/24" → "10.0.0.5"). */
export function stripPrefix(address: string): string {
  const slash = address.indexOf('/');
  return slash < 0 ? address : address.slice(0, slash);
}
