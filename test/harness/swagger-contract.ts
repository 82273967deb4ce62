// Upstream's REST definition as a test-time contract. The swagger file is test data read from
// `<repo parent>/shared/upstream/swagger.yaml` (never copied into the repository): its Go models
// are what the real agent, installer and controller decode our bodies with. Swagger 2.0 schemas
// are turned into JSON Schema for ajv: `#/definitions/X` refs point into one registered document,
// `x-nullable: true` admits null, and swagger's formats get validators close to go-openapi's.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { parse } from 'yaml';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RELATIVE = join('shared', 'upstream', 'swagger.yaml');

/**
 * `../shared/upstream/swagger.yaml` beside the repository; a worktree one level further down finds
 * it one level further up. UPSTREAM_SWAGGER overrides.
 */
export function swaggerPath(): string {
  const override = process.env.UPSTREAM_SWAGGER;
  if (override) return override;
  let dir = dirname(REPO_ROOT);
  for (let i = 0; i < 3; i++) {
    const candidate = join(dir, RELATIVE);
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw new Error(
    `upstream swagger not found at ${join(dirname(REPO_ROOT), RELATIVE)} (set UPSTREAM_SWAGGER to its path)`,
  );
}

type Json = Record<string, unknown>;
const DOC_ID = 'upstream-swagger';

/** Swagger 2.0 schema → JSON Schema ajv compiles (refs into DOC_ID, x-nullable → null allowed). */
export function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (typeof node !== 'object' || node === null) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    if (key.startsWith('x-') || key === 'example' || key === 'discriminator') continue;
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/definitions/')) {
      out.$ref = `${DOC_ID}${value}`;
    } else if (key === 'properties' || key === 'definitions') {
      out[key] = Object.fromEntries(
        Object.entries(value as Json).map(([name, schema]) => [name, toJsonSchema(schema)]),
      );
    } else {
      out[key] = toJsonSchema(value);
    }
  }
  // `type: file` is a multipart upload, not a JSON body.
  if (out.type === 'file') return {};
  if ((node as Json)['x-nullable'] === true) return { anyOf: [out, { type: 'null' }] };
  return out;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** RFC 3339 as strfmt.DateTime parses it (fractional seconds optional, Z or an offset). */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const MAC = /^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$/i;

function newAjv(): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true, allowUnionTypes: true });
  ajv.addFormat('uuid', UUID);
  ajv.addFormat('date-time', DATE_TIME);
  ajv.addFormat('mac', MAC);
  ajv.addFormat('ipv4', /^(\d{1,3}\.){3}\d{1,3}$/);
  ajv.addFormat('ipv6', /^[0-9a-f:.]*:[0-9a-f:.]*$/i);
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  ajv.addFormat('double', { type: 'number', validate: () => true });
  ajv.addFormat('float', { type: 'number', validate: () => true });
  ajv.addFormat('binary', () => true);
  ajv.addFormat('string', () => true);
  return ajv;
}

export interface OperationContract {
  method: string;
  /** Swagger path template, e.g. `/v2/infra-envs/{infra_env_id}/hosts`. */
  path: string;
  operationId: string;
  produces: string[];
  /** Declared status codes (as text) → compiled body validator (undefined: no body declared). */
  responses: Map<string, ValidateFunction | undefined>;
  request?: ValidateFunction;
}

export interface Problem {
  where: string;
  message: string;
}

export class SwaggerContract {
  readonly doc: Json;
  private readonly ajv = newAjv();
  private readonly operations = new Map<string, OperationContract>();

  constructor(doc: Json) {
    this.doc = doc;
    this.ajv.addSchema({ $id: DOC_ID, definitions: toJsonSchema(doc.definitions) as Json });
  }

  static load(): SwaggerContract {
    return new SwaggerContract(parse(readFileSync(swaggerPath(), 'utf8')) as Json);
  }

  /** Every declared `METHOD path` (for coverage listings). */
  declared(): string[] {
    const paths = this.doc.paths as Record<string, Json>;
    return Object.entries(paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((m) => ['get', 'put', 'post', 'patch', 'delete', 'head'].includes(m))
        .map((m) => `${m.toUpperCase()} ${path}`),
    );
  }

  has(method: string, path: string): boolean {
    const item = (this.doc.paths as Record<string, Json | undefined>)[path];
    return item?.[method.toLowerCase()] !== undefined;
  }

