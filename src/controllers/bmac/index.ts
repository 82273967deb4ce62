// BMAC controller (kubeapi.md §3.6): pairs each BareMetalHost labelled with an InfraEnv with the
// Agent that boots on it (by boot MAC), delivers the discovery image to the BMH (non-converged:
// spec.image; converged: customDeploy once the PreprovisioningImage is ready) and configures the
// Agent from the BMH annotations. Optional controller: it starts only when the metal3 CRDs are
// served, and the BMH/PPI informers are created by the manager when it wires the controller —
// never at register time — so they are read lazily through `ctx.mgr.informer()` inside reconciles.
//
// Implemented (planning in records/bmac-plan.ts, one BMH write and one Agent write per pass): backup
// label, finalizer, the delete flow (converged + remove-agent-and-node-on-delete: undetach, unpause,
// metadata cleaning, wait for `deleting`, delete the Agent; otherwise unpause and release), the
// unbind flow (Agent Bound reason UnbindingPendingUserAction), detach/pause with
// allow-provisioned-host-management and PAUSE_PROVISIONED_BMHS, image delivery, the Agent spec and
// labels from the annotations, fencing credentials (named or generated Secret), hardware details.
//
// Spoke side (spoke-step.ts, through the cluster's admin kubeconfig): the Node drain before a
// converged delete (drain-started-at / drain-status, the user's drain-timeout, 5 minutes for an
// unreachable spoke), the day-2 MCS CA merged into ignition-config-overrides for hosts joining
// an installed cluster, and, while such a host installs on a cluster with a Machine API, its
// BareMetalHost and Machine in the spoke's openshift-machine-api (image from a master Machine),
// recorded in spoke-bmh-machine-created through the pass's one BMH write. Spoke failures are log
// lines and Warning events on the BMH, retried on later passes.
import type {
  Agent,
  BareMetalHost,
  ClusterDeployment,
  InfraEnv,
  PreprovisioningImage,
} from '../../api/index.ts';
import { AGENT_BMH_LABEL, INFRAENV_LABEL } from '../../api/index.ts';
import { type BmhPatch, pickAgentForMac, planAgent, planBmh, ppiReady } from '../../records/bmac-plan.ts';
import type { OperatorContext } from '../../records/context.ts';
import {
  bareMetalHosts,
  bmhsBootingFrom,
  bmhsFencingWith,
  bmhsOfInfraEnv,
  preprovisioningImages,
} from '../../records/metal3.ts';
import { crossNamespaceRefusal } from '../../records/references.ts';
import {
  AGENT,
  BARE_METAL_HOST,
  CLUSTER_DEPLOYMENT,
  INFRA_ENV,
  PREPROVISIONING_IMAGE,
  SECRET,
} from '../../records/resources.ts';
import { isNotFound, type KubeObject, keyOf, objectKey } from '../../runtime/index.ts';
import { ensureFencingCredentials } from './fencing.ts';
import { bmacSpokeInputs } from './spoke-step.ts';

/** The Agent for a BMH: the newest Agent of its namespace reporting the boot MAC. */
function agentOf(ctx: OperatorContext, bmh: BareMetalHost): Agent | undefined {
  const mac = bmh.spec.bootMACAddress;
  const ns = bmh.metadata.namespace;
  return pickAgentForMac(
    ctx.agentsByMac(mac ?? '').filter((a) => a.metadata.namespace === ns),
    mac,
  );
}

/** BMH keys for an Agent: its bmh label, else every BMH of the namespace booting from its MACs. */
function bmhKeysOfAgent(ctx: OperatorContext, agent: Agent): string[] {
  const ns = agent.metadata.namespace;
  const macs = (agent.status?.inventory?.interfaces ?? []).map((i) => i.macAddress ?? '');
  const keys = bmhsBootingFrom(ctx, ns ?? '', macs).map((b) => objectKey(b));
  const labelled = agent.metadata.labels?.[AGENT_BMH_LABEL];
  if (labelled) keys.push(keyOf(ns, labelled));
  return keys;
}

