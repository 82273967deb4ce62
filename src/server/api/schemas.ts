// Request bodies (agent-api.md §3), validated the way the Go service decodes them: unknown fields
// are ignored, `null` means absent (Go leaves the zero value), required fields and enums are
// checked, and a failure names the field and what is wrong.

import { z } from 'zod';
import { HOST_STAGES } from '../../core/model.ts';
import { FINALIZING_STAGES } from '../../core/statemachine/index.ts';
import { STEP_TYPES } from '../../core/steps/index.ts';
import { EVENT_CATEGORIES, EVENT_SEVERITIES } from './backend.ts';
import { jsonTooDeep, MAX_JSON_DEPTH } from './limits.ts';

/** Optional in Go terms: absent or null both mean "not set". */
function optional<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((v) => (v === null ? undefined : v));
}

const uuid = z
  .string()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'must be a uuid');
const int64 = z.number().int();

export const hostCreateParamsSchema = z.object({
  host_id: uuid,
  discovery_agent_version: optional(z.string()),
});

export const stepReplySchema = z.object({
  step_type: z.enum(STEP_TYPES),
  step_id: optional(z.string()),
  exit_code: optional(int64),
  output: optional(z.string()),
  error: optional(z.string()),
});

/** swagger's maxLength for progress_info. */
export const PROGRESS_INFO_MAX_LENGTH = 2048;

export const hostProgressSchema = z.object({
  current_stage: z.enum(HOST_STAGES),
  // Cut rather than refuse: a long error text on "Failed" must not lose the failure itself
  // (the installer only logs a refused update).
  progress_info: optional(z.string()).transform((v) => v?.slice(0, PROGRESS_INFO_MAX_LENGTH)),
});

export const logsProgressParamsSchema = z.object({
  logs_state: z.enum(['requested', 'collecting', 'completed', 'timeout', '']),
});

export const finalizingProgressSchema = z.object({
  finalizing_stage: z.enum(FINALIZING_STAGES),
});

export const operatorMonitorReportSchema = z.object({
  name: z.string().min(1, 'must not be empty'),
  version: optional(z.string()),
  status: z.enum(['failed', 'progressing', 'available']),
  status_info: optional(z.string()),
});

/** The ingress CA bundle arrives as a JSON string. */
export const ingressCertSchema = z.string().min(1, 'must not be empty');

export const completionParamsSchema = z.object({
  is_success: z.boolean(),
  error_info: optional(z.string()),
  data: optional(z.record(z.string(), z.unknown())),
});

export const eventSchema = z.object({
  name: optional(z.string()),
  cluster_id: optional(uuid),
  host_id: optional(uuid),
  infra_env_id: optional(uuid),
  severity: z.enum(EVENT_SEVERITIES),
  category: optional(z.enum(EVENT_CATEGORIES)),
  message: z.string(),
  event_time: z.iso.datetime({ offset: true }),
  request_id: optional(uuid),
  props: optional(z.string()),
});

/** zod messages adjusted to read like go-openapi's ("is required" for absent and null). */
function errorMap(issue: { code: string; input?: unknown }): string | undefined {
  if ((issue.code === 'invalid_type' || issue.code === 'invalid_value') && issue.input == null) {
    return 'is required';
  }
  return undefined;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/** Decodes JSON text and validates it; `model` names the swagger model in messages. */
export function parseJsonBody<S extends z.ZodType>(
  text: string,
  schema: S,
  model: string,
): Parsed<z.output<S>> {
  if (text.trim() === '') return { ok: false, message: `${model} body is required` };
  if (jsonTooDeep(text))
    return { ok: false, message: `${model} body nests deeper than ${MAX_JSON_DEPTH} levels` };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { ok: false, message: `${model} body is not valid JSON: ${(err as Error).message}` };
  }
  const result = schema.safeParse(raw, { error: errorMap });
  if (result.success) return { ok: true, value: result.data };
  const problems = result.error.issues.map((issue) => {
    const field = issue.path.length > 0 ? issue.path.join('.') : 'body';
    return `${field}: ${issue.message}`;
  });
  return { ok: false, message: `invalid ${model}: ${problems.join('; ')}` };
}
