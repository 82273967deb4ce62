// Types and building blocks shared by the host rule tables.

import type { Cluster, Host, HostKind, HostStatus, ValidationsInfo } from '../model.ts';
import { formatGoDuration } from './durations.ts';
import { type Condition, type RuleEngine, When } from './engine.ts';
import { expandMacros, failingValidationMessages } from './host-status-info.ts';
import { hostSuccess, setHostStatus } from './host-update.ts';
import { installationDiskLabel, isDay2Host } from './hostutil.ts';
import { hostStageTimeoutMs, type StateMachineOptions } from './options.ts';
import type { HostResult, HostSuccess } from './result.ts';

export const HOST_TRANSITIONS = [
  'RegisterHost',
  'RefreshHost',
  'HostProgressChanged',
  'HostInstallationFailed',
  'CancelInstallation',
  'InstallHost',
  'ResettingPendingUserAction',
  'MediaDisconnect',
  'BindHost',
  'UnbindHost',
  'ReclaimHost',
  'RebootingForReclaim',
  'ReclaimHostFailed',
] as const;
export type HostTransitionType = (typeof HOST_TRANSITIONS)[number];

/** A host's state; "" is a host that is not registered yet. */
export type HostState = HostStatus | '';

/** Event-specific inputs of host transitions (each transition reads the fields it needs). */
export interface HostTransitionInput {
  /** Status info of cancel / installation-failed transitions. */
  reason?: string;
  /** BindHost: the cluster to bind to. */
  clusterId?: string;
  /** RegisterHost: the agent's version and the (possibly changed) host kind. */
  discoveryAgentVersion?: string;
  kind?: HostKind;
  /** HostProgressChanged: a day-2 "Rebooting" was rewritten to "Done". */
  rebootingRewritten?: boolean;
}

export interface HostArgs {
  readonly host: Host;
  readonly cluster: Cluster | null;
  readonly now: Date;
  readonly options: StateMachineOptions;
  readonly conditions: Readonly<Record<string, boolean>>;
  /** Freshly computed validations ($FAILING_VALIDATIONS, R2's image check). */
  readonly validations: ValidationsInfo | undefined;
  readonly input: HostTransitionInput;
}

export type HostEngine = RuleEngine<HostTransitionType, HostState, HostArgs, HostResult>;

export const isDay2 = When<HostArgs>((a) => isDay2Host(a.host));
export const inStages = (...stages: string[]): Condition<HostArgs> =>
  When<HostArgs>((a) => stages.includes(a.host.progress?.current_stage ?? ''));

/** Moves to the rule's destination with a fixed status_info (and extra fields). */
export function moveTo(info: string, extra: (a: HostArgs) => Partial<Host> = () => ({})) {
  return (a: HostArgs, _from: HostState, to: HostState): HostSuccess => {
    const { host, events } = setHostStatus(a.host, to as HostStatus, info, a.now, extra(a));
    return hostSuccess(a.host, host, events);
  };
}

/** A rule that keeps the record as it is. */
export function stay(a: HostArgs): HostSuccess {
  return hostSuccess(a.host, a.host, []);
}

/** Expands $STAGE, $MAX_TIME, $INSTALLATION_DISK and $FAILING_VALIDATIONS for a refresh rule. */
export function expandHostTemplate(template: string, a: HostArgs): string {
  const stage = a.host.progress?.current_stage ?? '';
  return expandMacros(template, {
    $STAGE: () => stage,
    $MAX_TIME: () => formatGoDuration(hostStageTimeoutMs(stage, a.options)),
    $INSTALLATION_DISK: () => installationDiskLabel(a.host),
    $FAILING_VALIDATIONS: () => failingValidationMessages(a.validations),
  });
}

/** Upstream's PostRefreshHost: expand the template and write status + info. */
export function refreshTo(template: string) {
  return (a: HostArgs, from: HostState, to: HostState): HostSuccess =>
    moveTo(expandHostTemplate(template, a))(a, from, to);
}

/** Registers one RefreshHost rule (positional, to keep the tables readable). */
export function refreshRuleAdder(sm: HostEngine) {
  return (
    id: string,
    sources: readonly HostStatus[],
    destination: HostStatus,
    condition: Condition<HostArgs> | undefined,
    apply: (a: HostArgs, from: HostState, to: HostState) => HostResult,
  ) => sm.add('RefreshHost', { id, sources, destination, apply, ...(condition ? { condition } : {}) });
}