export function register(ctx: OperatorContext): void {
  const converged = ctx.convergedFlow;
  const pauseProvisionedBmhs = ctx.settings.pauseProvisionedBmhs;
  const coolDownMs = ctx.settings.imageCoolDownMs;
  const log = ctx.logger.child({ controller: 'bmac' });
  let builder = ctx.mgr
    .controller('bmac')
    .for(BARE_METAL_HOST)
    .watches<Agent>(AGENT, (a) => bmhKeysOfAgent(ctx, a))
    .watches<InfraEnv>(INFRA_ENV, (ie) => bmhsOfInfraEnv(ctx, ie).map((b) => objectKey(b)))
    // BMC credentials Secrets are cached once read (they get the watch label): a changed password
    // regenerates the fencing Secret.
    .watches<KubeObject>(SECRET, (s) => bmhsFencingWith(ctx, s).map((b) => objectKey(b)))
    // An installed cluster's day-2 hosts need its MCS CA (spoke-step.ts).
    .watches<ClusterDeployment>(CLUSTER_DEPLOYMENT, (cd) =>
      cd.spec.installed ? ctx.agentsOfCluster(objectKey(cd)).flatMap((a) => bmhKeysOfAgent(ctx, a)) : [],
    )
    .optional();
  if (converged) {
    builder = builder.watches<PreprovisioningImage>(PREPROVISIONING_IMAGE, (p) => [objectKey(p)]);
  }
  builder.complete(async (req) => {
    const bmh = bareMetalHosts(ctx).get(req.namespace, req.name);
    if (!bmh) return;
    const ieName = bmh.metadata.labels?.[INFRAENV_LABEL];
    const infraEnv = ieName ? ctx.informers.infraEnvs.get(req.namespace, ieName) : undefined;
    const agent = agentOf(ctx, bmh);
    const ppi = converged ? preprovisioningImages(ctx).get(req.namespace, req.name) : undefined;
    const spoke = await bmacSpokeInputs(ctx, bmh, agent, converged, log);
    const plan = planBmh({
      bmh,
      infraEnv,
      agent,
      converged,
      ppiReady: ppiReady(ppi),
      pauseProvisionedBmhs,
      now: ctx.now(),
      coolDownMs,
      ...spoke,
    });
    for (const note of plan.notes) {
      log[note.level]({ bmh: req.key, agent: agent ? objectKey(agent) : undefined }, note.msg);
      if (note.event) ctx.mgr.events.event(bmh, note.event.type, note.event.reason, note.event.message);
    }
    if (plan.waiting) log.debug({ bmh: req.key, why: plan.waiting }, 'BareMetalHost pass stopped early');
    if (plan.deleteAgent && agent) {
      // Before the finalizer goes: if this fails the BMH stays and the delete is retried.
      log.info({ bmh: req.key, agent: objectKey(agent) }, 'deleting the Agent of a deleted BareMetalHost');
      try {
        await ctx.client.delete(AGENT, agent.metadata.name ?? '', agent.metadata.namespace, {
          preconditions: { uid: agent.metadata.uid },
        });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    if (plan.patch) await patchBmh(ctx, bmh, plan.patch);
    let fencingError: string | undefined;
    if (plan.reconcileAgent && agent) {
      const fencing = await ensureFencingCredentials(ctx, bmh, agent);
      if ('error' in fencing) {
        fencingError = fencing.error;
        log.warn(
          { bmh: req.key, agent: objectKey(agent), err: fencing.error },
          'fencing credentials not set',
        );
        ctx.mgr.events.event(bmh, 'Warning', 'FencingCredentialsError', fencing.error);
      }
      const agentPlan = planAgent(bmh, agent, infraEnv, fencing.ref, (target) =>
        crossNamespaceRefusal(ctx.settings, 'BareMetalHost', bmh.metadata.namespace ?? '', target),
      );
      if (agentPlan.error) {
        log.warn(
          { bmh: req.key, agent: objectKey(agent), err: agentPlan.error },
          'BMH annotation not applied',
        );
        ctx.mgr.events.event(bmh, 'Warning', 'ClusterReferenceError', agentPlan.error);
      }
      if (agentPlan.patch) {
        try {
          await ctx.client.patch<Agent>(AGENT, agent.metadata.name ?? '', agent.metadata.namespace, 'merge', {
            ...agentPlan.patch,
            metadata: { ...agentPlan.patch.metadata, resourceVersion: agent.metadata.resourceVersion },
          });
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      }
    }
    // The rest of the pass is written; fail it so the work queue retries with backoff.
    if (fencingError) throw new Error(fencingError);
    return plan.requeueAfterMs !== undefined ? { requeueAfter: plan.requeueAfterMs } : undefined;
  });
}

/** One merge patch with optimistic lock: labels, annotations, finalizers and spec. */
async function patchBmh(ctx: OperatorContext, bmh: BareMetalHost, patch: BmhPatch): Promise<void> {
  const body = { ...patch, metadata: { ...patch.metadata, resourceVersion: bmh.metadata.resourceVersion } };
  try {
    await ctx.client.patch(BARE_METAL_HOST, bmh.metadata.name ?? '', bmh.metadata.namespace, 'merge', body);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}
