// Result values shared by the state machines: new records, events and errors — never exceptions.

import type { Cluster, Host } from '../model.ts';
import type { EventSeverity } from './hostutil.ts';
import type { StateMachineOptions } from './options.ts';

/** What every transition function receives besides the records. Time is always an input. */
export interface SmContext {
  readonly now: Date;
  /** Condition map (validation id → passed). Refresh transitions read it; others ignore it. */
  readonly conditions?: Readonly<Record<string, boolean>>;
  readonly options?: Partial<StateMachineOptions>;
}

export interface SmEvent {
  readonly name: string;
  readonly severity: EventSeverity;
  readonly message: string;
  readonly host_id?: string;
  readonly infra_env_id?: string;
  readonly cluster_id?: string;
}

/** `code` is the HTTP status a caller should answer with. */
export interface SmError {
  readonly code: number;
  readonly message: string;
}

export interface SmFailure {
  readonly ok: false;
  readonly error: SmError;
}

export interface HostSuccess {
  readonly ok: true;
  readonly host: Host;
  /** Whether `host` differs from the input record (i.e. something must be persisted). */
  readonly changed: boolean;
  readonly events: SmEvent[];
  /** Spec row id of the rule that fired (e.g. "R13"), when a state-machine rule fired. */
  readonly rule?: string;
  /** Fields the caller must also write on the host's cluster (G2 resets the preparation status). */
  readonly clusterPatch?: Partial<Cluster>;
}
export type HostResult = HostSuccess | SmFailure;

/** Work a cluster transition asks the caller to do outside the records. */
export type ClusterAction =
  | { readonly type: 'create-dns-records' }
  | { readonly type: 'update-ams-console-url'; readonly consoleUrl: string }
  | { readonly type: 'mark-ams-subscription-active' };

export interface ClusterSuccess {
  readonly ok: true;
  /** The new cluster record; `hosts` carries any host changes the transition made. */
  readonly cluster: Cluster;
  readonly changed: boolean;
  readonly events: SmEvent[];
  readonly rule?: string;
  /** Ids of hosts whose records changed as a side effect. */
  readonly changedHostIds: string[];
  readonly actions: ClusterAction[];
}
export type ClusterResult = ClusterSuccess | SmFailure;

export function failure(code: number, message: string): SmFailure {
  return { ok: false, error: { code, message } };
}

/** Applies a patch where `undefined` clears a field; returns a new object. */
export function patched<T extends object>(record: T, patch: Partial<T>): T {
  const out = { ...record, ...patch } as Record<string, unknown>;
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) delete out[k];
  }
  return out as T;
}
