// BMAC controller (kubeapi.md §3.6): pairs each BareMetalHost labelled with an InfraEnv with the
// Agent that boots on it (by boot MAC), delivers the discovery image to the BMH (non-converged:
// spec.image; converged: customDeploy once the PreprovisioningImage is ready) and configures the
// Agent from the BMH annotations. Optional controller: it starts only when the metal3 CRDs are
// served, and the BMH/PPI informers are created by the manager when it wires the controller —
// never at register time — so they are read lazily through `ctx.mgr.informer()` inside reconciles.
//
// Left out (documented in the report): the unbind flow, BMH deletion with drain/Agent removal,
// pause/status annotations, fencing Secrets and the day-2 spoke BMH/Machine and MCS CA steps.
import type { Agent, BareMetalHost, InfraEnv, PreprovisioningImage } from '../../api/index.ts';
import {
  AGENT_BMH_LABEL,
  BMH_FINALIZER,
  BMH_HARDWARE_DETAILS_ANNOTATION,
  INFRAENV_LABEL,
} from '../../api/index.ts';
import type { OperatorContext } from '../../operator/context.ts';
import { AGENT, BARE_METAL_HOST, INFRA_ENV, PREPROVISIONING_IMAGE } from '../../operator/resources.ts';
import { type Informer, isNotFound, keyOf, objectKey } from '../../runtime/index.ts';
import { INFRAENV_IMAGE_COOLDOWN_MS } from '../infraenv/cooldown.ts';
import { type BmhPatch, hardwareDetails, pickAgentForMac, planAgent, planBmh } from './mapping.ts';

/**
 * BMAC_IMAGE_COOLDOWN_MS overrides the 60 s InfraEnv image cool-down (tests); read once at
 * registration.
 */
export function imageCoolDownMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = Number(env.BMAC_IMAGE_COOLDOWN_MS);
  return env.BMAC_IMAGE_COOLDOWN_MS !== undefined && Number.isFinite(raw) && raw >= 0
    ? raw
    : INFRAENV_IMAGE_COOLDOWN_MS;
}

/** The BMH informer; only valid once the manager wired an optional controller over BMHs. */
export function bareMetalHosts(ctx: OperatorContext): Informer<BareMetalHost> {
  return ctx.mgr.informer<BareMetalHost>(BARE_METAL_HOST);
}

/** The PPI informer; same caveat as bareMetalHosts. */
export function preprovisioningImages(ctx: OperatorContext): Informer<PreprovisioningImage> {
  return ctx.mgr.informer<PreprovisioningImage>(PREPROVISIONING_IMAGE);
}

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
  const macs = new Set(
    (agent.status?.inventory?.interfaces ?? [])
      .map((i) => (i.macAddress ?? '').toLowerCase())
      .filter(Boolean),
  );
  const keys = bareMetalHosts(ctx)
    .store.byNamespace(ns ?? '')
    .filter((b) => macs.has((b.spec.bootMACAddress ?? '').toLowerCase()))
    .map((b) => objectKey(b));
  const labelled = agent.metadata.labels?.[AGENT_BMH_LABEL];
  if (labelled) keys.push(keyOf(ns, labelled));
  return keys;
}

export function register(ctx: OperatorContext): void {
  const converged = ctx.settings.allowConvergedFlow;
  const coolDownMs = imageCoolDownMs();
  const log = ctx.logger.child({ controller: 'bmac' });
  let builder = ctx.mgr
    .controller('bmac')
    .for(BARE_METAL_HOST)
    .watches<Agent>(AGENT, (a) => bmhKeysOfAgent(ctx, a))
    .watches<InfraEnv>(INFRA_ENV, (ie) =>
      bareMetalHosts(ctx)
        .store.byNamespace(ie.metadata.namespace ?? '')
        .filter(
          (b) =>
            (b.metadata.labels?.[INFRAENV_LABEL] ?? '').toLowerCase() ===
            (ie.metadata.name ?? '').toLowerCase(),
        )
        .map((b) => objectKey(b)),
    )
    .optional();
  if (converged) {
    builder = builder.watches<PreprovisioningImage>(PREPROVISIONING_IMAGE, (p) => [objectKey(p)]);
  }
  builder.complete(async (req) => {
    const bmh = bareMetalHosts(ctx).get(req.namespace, req.name);
    if (!bmh) return;
    const ieName = bmh.metadata.labels?.[INFRAENV_LABEL];
    const finalizers = bmh.metadata.finalizers ?? [];
    const hasFinalizer = finalizers.includes(BMH_FINALIZER);
    if (!ieName || bmh.metadata.deletionTimestamp) {
      // Not ours (any more) or going away: release the BMH. The converged delete flow (drain,
      // Agent removal) is not implemented.
      if (hasFinalizer)
        await patchBmh(
          ctx,
          bmh,
          { metadata: {} },
          finalizers.filter((f) => f !== BMH_FINALIZER),
        );
      return;
    }
    const infraEnv = ctx.informers.infraEnvs.get(req.namespace, ieName);
    const agent = agentOf(ctx, bmh);
    const ppi = converged ? preprovisioningImages(ctx).get(req.namespace, req.name) : undefined;
    const ppiReady = (ppi?.status?.conditions ?? []).some(
      (c) => c.type === 'Ready' && c.status === 'True' && c.reason === 'InfraEnvAvailable',
    );
    const plan = planBmh({ bmh, infraEnv, agent, converged, ppiReady, now: ctx.now(), coolDownMs });
    const patch: BmhPatch = plan.patch ?? {};
    if (
      !converged &&
      agent &&
      !bmh.metadata.annotations?.[BMH_HARDWARE_DETAILS_ANNOTATION] &&
      !bmh.status?.hardware?.hostname
    ) {
      const details = hardwareDetails(agent);
      if (details) {
        patch.metadata = patch.metadata ?? {};
        patch.metadata.annotations = {
          ...patch.metadata.annotations,
          [BMH_HARDWARE_DETAILS_ANNOTATION]: JSON.stringify(details),
        };
      }
    }
    if (plan.waiting) log.debug({ bmh: req.key, why: plan.waiting }, 'image delivery waiting');
    if (Object.keys(patch).length > 0 || !hasFinalizer) {
      await patchBmh(ctx, bmh, patch, hasFinalizer ? undefined : [...finalizers, BMH_FINALIZER]);
    }
    if (agent) {
      const agentPlan = planAgent(bmh, agent, infraEnv);
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
    return plan.requeueAfterMs !== undefined ? { requeueAfter: plan.requeueAfterMs } : undefined;
  });
}

/** One merge patch with optimistic lock: metadata, spec and (optionally) the finalizer list. */
async function patchBmh(
  ctx: OperatorContext,
  bmh: BareMetalHost,
  patch: BmhPatch,
  finalizers: string[] | undefined,
): Promise<void> {
  const body = {
    ...patch,
    metadata: {
      ...patch.metadata,
      ...(finalizers ? { finalizers } : {}),
      resourceVersion: bmh.metadata.resourceVersion,
    },
  };
  try {
    await ctx.client.patch(BARE_METAL_HOST, bmh.metadata.name ?? '', bmh.metadata.namespace, 'merge', body);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}
