// Parsing user-supplied ignition text the way upstream's ParseToLatest does: the text must be an
// Ignition 3.2.0 or 3.1.0 config (nothing else, not 3.0 or 3.3+), well typed, and pass the
// semantic checks in validate.ts. Unknown keys are ignored with a warning, as Ignition does.

import { configSpec, type FieldSpec, type StructSpec } from './schema.ts';
import type { IgnitionConfig, IgnitionResult, IgnitionVersion } from './types.ts';
import { validateConfig } from './validate.ts';

export const SUPPORTED_IGNITION_VERSIONS: readonly IgnitionVersion[] = ['3.2.0', '3.1.0'];

export const IGNITION_ERRORS = {
  empty: 'not a config (empty)',
  invalid: 'config is not valid',
  unknownVersion: 'unsupported config version',
} as const;

export interface ParsedIgnition {
  config: IgnitionConfig;
  version: IgnitionVersion;
  /** Non-fatal findings (unknown keys). */
  warnings: string[];
}

/** Parses and validates an ignition config; errors read "error parsing ignition: <reason>". */
export function parseIgnition(text: string): IgnitionResult<ParsedIgnition> {
  const result = parseIgnitionRaw(text);
  if (!result.ok) return { ...result, error: `error parsing ignition: ${result.error}` };
  return result;
}

function parseIgnitionRaw(text: string): IgnitionResult<ParsedIgnition> {
  if (text.length === 0) return { ok: false, error: IGNITION_ERRORS.empty };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: IGNITION_ERRORS.invalid, details: [(err as Error).message] };
  }
  return checkIgnitionValue(raw);
}

/** Same checks as parseIgnition for an already-decoded JSON value (no message prefix). */
export function checkIgnitionValue(raw: unknown): IgnitionResult<ParsedIgnition> {
  const problems: string[] = [];
  const warnings: string[] = [];
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, error: IGNITION_ERRORS.invalid, details: ['$: expected an object'] };
  }
  const versionValue = (raw as { ignition?: { version?: unknown } }).ignition?.version;
  const version =
    typeof versionValue === 'string' && (SUPPORTED_IGNITION_VERSIONS as string[]).includes(versionValue)
      ? (versionValue as IgnitionVersion)
      : undefined;
  const typed = coerceStruct(raw, configSpec, '$', version ?? '3.2.0', problems, warnings);
  if (problems.length > 0) return { ok: false, error: IGNITION_ERRORS.invalid, details: problems };
  if (!version) return { ok: false, error: IGNITION_ERRORS.unknownVersion };
  const config = typed as unknown as IgnitionConfig;
  const fatal = validateConfig(config);
  if (fatal.length > 0) return { ok: false, error: IGNITION_ERRORS.invalid, details: fatal };
  return { ok: true, value: { config, version, warnings } };
}

/**
 * Copies the fields the schema knows into a fresh object, checking JSON types. `null` means
 * "not set" (Go decodes it to nil / zero), unknown keys become warnings.
 */
function coerceStruct(
  raw: unknown,
  spec: StructSpec,
  path: string,
  version: IgnitionVersion,
  problems: string[],
  warnings: string[],
): Record<string, unknown> | undefined {
  if (raw === null || raw === undefined) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    problems.push(`${path}: expected an object`);
    return undefined;
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const field = spec.fields[key];
    const only32 = spec.since32?.includes(key) && version === '3.1.0';
    if (!field || only32) {
      warnings.push(`${path}.${key}: unused key`);
      continue;
    }
    const coerced = coerceField(value, field, `${path}.${key}`, version, problems, warnings);
    if (coerced !== undefined) out[key] = coerced;
  }
  return out;
}

function coerceField(
  value: unknown,
  spec: FieldSpec,
  path: string,
  version: IgnitionVersion,
  problems: string[],
  warnings: string[],
): unknown {
  if (value === null || value === undefined) return undefined;
  switch (spec.kind) {
    case 'primitive': {
      const ok =
        spec.type === 'string'
          ? typeof value === 'string'
          : spec.type === 'boolean'
            ? typeof value === 'boolean'
            : typeof value === 'number' && Number.isInteger(value);
      if (!ok) problems.push(`${path}: expected ${spec.type}`);
      return ok ? value : undefined;
    }
    case 'struct':
      return coerceStruct(value, spec, path, version, problems, warnings);
    case 'list': {
      if (!Array.isArray(value)) {
        problems.push(`${path}: expected a list`);
        return undefined;
      }
      return value.map((item, i) => {
        const coerced = coerceField(item, spec.item, `${path}.${i}`, version, problems, warnings);
        // A null list entry decodes to the zero value of the element type.
        if (coerced !== undefined) return coerced;
        return zeroValue(spec.item);
      });
    }
  }
}

function zeroValue(spec: FieldSpec): unknown {
  if (spec.kind === 'struct') return {};
  if (spec.kind === 'list') return [];
  return spec.type === 'string' ? '' : spec.type === 'boolean' ? false : 0;
}
