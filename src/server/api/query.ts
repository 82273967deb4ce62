// Path and query parameter checks with go-openapi's wording ("x in query is required", "should be
// one of [...]"), collected so one 400 names every bad parameter.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAC = /^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** Path parameters that name records are UUIDs (swagger `format: uuid`). */
export function checkPathIds(params: Readonly<Record<string, string>>): string[] {
  const errors: string[] = [];
  for (const name in params) {
    const value = params[name]!;
    if (name.endsWith('_id') && !isUuid(value)) {
      errors.push(`${name} in path must be of type uuid: ${JSON.stringify(value)}`);
    }
  }
  return errors;
}

// go-openapi's swag.ConvertBool spellings.
const TRUE = new Set(['true', '1', 'yes', 'y', 'on', 't', 'ok', 'enabled']);
const FALSE = new Set(['false', '0', 'no', 'n', 'off', 'f', 'disabled', '']);

export class QueryReader {
  readonly errors: string[] = [];
  private readonly params: URLSearchParams;

  constructor(params: URLSearchParams) {
    this.params = params;
  }

  private raw(name: string, required: boolean): string | undefined {
    const value = this.params.get(name);
    if (value === null) {
      if (required) this.errors.push(`${name} in query is required`);
      return undefined;
    }
    return value;
  }

  string(name: string, required = false): string | undefined {
    return this.raw(name, required);
  }

  uuid(name: string, required = false): string | undefined {
    const value = this.raw(name, required);
    if (value === undefined) return undefined;
    if (!isUuid(value)) {
      this.errors.push(`${name} in query must be of type uuid: ${JSON.stringify(value)}`);
      return undefined;
    }
    return value;
  }

  int(name: string, required = false): number | undefined {
    const value = this.raw(name, required);
    if (value === undefined) return undefined;
    if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
      this.errors.push(`${name} in query must be of type int64: ${JSON.stringify(value)}`);
      return undefined;
    }
    return Number(value);
  }

  bool(name: string): boolean | undefined {
    const value = this.raw(name, false);
    if (value === undefined) return undefined;
    const lower = value.toLowerCase();
    if (TRUE.has(lower)) return true;
    if (FALSE.has(lower)) return false;
    this.errors.push(`${name} in query must be of type boolean: ${JSON.stringify(value)}`);
    return undefined;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], required = false): T | undefined {
    const value = this.raw(name, required);
    if (value === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(value)) {
      this.errors.push(`${name} in query should be one of [${allowed.join(' ')}]`);
      return undefined;
    }
    return value as T;
  }

  /** Arrays arrive repeated (`a=x&a=y`) or comma-separated (`a=x,y`, swagger's default csv). */
  list<T extends string>(name: string, allowed?: readonly T[]): T[] | undefined {
    const values = this.params
      .getAll(name)
      .flatMap((v) => v.split(','))
      .filter((v) => v !== '');
    if (values.length === 0) return undefined;
    if (allowed) {
      const bad = values.filter((v) => !(allowed as readonly string[]).includes(v));
      if (bad.length > 0) {
        this.errors.push(
          `${name}.${values.indexOf(bad[0]!)} in query should be one of [${allowed.join(' ')}]`,
        );
        return undefined;
      }
    }
    return values as T[];
  }

  uuidList(name: string): string[] | undefined {
    const values = this.list(name);
    if (!values) return undefined;
    const bad = values.findIndex((v) => !isUuid(v));
    if (bad >= 0) {
      this.errors.push(`${name}.${bad} in query must be of type uuid: ${JSON.stringify(values[bad])}`);
      return undefined;
    }
    return values;
  }

  mac(name: string): string | undefined {
    const value = this.raw(name, false);
    if (value === undefined) return undefined;
    if (!MAC.test(value)) {
      this.errors.push(`${name} in query must be of type mac: ${JSON.stringify(value)}`);
      return undefined;
    }
    return value.toLowerCase().replaceAll('-', ':');
  }

  /** Adds a rule-level error (e.g. a parameter only valid with another one). */
  fail(message: string): void {
    this.errors.push(message);
  }
}
