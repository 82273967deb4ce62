// The Agent spec and labels BMAC would give an Agent, computed by the Agent reconciler in a pass
// that stores an inventory (issue 16; in practice the first, after which BMAC has nothing left to
// change until a BMH annotation does). BMAC pairs a BareMetalHost with its Agent by
// the boot MAC, which only the inventory carries, so in a ZTP site the inventory used to cost two
// writes (metadata, status), then BMAC's spec patch, then two more (the validations and approval
// that spec changes): five Agent writes. Folded into the inventory's own metadata patch, the
// status is computed once from the spec BMAC asks for and BMAC's own pass finds nothing to change.
//
// Only the common case is folded; anything else is left to BMAC, which compares with the Agent
// as stored and writes whatever differs: a BMH being deleted, a day-2 host (its overrides get the
// spoke's CA first), several BMHs or a newer Agent booting from the MAC, fencing credentials (BMAC
// creates their Secret first), a cluster reference (it changes the Agent's binding) and any
// annotation BMAC would report an error for.
import type { Agent, BareMetalHost, PreprovisioningImage } from '../../api/index.ts';
import { INFRAENV_LABEL } from '../../api/index.ts';
import { type AgentPlan, pickAgentForMac, planAgent, planBmh, ppiReady } from '../bmac-plan.ts';
import type { OperatorContext } from '../context.ts';
import { bmhsBootingFrom } from '../metal3.ts';
import { crossNamespaceRefusal } from '../references.ts';
import { BARE_METAL_HOST, PREPROVISIONING_IMAGE } from '../resources.ts';

export type BmacAgentPatch = NonNullable<AgentPlan['patch']>;

/** The one BMH that BMAC would pair `agent` with (its inventory in status), if there is exactly one. */
function pairedBmh(ctx: OperatorContext, agent: Agent): BareMetalHost | undefined {
  const ns = agent.metadata.namespace ?? '';
  const macs = (agent.status?.inventory?.interfaces ?? []).map((i) => i.macAddress ?? '');
  const bmhs = bmhsBootingFrom(ctx, ns, macs);
  if (bmhs.length !== 1) return undefined;
  const bmh = bmhs[0]!;
  const mac = bmh.spec.bootMACAddress ?? '';
  const others = ctx
    .agentsByMac(mac)
    .filter((a) => a.metadata.namespace === ns && a.metadata.name !== agent.metadata.name);
  return pickAgentForMac([...others, agent], mac) === agent ? bmh : undefined;
}

/**
 * BMAC's Agent patch for `agent` (its new inventory already in status), or undefined when BMAC
 * would not touch the Agent now or the case is one left to BMAC (above).
 */
export function bmacAgentPatch(ctx: OperatorContext, agent: Agent): BmacAgentPatch | undefined {
  // No BMH informer: metal3 is not served here, so BMAC does not run.
  if (!ctx.mgr.existingInformer<BareMetalHost>(BARE_METAL_HOST)) return undefined;
  const bmh = pairedBmh(ctx, agent);
  if (!bmh || bmh.metadata.deletionTimestamp) return undefined;
  const ref = agent.spec.clusterDeploymentName;
  const cd = ref?.name
    ? ctx.informers.clusterDeployments.get(ref.namespace || agent.metadata.namespace || '', ref.name)
    : undefined;
  if (cd?.spec.installed) return undefined;
  const ns = bmh.metadata.namespace ?? '';
  const ieName = bmh.metadata.labels?.[INFRAENV_LABEL];
  const infraEnv = ieName ? ctx.informers.infraEnvs.get(ns, ieName) : undefined;
  const converged = ctx.convergedFlow;
  const ppis = converged ? ctx.mgr.existingInformer<PreprovisioningImage>(PREPROVISIONING_IMAGE) : undefined;
  const ppi = ppis?.get(ns, bmh.metadata.name ?? '');
  const plan = planBmh({
    bmh,
    infraEnv,
    agent,
    converged,
    ppiReady: ppiReady(ppi),
    pauseProvisionedBmhs: ctx.settings.pauseProvisionedBmhs,
    now: ctx.now(),
    coolDownMs: ctx.settings.imageCoolDownMs,
  });
  if (!plan.reconcileAgent) return undefined;
  const wanted = planAgent(bmh, agent, infraEnv, undefined, (target) =>
    crossNamespaceRefusal(ctx.settings, 'BareMetalHost', ns, target),
  );
  if (wanted.error || !wanted.patch) return undefined;
  const { clusterDeploymentName: _binding, ...spec } = wanted.patch.spec ?? {};
  const patch: BmacAgentPatch = {};
  if (wanted.patch.metadata) patch.metadata = wanted.patch.metadata;
  if (Object.keys(spec).length > 0) patch.spec = spec;
  return Object.keys(patch).length > 0 ? patch : undefined;
}

/** A merge patch's string map applied in memory (null removes a key). */
export function mergeStringMap(
  have: Record<string, string> | undefined,
  patch: unknown,
): Record<string, string> {
  const out = { ...(have ?? {}) };
  for (const [k, v] of Object.entries((patch ?? {}) as Record<string, string | null>)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}

/** `agent` with BMAC's patch applied in memory (merge-patch semantics: null drops a node label). */
export function withBmacPatch(agent: Agent, patch: BmacAgentPatch | undefined): Agent {
  if (!patch) return agent;
  const spec: Record<string, unknown> = { ...agent.spec, ...(patch.spec ?? {}) };
  if (patch.spec?.nodeLabels) spec.nodeLabels = mergeStringMap(agent.spec.nodeLabels, patch.spec.nodeLabels);
  return {
    ...agent,
    metadata: { ...agent.metadata, labels: mergeStringMap(agent.metadata.labels, patch.metadata?.labels) },
    spec,
  } as Agent;
}
