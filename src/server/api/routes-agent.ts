// Operations of the agent, next_step_runner and installer on one host (agent-api.md §2.1, §2.2):
// register, poll instructions, post step replies, report logs and install progress, fetch the
// host's pointer ignition.

import { parseStepReply } from '../../core/steps/index.ts';
import {
  type ApiLimits,
  type ApiRoute,
  defineRoute,
  errorReply,
  fromOutcome,
  type HandlerContext,
} from './api-route.ts';
import type { HostRef } from './backend.ts';
import { PayloadTooLargeError } from './http-io.ts';
import { HEAVY_WORK_BYTES, jsonTooDeep, MAX_JSON_DEPTH } from './limits.ts';
import {
  hostCreateParamsSchema,
  hostProgressSchema,
  logsProgressParamsSchema,
  stepReplySchema,
} from './schemas.ts';
import { hostToWire, nextStepRunnerCommand } from './wire.ts';

const AGENT = { agent: true } as const;

/** Why a step's output is too large to keep (an inventory the Agent could not store), if it is. */
function outputOverLimit(
  reply: { step_type: string; output?: string },
  limits: ApiLimits,
): string | undefined {
  const size = reply.output === undefined ? 0 : Buffer.byteLength(reply.output);
  if (reply.step_type === 'inventory' && size > limits.inventoryBytes) {
    return `inventory of ${size} bytes is larger than the limit of ${limits.inventoryBytes} bytes; the host's inventory is not updated`;
  }
  return undefined;
}
const HOST_PATH = '/v2/infra-envs/{infra_env_id}/hosts/{host_id}';

function hostRef(ctx: HandlerContext<unknown>): HostRef {
  return { infraEnvId: ctx.params.infra_env_id!, hostId: ctx.params.host_id! };
}

const registerHost = defineRoute({
  method: 'POST',
  path: '/v2/infra-envs/{infra_env_id}/hosts',
  bodyKind: 'small',
  auth: AGENT,
  async handle(ctx) {
    const body = await ctx.body(hostCreateParamsSchema, 'host-create-params');
    if (!body.ok) return errorReply(400, body.message);
    const version = body.value.discovery_agent_version ?? ctx.call.agentVersionHeader;
    const outcome = await ctx.deps.backend.registerHost(ctx.call, {
      infraEnvId: ctx.params.infra_env_id!,
      hostId: body.value.host_id,
      ...(version ? { discoveryAgentVersion: version } : {}),
    });
    return fromOutcome(outcome, ({ host, nextStepRunner }) => ({
      kind: 'json',
      status: 201,
      body: {
        ...hostToWire(host),
        next_step_runner_command: nextStepRunnerCommand(
          host,
          nextStepRunner.agentImage,
          nextStepRunner.retrySeconds,
        ),
      },
    }));
  },
});

/** Characters in the steps' arguments (a connectivity check lists every other host of its cluster). */
function argumentsLength(instructions: readonly { args?: readonly string[] }[]): number {
  let length = 0;
  for (const step of instructions) for (const arg of step.args ?? []) length += arg.length;
  return length;
}

const getNextSteps = defineRoute<{ timestamp?: number }>({
  method: 'GET',
  path: `${HOST_PATH}/instructions`,
  auth: AGENT,
  query: (q) => {
    const timestamp = q.int('timestamp');
    return timestamp === undefined ? {} : { timestamp };
  },
  async handle(ctx) {
    const outcome = await ctx.deps.backend.getNextSteps(ctx.call, { ...hostRef(ctx), ...ctx.query });
    // Go sends nil slices as null; send [] so every client sees a list.
    return fromOutcome(outcome, (steps) => ({
      kind: 'json',
      status: 200,
      body: steps.instructions ? steps : { ...steps, instructions: [] },
      heavy: argumentsLength(steps.instructions ?? []) > HEAVY_WORK_BYTES,
    }));
  },
});

