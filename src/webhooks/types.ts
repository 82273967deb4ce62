// Shapes shared by the admission validators: the operation, the verdict and small comparison
// helpers. Validators are pure functions of (operation, new object, old object); they read
// objects defensively because a mutating webhook sees objects before schema validation.

export type Operation = 'CREATE' | 'UPDATE';

export type AdmissionResult =
  | { allowed: true; warnings?: string[] }
  | {
      allowed: false;
      message: string;
      /** HTTP status the API server returns to the client: 400 BadRequest, 403 Forbidden or 409 Conflict. */
      code: 400 | 403 | 409;
    };

/** Recursively optional view of an API type: what a webhook may actually receive. */
export type DeepPartial<T> = T extends readonly (infer U)[]
  ? DeepPartial<U>[]
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> | null }
    : T;

export function allow(warnings?: string[]): AdmissionResult {
  return warnings && warnings.length > 0 ? { allowed: true, warnings } : { allowed: true };
}

export function deny(message: string, code: 400 | 403 | 409 = 400): AdmissionResult {
  return { allowed: false, message, code };
}

/** JSON value considered equal to "not set": null, undefined, '', [], {} (recursively). */
export function isEmptyValue(v: unknown): boolean {
  if (v === undefined || v === null || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.values(v as Record<string, unknown>).every(isEmptyValue);
  return false;
}

/** Structural JSON equality where empty values (see isEmptyValue) equal absent ones. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (isEmptyValue(a) && isEmptyValue(b)) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) if (!jsonEqual(a[k], b[k])) return false;
    return true;
  }
  return a === b;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A string field, with null/undefined/non-strings read as ''. */
export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
