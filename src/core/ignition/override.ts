// Ignition overrides (core.md §8.2): validation of user text and the merge of an override into a
// base config. Used for the discovery ignition (internal then user override) and for per-host
// install-time / day-2 pointer ignitions.

import { canonicalJson } from './encoding.ts';
import { mergeIgnitionConfigs } from './merge.ts';
import { checkIgnitionValue, type ParsedIgnition, parseIgnition } from './parse.ts';
import type { IgnitionConfig, IgnitionResult } from './types.ts';

/**
 * Validates override text as given on create/update. Empty text means "no override" and is valid.
 * Returns undefined when valid, else the 400 message ("error parsing ignition: ...") and details.
 */
export function validateIgnitionOverride(
  text: string | undefined | null,
): { error: string; details: string[] } | undefined {
  if (!text) return undefined;
  const parsed = parseIgnition(text);
  return parsed.ok ? undefined : { error: parsed.error, details: parsed.details ?? [] };
}

export interface MergedIgnition {
  config: IgnitionConfig;
  /** Canonical JSON (stable key order) of the merged config. */
  json: string;
}

/**
 * Merges `override` (text) over `base` (a parsed config or ignition text). The result carries the
 * override's version (so 3.2.0 upgrades a 3.1.0 base and 3.1.0 downgrades a 3.2.0 base) and is
 * re-validated: a fatal problem fails with "merged ignition config is invalid: ...".
 */
export function applyIgnitionOverride(
  base: IgnitionConfig | string,
  override: string,
): IgnitionResult<MergedIgnition> {
  let baseConfig: IgnitionConfig;
  if (typeof base === 'string') {
    const parsedBase = parseIgnition(base);
    if (!parsedBase.ok) return parsedBase;
    baseConfig = parsedBase.value.config;
  } else {
    baseConfig = base;
  }
  const parsedOverride = parseIgnition(override);
  if (!parsedOverride.ok) return parsedOverride;
  const merged = mergeIgnitionConfigs(baseConfig, parsedOverride.value.config);
  const recheck: IgnitionResult<ParsedIgnition> = checkIgnitionValue(JSON.parse(JSON.stringify(merged)));
  if (!recheck.ok) {
    const details = recheck.details ?? [];
    return {
      ok: false,
      error: `merged ignition config is invalid: ${[recheck.error, ...details].join('; ')}`,
      details,
    };
  }
  return { ok: true, value: { config: merged, json: canonicalJson(merged) } };
}