  operation(method: string, path: string): OperationContract {
    const key = `${method.toUpperCase()} ${path}`;
    const cached = this.operations.get(key);
    if (cached) return cached;
    const item = (this.doc.paths as Record<string, Json | undefined>)[path];
    const op = item?.[method.toLowerCase()] as Json | undefined;
    if (!op) throw new Error(`swagger declares no ${key}`);
    const responses = new Map<string, ValidateFunction | undefined>();
    for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
      const schema = response.schema;
      responses.set(
        status,
        schema === undefined ? undefined : this.ajv.compile(toJsonSchema(schema) as Json),
      );
    }
    const bodyParam = ((op.parameters as Json[] | undefined) ?? []).find((p) => p.in === 'body');
    const contract: OperationContract = {
      method: method.toUpperCase(),
      path,
      operationId: String(op.operationId),
      produces: (op.produces as string[] | undefined) ?? (this.doc.produces as string[]) ?? [],
      responses,
      ...(bodyParam ? { request: this.ajv.compile(toJsonSchema(bodyParam.schema) as Json) } : {}),
    };
    this.operations.set(key, contract);
    return contract;
  }

  /** A swagger path template matching a concrete path (below the base path), if any. */
  templateFor(method: string, concretePath: string): string | undefined {
    const parts = concretePath.split('/');
    for (const template of Object.keys(this.doc.paths as Json)) {
      if (!this.has(method, template)) continue;
      const t = template.split('/');
      if (t.length !== parts.length) continue;
      if (
        t.every((seg, i) => (seg.startsWith('{') && seg.endsWith('}') ? parts[i] !== '' : seg === parts[i]))
      )
        return template;
    }
    return undefined;
  }

  /** Problems of one response: undeclared status, wrong content type, body not in the schema. */
  checkResponse(
    method: string,
    path: string,
    res: { status: number; contentType?: string; body: string },
  ): Problem[] {
    const op = this.operation(method, path);
    const where = `${op.operationId} ${res.status}`;
    const status = String(res.status);
    if (!op.responses.has(status) && !op.responses.has('default')) {
      return [{ where, message: `status ${status} is not declared (declared: ${[...op.responses.keys()]})` }];
    }
    const validate = op.responses.has(status) ? op.responses.get(status) : op.responses.get('default');
    if (!validate) return [];
    const binary = res.status < 300 && op.produces.includes('application/octet-stream');
    if (binary) {
      return (res.contentType ?? '').startsWith('application/octet-stream')
        ? []
        : [{ where, message: `file download answered Content-Type ${res.contentType}` }];
    }
    let value: unknown;
    try {
      value = JSON.parse(res.body);
    } catch {
      return [{ where, message: `body is not JSON: ${res.body.slice(0, 200)}` }];
    }
    return validate(value) ? [] : describe(where, validate.errors);
  }

  /** Problems of a value against one named definition (e.g. `error`). */
  checkDefinition(name: string, value: unknown): Problem[] {
    const validate =
      this.ajv.getSchema(`${DOC_ID}#/definitions/${name}`) ??
      this.ajv.compile({ $ref: `${DOC_ID}#/definitions/${name}` });
    return validate(value) ? [] : describe(name, validate.errors);
  }

  /** Problems of a request body against the operation's body parameter. */
  checkRequest(method: string, path: string, body: unknown): Problem[] {
    const op = this.operation(method, path);
    if (!op.request) return [];
    return op.request(body) ? [] : describe(`${op.operationId} request`, op.request.errors);
  }
}

function describe(where: string, errors: ErrorObject[] | null | undefined): Problem[] {
  // anyOf (x-nullable) reports the branch failures and the anyOf itself: keep the informative ones.
  const useful = (errors ?? []).filter(
    (e) => e.keyword !== 'anyOf' && !(e.params as Json).type?.toString().includes('null'),
  );
  return (useful.length > 0 ? useful : (errors ?? [])).map((e) => ({
    where,
    message: `${e.instancePath || '(body)'} ${e.message}${e.params && 'allowedValues' in e.params ? ` ${JSON.stringify(e.params.allowedValues)}` : ''}`,
  }));
}

let shared: SwaggerContract | undefined;
/** One loaded contract per test file. */
export function swaggerContract(): SwaggerContract {
  shared ??= SwaggerContract.load();
  return shared;
}

/**
 * Statuses the definition does not declare for an operation, which upstream's handler answers all
 * the same (agent-api.md §2.2, §6.3); the body must still be the `error` model.
 */
export const UPSTREAM_UNDECLARED: Readonly<Record<string, readonly number[]>> = {
  'PUT /v2/infra-envs/{infra_env_id}/hosts/{host_id}/progress': [400, 409],
  // A finalizing stage reported when the cluster is no longer installing or finalizing.
  'PUT /v2/clusters/{cluster_id}/progress': [409],
};

/** One recorded request and answer (the simulator's WireExchange has this shape). */
export interface RecordedExchange {
  method: string;
  /** Path below the base path, without the query. */
  path: string;
  requestJson?: unknown;
  status: number;
  contentType: string;
  body: Buffer;
}

/** Every problem of recorded exchanges: undeclared operation or status, answer or request not in its model. */
export function exchangeProblems(
  list: readonly RecordedExchange[],
  opts: { skipRequest?: (x: RecordedExchange) => boolean } = {},
): string[] {
  const contract = swaggerContract();
  const problems: string[] = [];
  for (const x of list) {
    const template = contract.templateFor(x.method, x.path);
    if (!template) {
      problems.push(`${x.method} ${x.path}: the definition declares no such operation`);
      continue;
    }
    const where = `${x.method} ${template} ${x.status}`;
    const text = x.body.toString('utf8');
    const response = UPSTREAM_UNDECLARED[`${x.method} ${template}`]?.includes(x.status)
      ? contract.checkDefinition('error', JSON.parse(text))
      : contract.checkResponse(x.method, template, {
          status: x.status,
          contentType: x.contentType,
          body: text,
        });
    for (const p of response) problems.push(`${where}: ${p.message}`);
    if (x.requestJson !== undefined && !opts.skipRequest?.(x)) {
      for (const p of contract.checkRequest(x.method, template, x.requestJson))
        problems.push(`${where} request: ${p.message}`);
    }
  }
  return problems;
}