const postStepReply = defineRoute({
  method: 'POST',
  path: `${HOST_PATH}/instructions`,
  bodyKind: 'stepReply',
  auth: AGENT,
  async handle(ctx) {
    const refused = (reason: string) =>
      ctx.deps.backend.stepReplyRefused?.(ctx.call, { ...hostRef(ctx), reason }).catch((err: unknown) => {
        ctx.deps.logger.warn({ err }, 'could not record a refused step reply');
      });
    let body: Awaited<ReturnType<typeof ctx.body<typeof stepReplySchema>>>;
    try {
      body = await ctx.body(stepReplySchema, 'step-reply');
    } catch (err) {
      if (err instanceof PayloadTooLargeError) await refused(`step reply refused: ${err.message}`);
      throw err;
    }
    if (!body.ok) return errorReply(400, body.message);
    const reply = {
      step_type: body.value.step_type,
      ...(body.value.step_id !== undefined ? { step_id: body.value.step_id } : {}),
      ...(body.value.exit_code !== undefined ? { exit_code: body.value.exit_code } : {}),
      ...(body.value.output !== undefined ? { output: body.value.output } : {}),
      ...(body.value.error !== undefined ? { error: body.value.error } : {}),
    };
    const oversized = outputOverLimit(reply, ctx.deps.limits);
    if (oversized) {
      await refused(`${reply.step_type} reply refused: ${oversized}`);
      return errorReply(413, oversized);
    }
    if (reply.output !== undefined && jsonTooDeep(reply.output)) {
      return errorReply(400, `${reply.step_type} output nests deeper than ${MAX_JSON_DEPTH} levels`);
    }
    const decoded = parseStepReply(reply);
    // Upstream: a successful step whose output does not decode is a bad request; a failed step is
    // recorded as a failure and answered 204.
    if ((reply.exit_code ?? 0) === 0 && !decoded.ok) return errorReply(400, decoded.error);
    const outcome = await ctx.deps.backend.postStepReply(ctx.call, { ...hostRef(ctx), reply, decoded });
    return fromOutcome(outcome, () => ({ kind: 'empty', status: 204 }));
  },
});

const updateHostLogsProgress = defineRoute({
  method: 'PUT',
  path: `${HOST_PATH}/logs-progress`,
  bodyKind: 'small',
  auth: AGENT,
  async handle(ctx) {
    const body = await ctx.body(logsProgressParamsSchema, 'logs-progress-params');
    if (!body.ok) return errorReply(400, body.message);
    const outcome = await ctx.deps.backend.updateHostLogsProgress(ctx.call, {
      ...hostRef(ctx),
      logsState: body.value.logs_state,
    });
    return fromOutcome(outcome, () => ({ kind: 'empty', status: 204 }));
  },
});

const updateHostInstallProgress = defineRoute({
  method: 'PUT',
  path: `${HOST_PATH}/progress`,
  bodyKind: 'small',
  auth: AGENT,
  async handle(ctx) {
    const body = await ctx.body(hostProgressSchema, 'host-progress');
    if (!body.ok) return errorReply(400, body.message);
    const { current_stage, progress_info } = body.value;
    const outcome = await ctx.deps.backend.updateHostInstallProgress(ctx.call, {
      ...hostRef(ctx),
      progress: progress_info === undefined ? { current_stage } : { current_stage, progress_info },
    });
    return fromOutcome(outcome, () => ({ kind: 'empty', status: 200 }));
  },
});

/** Note the singular `infra-env` in this one path (§0.1). */
const downloadHostIgnition = defineRoute({
  method: 'GET',
  path: '/v2/infra-env/{infra_env_id}/hosts/{host_id}/downloads/ignition',
  auth: AGENT,
  async handle(ctx) {
    const outcome = await ctx.deps.backend.downloadHostIgnition(ctx.call, hostRef(ctx));
    return fromOutcome(outcome, (file) => ({ kind: 'file', file }));
  },
});

export const HOST_ROUTES: readonly ApiRoute<unknown>[] = [
  registerHost,
  getNextSteps,
  postStepReply,
  updateHostLogsProgress,
  updateHostInstallProgress,
  downloadHostIgnition,
];
