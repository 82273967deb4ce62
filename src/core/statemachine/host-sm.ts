// The host state machine: one engine holding the host rules and, appended after them, the pool
// (late-binding) rules — and the pure transition functions callers use.

import type { Cluster, Host, HostStage, ValidationsInfo } from '../model.ts';
import { RuleEngine } from './engine.ts';
import { hostConditions } from './host-conditions.ts';
import type {
  HostArgs,
  HostEngine,
  HostState,
  HostTransitionInput,
  HostTransitionType,
} from './host-sm-common.ts';
import { addOtherEventRules } from './host-sm-events.ts';
import { addPoolEventRules, addPoolRefreshRules } from './host-sm-pool.ts';
import { addRefreshRules } from './host-sm-refresh.ts';
import { addProgressRules, addRegisterRules } from './host-sm-register.ts';
import { hostSuccess, setHostStatus } from './host-update.ts';
import { isDay2Host } from './hostutil.ts';
import { resolveOptions } from './options.ts';
import { failure, type HostResult, type SmContext } from './result.ts';
import { STAGE, stagesForHost } from './stages.ts';

function buildHostStateMachine(): HostEngine {
  const sm: HostEngine = new RuleEngine();
  addRegisterRules(sm);
  addProgressRules(sm);
  addOtherEventRules(sm);
  addRefreshRules(sm);
  addPoolEventRules(sm);
  addPoolRefreshRules(sm);
  return sm;
}

/** The rule tables (exported so tests and docs can walk them). */
export const HOST_STATE_MACHINE: HostEngine = buildHostStateMachine();

export interface HostRunOptions {
  readonly cluster?: Cluster | null;
  readonly validations?: ValidationsInfo;
  readonly input?: HostTransitionInput;
  /** Engine state override ("" for a host being registered for the first time). */
  readonly state?: HostState;
  /** HTTP status for "no rule matched" (409 unless the caller says otherwise). */
  readonly noRuleCode?: number;
}

/** Runs one transition type on a host; the building block of every function below. */
export function runHostTransition(
  type: HostTransitionType,
  host: Host,
  ctx: SmContext,
  run: HostRunOptions = {},
): HostResult {
  const options = resolveOptions(ctx.options);
  const cluster = run.cluster ?? null;
  const conditions =
    type === 'RefreshHost'
      ? { ...hostConditions(host, cluster, options), ...ctx.conditions }
      : { ...ctx.conditions };
  const args: HostArgs = {
    host,
    cluster,
    now: ctx.now,
    options,
    conditions,
    validations: run.validations ?? host.validations_info,
    input: run.input ?? {},
  };
  const result = HOST_STATE_MACHINE.run(type, run.state ?? host.status, args);
  if (!result.ok) {
    const code = result.kind === 'no-rule' ? (run.noRuleCode ?? 409) : 500;
    return failure(code, result.error);
  }
  return result.output.ok ? { ...result.output, rule: result.rule.id } : result.output;
}

export interface RefreshHostInput {
  readonly cluster?: Cluster | null;
  /** Freshly computed validations; defaults to the record's `validations_info`. */
  readonly validations?: ValidationsInfo;
}

/**
 * RefreshHost: `ctx.conditions` holds the validation results (id → passed). The non-validation
 * conditions of spec §1.4 are computed here from the records; an id present in `ctx.conditions`
 * takes precedence. A referenced id missing from both is an error (500), as upstream.
 */
export function refreshHost(host: Host, input: RefreshHostInput, ctx: SmContext): HostResult {
  return runHostTransition('RefreshHost', host, ctx, input);
}

export interface RegisterHostInput {
  readonly cluster?: Cluster | null;
  /** The host has no record yet (`host` is the new record, e.g. from newHostRecord). */
  readonly isNew?: boolean;
  readonly discoveryAgentVersion?: string;
  readonly kind?: Host['kind'];
}

/** RegisterHost (agent boot / restart). An existing host is stamped `registered_at` first. */
export function registerHost(host: Host, input: RegisterHostInput, ctx: SmContext): HostResult {
  const stamped = input.isNew ? host : { ...host, registered_at: ctx.now.toISOString() };
  const result = runHostTransition('RegisterHost', stamped, ctx, {
    cluster: input.cluster ?? null,
    state: input.isNew ? '' : host.status,
    noRuleCode: 400,
    input: {
      ...(input.discoveryAgentVersion !== undefined
        ? { discoveryAgentVersion: input.discoveryAgentVersion }
        : {}),
      ...(input.kind ? { kind: input.kind } : {}),
    },
  });
  return result.ok
    ? hostSuccess(
        host,
        result.host,
        result.events,
        result.rule,
        result.clusterPatch ? { clusterPatch: result.clusterPatch } : {},
      )
    : result;
}

