// The host part of the REST backend (agent-api.md §2.1, §2.2, §6.3): registration, instructions,
// step replies, install and logs progress, host ignition, log upload, events, component versions.
//
// Who writes what (docs/design/records.md): registration creates the Agent and writes its status
// once; install progress and logs progress write the Agent status directly (with conflict retry:
// they must not be lost). Polls and step replies only touch memory — ctx.facts for the frequent
// low-value facts, the host inbox for results the record keeps (inventory, NTP, media state,
// install failure) — and enqueue the Agent when something it shows may change; the Agent
// reconciler does the rest.
//
// One module per route group: next-steps.ts (polls), step-reply.ts, progress.ts (install and logs
// progress), files.ts (host ignition, log upload); scope.ts holds what they share. deps: `auth`
// (the LocalAuth the server authenticates with; signs status URLs), optionally `events` (default:
// the process's OperatorEvents), `memory` (default: the process's HostMemory) and `random` (step
// ids; default Math.random).

import type { OperatorContext } from '../../records/context.ts';
import { done, type HostApiBackend, ok } from '../api/backend.ts';
import { downloadHostIgnition, uploadLogs } from './files.ts';
import { getNextSteps } from './next-steps.ts';
import { updateHostInstallProgress, updateHostLogsProgress } from './progress.ts';
import { registerHostAgent } from './registration.ts';
import {
  type HostBackendDeps,
  type HostInput,
  type HostScope,
  hostRoute,
  hostScope,
  wireHost,
} from './scope.ts';
import { postStepReply, stepReplyRefused } from './step-reply.ts';

export type { HostBackendDeps } from './scope.ts';

export type HostBackend = Pick<
  HostApiBackend,
  | 'registerHost'
  | 'getNextSteps'
  | 'postStepReply'
  | 'stepReplyRefused'
  | 'updateHostInstallProgress'
  | 'updateHostLogsProgress'
  | 'downloadHostIgnition'
  | 'uploadLogs'
  | 'triggerEvent'
  | 'listEvents'
  | 'getComponentVersions'
>;

export function hostBackend(ctx: OperatorContext, deps: HostBackendDeps): HostBackend {
  const s = hostScope(ctx, deps);
  return {
    registerHost: (_call, input) => registerHost(s, input),
    getNextSteps: hostRoute(s, getNextSteps),
    postStepReply: hostRoute(s, postStepReply),
    stepReplyRefused: (_call, input) => stepReplyRefused(s, input),
    updateHostInstallProgress: hostRoute(s, updateHostInstallProgress),
    updateHostLogsProgress: hostRoute(s, updateHostLogsProgress),
    downloadHostIgnition: hostRoute(s, downloadHostIgnition),
    uploadLogs: (_call, input) => uploadLogs(s, input),
    async triggerEvent(_call, input) {
      s.events.record(input.event);
      return done();
    },
    async listEvents(_call, filter) {
      return ok(await s.events.list(filter));
    },
    getComponentVersions: async () => ok(componentVersions(ctx)),
  };
}

async function registerHost(s: HostScope, input: HostInput<'registerHost'>) {
  const { ctx, memory } = s;
  const result = await registerHostAgent(ctx, { auth: s.auth, memory }, input);
  if (!result.ok) return result;
  const { host } = result.value;
  // A registering agent starts a new era: what memory held about its last boot is stale (its facts
  // were reset, with the registration as its check-in, before the status write).
  memory.inbox.delete(host.id);
  memory.warmUp.markWarm(host.id);
  s.events.recordCore(result.value.events);
  return ok({ host: wireHost(host), nextStepRunner: { agentImage: ctx.settings.agentImage } });
}

function componentVersions(ctx: OperatorContext) {
  return {
    versions: {
      'assisted-installer-service': process.env.OPERATOR_IMAGE ?? 'agent-install-operator',
      'discovery-agent': ctx.settings.agentImage,
      'assisted-installer': ctx.settings.installerImage,
      'assisted-installer-controller': ctx.settings.controllerImage,
    },
    release_tag: process.env.RELEASE_TAG ?? '',
  };
}
