// What every host route shares: the process's events and host memory, the logger, the
// connectivity-check admission, and the small writers and enqueuers the handlers compose. Built
// once per backend by hostBackend (backend.ts).

import type { Logger } from 'pino';
import type { Agent, AgentStatus } from '../../api/index.ts';
import type { LocalAuth } from '../../auth/index.ts';
import type { Host } from '../../core/model.ts';
import type { StepsOptions } from '../../core/steps/index.ts';
import { currentSpecSyncError, projectAgentStatus } from '../../records/agents/project.ts';
import type { OperatorContext } from '../../records/context.ts';
import { type OperatorEvents, operatorEventsFor } from '../../records/events.ts';
import { findHost, type HostLookup, hostFacts } from '../../records/hosts/lookup.ts';
import { type HostMemory, hostMemory } from '../../records/hosts/memory.ts';
import { type AgentHost, agentToHost, type HostRuntimeFacts } from '../../records/index.ts';
import { AGENT } from '../../records/resources.ts';
import { keyOf, objectKey, updateStatus } from '../../runtime/index.ts';
import { type CallContext, fail, type HostApiBackend, type HostRef, type Outcome } from '../api/backend.ts';
import { ConnectivityAdmission } from './connectivity-admission.ts';

export interface HostBackendDeps {
  auth: LocalAuth;
  events?: OperatorEvents;
  memory?: HostMemory;
  random?: () => number;
}

export interface HostScope {
  ctx: OperatorContext;
  auth: LocalAuth;
  events: OperatorEvents;
  memory: HostMemory;
  random: () => number;
  log: Logger;
  connectivity: ConnectivityAdmission;
  /** The steps options of every host without per-host additions: one object, so answers can be kept. */
  stepsOptions: Readonly<StepsOptions>;
  enqueueAgent(agent: Agent): void;
  enqueueCluster(clusterId: string | undefined): void;
  /** The Agent status for a host record, URLs signed with the backend's LocalAuth. */
  project(agent: Agent, host: AgentHost): AgentStatus;
  /** Updates memory facts; true when a value changed. */
  setFacts(hostId: string, patch: HostRuntimeFacts): boolean;
  /** Writes a change to the host record through the Agent status (conflicts retried). */
  writeHost(agent: Agent, change: (host: AgentHost) => AgentHost): Promise<unknown>;
}

export function hostScope(ctx: OperatorContext, deps: HostBackendDeps): HostScope {
  const memory = deps.memory ?? hostMemory(ctx);
  const project = (agent: Agent, host: AgentHost) =>
    projectAgentStatus(agent, host, {
      now: ctx.now(),
      serviceBaseUrl: ctx.urls.serviceBaseUrl,
      auth: deps.auth,
      specSyncError: currentSpecSyncError(agent),
    });
  // Clusters of more than 150 hosts: connectivity checks are admitted 150 a minute (core.md §9.3).
  const connectivity = new ConnectivityAdmission({ now: () => ctx.now().getTime() });
  return {
    ctx,
    auth: deps.auth,
    events: deps.events ?? operatorEventsFor(ctx),
    memory,
    random: deps.random ?? Math.random,
    log: ctx.logger.child({ component: 'host-api' }),
    connectivity,
    stepsOptions: Object.freeze({
      ...stepsOptionsFor(ctx),
      admitConnectivityCheck: (clusterId: string, hostId: string) => connectivity.admit(clusterId, hostId),
    }),
    enqueueAgent: (agent) => ctx.bus.enqueue('agent', objectKey(agent)),
    enqueueCluster: (clusterId) => {
      const cd = clusterId ? ctx.clusterDeploymentById(clusterId) : undefined;
      if (cd) ctx.bus.enqueue('clusterdeployment', keyOf(cd.metadata.namespace, cd.metadata.name ?? ''));
    },
    project,
    setFacts: (hostId, patch) => ctx.facts.update(hostId, patch),
    writeHost: (agent, change) =>
      updateStatus(ctx.client, AGENT, agent, (cur) => {
        const host = agentToHost(cur, hostFacts(ctx, memory, cur.metadata.name ?? ''));
        return project(cur, change(host));
      }),
  };
}

/** The wire host never carries the kube-API approval flag (it is Agent spec). */
export function wireHost(host: AgentHost): Host {
  const { approved: _approved, ...rest } = host;
  return rest;
}

function stepsOptionsFor(ctx: OperatorContext): StepsOptions {
  return {
    agentImage: ctx.settings.agentImage,
    installerImage: ctx.settings.installerImage,
    controllerImage: ctx.settings.controllerImage,
    kubeApiMode: true,
  };
}

/** The host a request names, found in its infra-env. */
export type FoundHost = Extract<HostLookup, { ok: true }>;

/** The input of a backend operation. */
export type HostInput<K extends keyof HostApiBackend> = Parameters<NonNullable<HostApiBackend[K]>>[1];

/** A route of one host: 404 (or 503) unless the host is found in its infra-env, then `fn`. */
export function hostRoute<I extends HostRef, T>(
  s: HostScope,
  fn: (s: HostScope, found: FoundHost, input: I, call: CallContext) => Promise<Outcome<T>>,
): (call: CallContext, input: I) => Promise<Outcome<T>> {
  return async (call, input) => {
    const found = await findHost(s.ctx, input.infraEnvId, input.hostId);
    return found.ok ? fn(s, found, input, call) : fail(found.status, found.reason);
  };
}