export interface InstallProgressInput {
  readonly cluster?: Cluster | null;
  readonly progress: { readonly current_stage: HostStage; readonly progress_info?: string };
}

const PROGRESS_STATUSES = ['installing', 'installing-in-progress', 'installing-pending-user-action'];

/** An agent/installer progress report (spec §1.3 HostProgressChanged, including the pre-checks). */
export function updateInstallProgress(host: Host, input: InstallProgressInput, ctx: SmContext): HostResult {
  const options = resolveOptions(ctx.options);
  const stage = input.progress.current_stage;
  const info = input.progress.progress_info ?? '';
  const prev = host.progress ?? {};
  const now = ctx.now.toISOString();
  const prevStage = prev.current_stage ?? '';

  if (prevStage === stage) {
    if ((prev.progress_info ?? '') === info) return hostSuccess(host, host, []);
    return hostSuccess(
      host,
      { ...host, progress: { ...prev, progress_info: info, stage_updated_at: now } },
      [],
    );
  }
  if (!PROGRESS_STATUSES.includes(host.status)) {
    return failure(409, `Can't set progress <${stage}> to host in status <${host.status}>`);
  }
  if (stage === 'Failed') {
    const r = setHostStatus(host, 'error', info ? `Failed - ${info}` : 'Failed', ctx.now);
    return hostSuccess(host, r.host, r.events);
  }
  const stages = stagesForHost(host, input.cluster, options.kubeApiEnabled);
  const index = stages.indexOf(stage);
  if (prevStage !== '') {
    if (index === -1) {
      return failure(
        409,
        `Stages ${stage} isn't available for host role ${host.role} bootstrap ${host.bootstrap === true}`,
      );
    }
    if (index < stages.indexOf(prevStage)) {
      return failure(409, `Can't assign lower stage "${stage}" after host has been in stage "${prevStage}"`);
    }
  }
  const rewritten = isDay2Host(host) && stage === STAGE.rebooting && !options.kubeApiEnabled;
  const updated: Host = {
    ...host,
    // The role's stage list travels with the host (upstream fills it on every host it returns),
    // so the Agent keeps it after Done.
    progress_stages: [...stages],
    progress: {
      ...prev,
      current_stage: rewritten ? STAGE.done : stage,
      progress_info: info,
      // int64 upstream: the fraction is truncated (3 of 8 stages → 37).
      installation_percentage: stages.length > 0 ? Math.trunc(((index + 1) / stages.length) * 100) : 0,
      stage_started_at: now,
      stage_updated_at: now,
      stage_timed_out: false,
    },
  };
  const result = runHostTransition('HostProgressChanged', updated, ctx, {
    cluster: input.cluster ?? null,
    input: { rebootingRewritten: rewritten },
  });
  return result.ok ? hostSuccess(host, result.host, result.events, result.rule) : result;
}

export interface ReasonInput {
  readonly reason?: string;
}

export function hostInstallationFailed(host: Host, input: ReasonInput, ctx: SmContext): HostResult {
  return runHostTransition('HostInstallationFailed', host, ctx, { input });
}

export function cancelHostInstallation(host: Host, input: ReasonInput, ctx: SmContext): HostResult {
  return runHostTransition('CancelInstallation', host, ctx, { input });
}

/** Day-2 install of a single known host. */
export function installHost(host: Host, _input: Record<string, never>, ctx: SmContext): HostResult {
  return runHostTransition('InstallHost', host, ctx);
}

export function resetHostPendingUserAction(
  host: Host,
  _input: Record<string, never>,
  ctx: SmContext,
): HostResult {
  return runHostTransition('ResettingPendingUserAction', host, ctx);
}

export function mediaDisconnected(host: Host, _input: Record<string, never>, ctx: SmContext): HostResult {
  return runHostTransition('MediaDisconnect', host, ctx);
}

export function bindHost(host: Host, input: { readonly clusterId: string }, ctx: SmContext): HostResult {
  return runHostTransition('BindHost', host, ctx, { input: { clusterId: input.clusterId } });
}

export function unbindHost(host: Host, _input: Record<string, never>, ctx: SmContext): HostResult {
  return runHostTransition('UnbindHost', host, ctx);
}

export function reclaimHost(host: Host, _input: Record<string, never>, ctx: SmContext): HostResult {
  return runHostTransition('ReclaimHost', host, ctx);
}

export function rebootingForReclaim(host: Host, _input: Record<string, never>, ctx: SmContext): HostResult {
  return runHostTransition('RebootingForReclaim', host, ctx);
}

export function reclaimHostFailed(host: Host, _input: Record<string, never>, ctx: SmContext): HostResult {
  return runHostTransition('ReclaimHostFailed', host, ctx);
}
