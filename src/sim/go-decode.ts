// Decoding the way the Go clients do (encoding/json into go-swagger models): a value of the wrong
// JSON type anywhere in the model — read or not — fails the whole decode; unknown fields are
// ignored; null leaves the zero value; integers must be integral; strfmt.DateTime must parse.
// Enums, required fields and patterns are not checked on decode (go-swagger clients never call
// Validate on responses). The model shapes come from wire-models.ts, derived from upstream's
// definition.

import type { GoModel, GoType } from './go-types.ts';
import { WIRE_MODELS } from './wire-models.ts';

export type { GoModel, GoType };

const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$/;

function kind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function decodeValue(
  value: unknown,
  type: GoType,
  path: string,
  models: Readonly<Record<string, GoModel>>,
  out: string[],
): void {
  if (value === null) return;
  if (typeof type === 'string') {
    const actual = kind(value);
    const ok =
      type === 'any' ||
      (type === 'string' && actual === 'string') ||
      (type === 'boolean' && actual === 'boolean') ||
      (type === 'number' && actual === 'number') ||
      (type === 'integer' && actual === 'number' && Number.isInteger(value)) ||
      (type === 'date-time' && actual === 'string' && (value === '' || DATE_TIME.test(value as string)));
    if (!ok) out.push(`${path || '(body)'}: cannot decode ${JSON.stringify(value)?.slice(0, 80)} as ${type}`);
    return;
  }
  if ('array' in type) {
    if (!Array.isArray(value)) {
      out.push(`${path || '(body)'}: cannot decode ${kind(value)} as a list`);
      return;
    }
    value.forEach((item, i) => {
      decodeValue(item, type.array, `${path}[${i}]`, models, out);
    });
    return;
  }
  if ('map' in type) {
    if (kind(value) !== 'object') {
      out.push(`${path || '(body)'}: cannot decode ${kind(value)} as an object`);
      return;
    }
    for (const [k, v] of Object.entries(value as Record<string, unknown>))
      decodeValue(v, type.map, `${path}.${k}`, models, out);
    return;
  }
  const model = models[type.model];
  if (!model) throw new Error(`unknown wire model ${type.model}`);
  if ('type' in model) {
    decodeValue(value, model.type, path, models, out);
    return;
  }
  if (kind(value) !== 'object') {
    out.push(`${path || '(body)'}: cannot decode ${kind(value)} as ${type.model}`);
    return;
  }
  for (const [field, fieldType] of Object.entries(model.fields)) {
    const v = (value as Record<string, unknown>)[field];
    if (v !== undefined) decodeValue(v, fieldType, path ? `${path}.${field}` : field, models, out);
  }
}

/** Problems decoding `value` into the named model (empty when it decodes). */
export function goDecodeProblems(
  value: unknown,
  model: string,
  models: Readonly<Record<string, GoModel>> = WIRE_MODELS,
): string[] {
  const out: string[] = [];
  decodeValue(value, { model }, '', models, out);
  return out;
}
