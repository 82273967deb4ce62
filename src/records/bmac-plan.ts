// Pure BareMetalHost ↔ Agent mappings of the BMAC controller (kubeapi.md §3.6, §4.5): which Agent a
// BMH pairs with, what the BMH spec/metadata should become (image delivery), what the Agent spec and
// labels should become (annotations, approval, root-device hints) and the metal3 hardware details.
// Every function returns a merge-patch fragment (or nothing) so the controller writes each object at
// most once per reconcile, and only when something changed. In records because the Agent reconciler
// computes BMAC's Agent patch too, when it stores a paired host's first inventory (agents/bmh-spec.ts).
import type { Agent, BareMetalHost, HostDisk, InfraEnv, PreprovisioningImage } from '../api/index.ts';
import {
  AGENT_BMH_LABEL,
  BACKUP_LABEL,
  BMH_AGENT_LABEL_ANNOTATION_PREFIX,
  BMH_ALLOW_PROVISIONED_HOST_MANAGEMENT_ANNOTATION,
  BMH_ANNOTATION_OWNER_VALUE,
  BMH_CLEANING_DISABLED,
  BMH_CLEANING_METADATA,
  BMH_CLUSTER_REFERENCE_ANNOTATION,
  BMH_CREATE_FENCING_CREDENTIALS_SECRET_ANNOTATION,
  BMH_DETACHED_ANNOTATION,
  BMH_DETACHED_DELAY_DELETE_VALUE,
  BMH_DRAIN_STARTED_AT_ANNOTATION,
  BMH_DRAIN_STATUS_ANNOTATION,
  BMH_FENCING_CREDENTIALS_SECRET_NAME_ANNOTATION,
  BMH_FINALIZER,
  BMH_HARDWARE_DETAILS_ANNOTATION,
  BMH_HOSTNAME_ANNOTATION,
  BMH_IGNITION_CONFIG_OVERRIDES_ANNOTATION,
  BMH_IMAGE_DISK_FORMAT_LIVE_ISO,
  BMH_INSPECT_ANNOTATION,
  BMH_INSPECT_DISABLED,
  BMH_INSTALLER_ARGS_ANNOTATION,
  BMH_MACHINE_CONFIG_POOL_ANNOTATION,
  BMH_NODE_LABEL_ANNOTATION_PREFIX,
  BMH_PAUSED_ANNOTATION,
  BMH_REMOVE_AGENT_AND_NODE_ON_DELETE_ANNOTATION,
  BMH_ROLE_ANNOTATION,
  BMH_SPOKE_BMH_MACHINE_CREATED_ANNOTATION,
  BMH_STATUS_ANNOTATION,
  CUSTOM_DEPLOY_METHOD_ASSISTED,
  INFRAENV_LABEL,
  WATCH_LABEL,
} from '../api/index.ts';
import { acceptableDisksWithHints, type RootDeviceHints } from '../core/hardware/index.ts';
import type { Inventory } from '../core/inventory.ts';
import { AGENT_CONDITION } from './agent-conditions.ts';

/** The PreprovisioningImage is Ready with reason InfraEnvAvailable: BMAC may deploy from it. */
export function ppiReady(ppi: PreprovisioningImage | undefined): boolean {
  return (ppi?.status?.conditions ?? []).some(
    (c) => c.type === 'Ready' && c.status === 'True' && c.reason === 'InfraEnvAvailable',
  );
}

/** What decideDrain (spoke.ts) concluded for this pass's drain attempt on the spoke. */
export interface DrainDecision {
  status: string;
  startedAt: string;
  /** Come back (drain in progress). */
  requeueAfterMs?: number;
  /** Deletion may go on. */
  proceed: boolean;
}

/** Installation disk id written when no inventory disk matches the hints (upstream's literal). */
export const DISK_NOT_FOUND_BY_HINTS = '/dev/not-found-by-hints';

/** Agent stages after which a non-converged BMH is detached (Failed, Rebooting, Joined, Done). */
const DETACH_STAGES = new Set(['Failed', 'Rebooting', 'Joined', 'Done']);

/** Agents of the namespace reporting `mac` on any interface; the newest wins (kubeapi.md §3.6). */
export function pickAgentForMac(candidates: readonly Agent[], mac: string | undefined): Agent | undefined {
  if (!mac) return undefined;
  const wanted = mac.toLowerCase();
  const matching = candidates.filter((a) =>
    (a.status?.inventory?.interfaces ?? []).some((i) => (i.macAddress ?? '').toLowerCase() === wanted),
  );
  matching.sort((a, b) =>
    (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? ''),
  );
  return matching[0];
}

/** Something a pass wants the user to see: a log line, plus an Event on the BMH when `event` is set. */
export interface BmacNote {
  level: 'info' | 'warn' | 'error';
  msg: string;
  event?: { type: 'Normal' | 'Warning'; reason: string; message: string };
}

export interface BmhPlan {
  /** Merge patch for the BMH (metadata, finalizers, spec); undefined when nothing changes. */
  patch: BmhPatch | undefined;
  /** Come back later (image cool-down, waiting for metal3 to reach `deleting`). */
  requeueAfterMs?: number;
  /** Why the pass stopped early (for debug logs). */
  waiting?: string;
  /** The Agent's spec and labels are reconciled (§3.6 step 7); false when an earlier step stopped. */
  reconcileAgent: boolean;
  /** Converged delete flow: delete the Agent, then write the patch (which drops the finalizer). */
  deleteAgent?: boolean;
  notes: BmacNote[];
}

export interface BmhPatch {
  metadata?: {
    labels?: Record<string, string | null>;
    annotations?: Record<string, string | null>;
    finalizers?: string[];
  };
  spec?: Record<string, unknown>;
}

export interface BmhPlanInput {
  bmh: BareMetalHost;
  infraEnv: InfraEnv | undefined;
  agent: Agent | undefined;
  converged: boolean;
  /** Converged flow: the same-named PreprovisioningImage is Ready with reason InfraEnvAvailable. */
  ppiReady: boolean;
  /** PAUSE_PROVISIONED_BMHS: pause detached BMHs and keep their status in an annotation. */
  pauseProvisionedBmhs: boolean;
  now: Date;
  coolDownMs: number;
  /**
   * Converged delete of a host that joined its cluster: the outcome of this pass's drain attempt
   * on the spoke (src/controllers/bmac/spoke.ts); undefined when no drain is needed or it is over.
   */
  drain?: DrainDecision;
  /** Day-2 host: the ignition-config-overrides annotation with the spoke's MCS CA merged in. */
  mcsCaOverrides?: string;
  /**
   * Day-2 host: this pass created (or found) its BareMetalHost and Machine on the spoke; the
   * RFC 3339 time to record in the spoke-bmh-machine-created annotation.
   */
  spokeBmhMachineCreated?: string;
}

/** The BMH fields a pass may write: labels, annotations, finalizers and these spec fields. */
const WRITTEN_SPEC_FIELDS = ['image', 'online', 'automatedCleaningMode', 'customDeploy'] as const;

/** The BMH as this pass wants it; steps edit it in order, the patch is its difference. */
interface Draft {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  finalizers: string[];
  spec: Record<string, unknown>;
}

function draftOf(bmh: BareMetalHost): Draft {
  const spec: Record<string, unknown> = {};
  const current = bmh.spec as Record<string, unknown>;
  for (const f of WRITTEN_SPEC_FIELDS) if (current[f] !== undefined) spec[f] = structuredClone(current[f]);
  return {
    labels: { ...bmh.metadata.labels },
    annotations: { ...bmh.metadata.annotations },
    finalizers: [...(bmh.metadata.finalizers ?? [])],
    spec,
  };
}

/** Merge patch from the BMH to the draft; a removed key or spec field becomes null. */
function mapDiff(
  from: Record<string, string> | undefined,
  to: Record<string, string>,
): Record<string, string | null> | undefined {
  const out: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(to)) if (from?.[k] !== v) out[k] = v;
  for (const k of Object.keys(from ?? {})) if (!(k in to)) out[k] = null;
  return Object.keys(out).length ? out : undefined;
}

function diffBmh(bmh: BareMetalHost, draft: Draft): BmhPatch | undefined {
  const metadata: NonNullable<BmhPatch['metadata']> = {};
  const labels = mapDiff(bmh.metadata.labels, draft.labels);
  const annotations = mapDiff(bmh.metadata.annotations, draft.annotations);
  if (labels) metadata.labels = labels;
  if (annotations) metadata.annotations = annotations;
  const finalizers = bmh.metadata.finalizers ?? [];
  if (finalizers.length !== draft.finalizers.length || finalizers.some((f, i) => draft.finalizers[i] !== f)) {
    metadata.finalizers = draft.finalizers;
  }
  const spec: Record<string, unknown> = {};
  const current = bmh.spec as Record<string, unknown>;
  for (const f of WRITTEN_SPEC_FIELDS) {
    if (JSON.stringify(current[f]) !== JSON.stringify(draft.spec[f])) spec[f] = draft.spec[f] ?? null;
  }
  const patch: BmhPatch = {};
  if (Object.keys(metadata).length) patch.metadata = metadata;
  if (Object.keys(spec).length) patch.spec = spec;
  return Object.keys(patch).length ? patch : undefined;
}

/** The Agent's Bound condition says it waits for its host to reboot into discovery (unbind). */
export function unbindingPendingUserAction(agent: Agent | undefined): boolean {
  return (agent?.status?.conditions ?? []).some(
    (c) => c.type === AGENT_CONDITION.bound && c.reason === 'UnbindingPendingUserAction',
  );
}

/** The Agent's install finished: its Installed condition is True or its stage is Done. */
export function agentInstalled(agent: Agent): boolean {
  return (
    (agent.status?.conditions ?? []).some(
      (c) => c.type === AGENT_CONDITION.installed && c.status === 'True',
    ) || agent.status?.progress?.currentStage === 'Done'
  );
}

/** Backend states and stages after which the host is a Node of its cluster. */
const NODE_STATES = new Set(['installed', 'added-to-existing-cluster']);
const NODE_STAGES = new Set(['Joined', 'Done']);

/**
 * The Agent is bound to a cluster and its host has joined it, so the spoke cluster has a Node for
 * it (the one upstream drains before deprovisioning).
 */
export function hasSpokeNode(agent: Agent): boolean {
  if (!agent.spec.clusterDeploymentName?.name) return false;
  return (
    agentInstalled(agent) ||
    NODE_STATES.has(agent.status?.debugInfo?.state ?? '') ||
    NODE_STAGES.has(agent.status?.progress?.currentStage ?? '')
  );
}

/** How long the converged delete flow waits between looks at the BMH provisioning state. */
export const DELETE_REQUEUE_MS = 10_000;

/** Annotations the unbind flow removes so the host can be rediscovered. */
const UNBIND_REMOVED_ANNOTATIONS = [
  BMH_DETACHED_ANNOTATION,
  BMH_PAUSED_ANNOTATION,
  BMH_HARDWARE_DETAILS_ANNOTATION,
  BMH_SPOKE_BMH_MACHINE_CREATED_ANNOTATION,
] as const;

type Step = 'continue' | 'stop';

/**
 * One BMAC pass over a BMH (kubeapi.md §3.6 steps 1–6 and 8, plus what the spoke half of the pass
 * brought for steps 9 and 10): the backup label, the finalizer and the delete flow, the unbind
 * flow, pause/detach, image delivery, the hardware details, the MCS CA overrides and the
 * spoke-bmh-machine-created annotation. Every
 * step edits one draft, so the BMH is written at most once, and only when something changed.
 */
export function planBmh(input: BmhPlanInput): BmhPlan {
  const { bmh } = input;
  const draft = draftOf(bmh);
  const plan: BmhPlan = { patch: undefined, reconcileAgent: false, notes: [] };
  const finish = (): BmhPlan => {
    plan.patch = diffBmh(bmh, draft);
    return plan;
  };
  if (!bmh.metadata.labels?.[INFRAENV_LABEL]) {
    // Not ours (any more): release the BMH and do nothing else.
    draft.finalizers = draft.finalizers.filter((f) => f !== BMH_FINALIZER);
    return finish();
  }
  if (input.infraEnv) draft.labels[BACKUP_LABEL] = 'true';
  if (bmh.metadata.deletionTimestamp) {
    if (draft.finalizers.includes(BMH_FINALIZER)) planDeletion(input, draft, plan);
    return finish();
  }
  if (!draft.finalizers.includes(BMH_FINALIZER)) draft.finalizers.push(BMH_FINALIZER);
  // Recorded whatever later steps decide: the spoke objects exist, and the annotation is what
  // keeps later passes (and the Agent's spoke cleanup) from asking the spoke again.
  if (input.spokeBmhMachineCreated !== undefined) {
    draft.annotations[BMH_SPOKE_BMH_MACHINE_CREATED_ANNOTATION] = input.spokeBmhMachineCreated;
  }
  if (unbindingPendingUserAction(input.agent) && planUnbound(input, draft, plan) === 'stop') return finish();
  planPauseDetach(input, draft, plan.notes);
  if (planImageDelivery(input, draft, plan) === 'stop') return finish();
  if (!input.agent) return finish();
  plan.reconcileAgent = true;
  if (!input.converged) planHardwareDetails(input.bmh, input.agent, draft);
  if (input.mcsCaOverrides !== undefined) {
    draft.annotations[BMH_IGNITION_CONFIG_OVERRIDES_ANNOTATION] = input.mcsCaOverrides;
  }
  return finish();
}

/**
 * BMH deletion with our finalizer. Converged, annotated remove-agent-and-node-on-delete, with an
 * Agent: let metal3 deprovision (no detached/paused, metadata cleaning), wait for `deleting`, delete
 * the Agent, release the BMH. Otherwise: unpause (and undetach in the annotated converged case) and
 * release it.
 */
function planDeletion(input: BmhPlanInput, draft: Draft, plan: BmhPlan): void {
  const { bmh, agent, converged } = input;
  const removeOnDelete =
    bmh.metadata.annotations?.[BMH_REMOVE_AGENT_AND_NODE_ON_DELETE_ANNOTATION] !== undefined;
  if (converged && removeOnDelete && agent) {
    if (input.drain) {
      draft.annotations[BMH_DRAIN_STARTED_AT_ANNOTATION] = input.drain.startedAt;
      draft.annotations[BMH_DRAIN_STATUS_ANNOTATION] = input.drain.status;
      if (!input.drain.proceed) {
        plan.requeueAfterMs = input.drain.requeueAfterMs;
        plan.waiting = `draining the spoke Node: ${input.drain.status}`;
        return;
      }
    }
    delete draft.annotations[BMH_DETACHED_ANNOTATION];
    delete draft.annotations[BMH_PAUSED_ANNOTATION];
    draft.spec.automatedCleaningMode = BMH_CLEANING_METADATA;
    if (bmh.status?.provisioning?.state !== 'deleting') {
      plan.requeueAfterMs = DELETE_REQUEUE_MS;
      plan.waiting = 'waiting for metal3 to deprovision the host (provisioning state deleting)';
      return;
    }
    if (!agent.metadata.deletionTimestamp) plan.deleteAgent = true;
  } else {
    delete draft.annotations[BMH_PAUSED_ANNOTATION];
    if (converged && removeOnDelete) delete draft.annotations[BMH_DETACHED_ANNOTATION];
  }
  draft.finalizers = draft.finalizers.filter((f) => f !== BMH_FINALIZER);
}

/**
 * The Agent was unbound and waits for its host to boot discovery again. Non-converged (only once
 * detached): drop the image so metal3 reboots the host into a fresh one. Converged: deprovision a
 * provisioned host (customDeploy null) and wait while it deprovisions.
 */
function planUnbound(input: BmhPlanInput, draft: Draft, plan: BmhPlan): Step {
  const clear = () => {
    for (const k of UNBIND_REMOVED_ANNOTATIONS) delete draft.annotations[k];
  };
  if (!input.converged) {
    if (draft.annotations[BMH_DETACHED_ANNOTATION] === undefined) return 'continue';
    clear();
    delete draft.spec.image;
    plan.waiting = 'unbound Agent: image removed so the host reboots into discovery';
    return 'stop';
  }
  clear();
  const state = input.bmh.status?.provisioning?.state ?? '';
  if (state === 'provisioned') {
    delete draft.spec.customDeploy;
    plan.waiting = 'unbound Agent: deprovisioning the host';
    return 'stop';
  }
  if (state === 'deprovisioning') {
    plan.waiting = 'unbound Agent: host deprovisioning';
    return 'stop';
  }
  return 'continue';
}

/**
 * Detach a host that no longer needs the discovery image (converged: provisioned; otherwise: the
 * Agent reached Failed, Rebooting, Joined or Done), pause it once metal3 reports it detached, and
 * unpause it when its status is gone (moved to a new hub). allow-provisioned-host-management keeps a
 * converged host attached and unpaused.
 */
function planPauseDetach(input: BmhPlanInput, draft: Draft, notes: BmacNote[]): void {
  const { bmh, agent, converged } = input;
  const ann = bmh.metadata.annotations ?? {};
  const removeOnDelete = ann[BMH_REMOVE_AGENT_AND_NODE_ON_DELETE_ANNOTATION] !== undefined;
  if (ann[BMH_ALLOW_PROVISIONED_HOST_MANAGEMENT_ANNOTATION] !== undefined) {
    if (converged && !removeOnDelete) {
      delete draft.annotations[BMH_DETACHED_ANNOTATION];
      delete draft.annotations[BMH_PAUSED_ANNOTATION];
      return;
    }
    notes.push({
      level: 'error',
      msg: converged
        ? `${BMH_ALLOW_PROVISIONED_HOST_MANAGEMENT_ANNOTATION} is ignored: the BareMetalHost also has ${BMH_REMOVE_AGENT_AND_NODE_ON_DELETE_ANNOTATION}`
        : `${BMH_ALLOW_PROVISIONED_HOST_MANAGEMENT_ANNOTATION} is ignored: it needs the converged flow`,
    });
  }
  const state = bmh.status?.provisioning?.state ?? '';
  const stage = agent?.status?.progress?.currentStage;
  const detach = converged ? state === 'provisioned' : stage !== undefined && DETACH_STAGES.has(stage);
  if (detach && !unbindingPendingUserAction(agent)) {
    draft.annotations[BMH_DETACHED_ANNOTATION] =
      converged && removeOnDelete ? BMH_DETACHED_DELAY_DELETE_VALUE : BMH_ANNOTATION_OWNER_VALUE;
    if (input.pauseProvisionedBmhs && bmh.status?.operationalStatus === 'detached') {
      draft.annotations[BMH_STATUS_ANNOTATION] = JSON.stringify(bmh.status);
      draft.annotations[BMH_PAUSED_ANNOTATION] = BMH_ANNOTATION_OWNER_VALUE;
    }
  }
  if (
    input.pauseProvisionedBmhs &&
    state === '' &&
    draft.annotations[BMH_PAUSED_ANNOTATION] !== undefined &&
    draft.annotations[BMH_STATUS_ANNOTATION] !== undefined
  ) {
    // No provisioning state but a saved status: the BMH came to a new hub. Unpausing lets metal3
    // restore its status from the annotation.
    delete draft.annotations[BMH_PAUSED_ANNOTATION];
  }
}

/**
 * Image delivery. Converged: customDeploy once the PreprovisioningImage is ready. Non-converged:
 * inspection and cleaning off, then the InfraEnv ISO as spec.image once it cooled down; an image on
 * a host that is not ready/available is dropped first so metal3 deprovisions it. A detached host is
 * left alone. "stop" ends the pass (nothing is done to the Agent this time).
 */
function planImageDelivery(input: BmhPlanInput, draft: Draft, plan: BmhPlan): Step {
  const { bmh, infraEnv } = input;
  if (!infraEnv) {
    plan.waiting = 'InfraEnv not found';
    return 'stop';
  }
  if (draft.annotations[BMH_DETACHED_ANNOTATION] !== undefined) return 'continue';
  if (input.converged) {
    const deploy = draft.spec.customDeploy as { method?: string } | undefined;
    if (deploy?.method !== CUSTOM_DEPLOY_METHOD_ASSISTED) {
      if (!input.ppiReady) {
        plan.waiting = 'PreprovisioningImage not ready';
        return 'stop';
      }
      draft.spec.customDeploy = { method: CUSTOM_DEPLOY_METHOD_ASSISTED };
    }
    return 'continue';
  }
  if (draft.annotations[BMH_INSPECT_ANNOTATION] === undefined)
    draft.annotations[BMH_INSPECT_ANNOTATION] = BMH_INSPECT_DISABLED;
  draft.spec.automatedCleaningMode = BMH_CLEANING_DISABLED;
  const url = infraEnv.status?.isoDownloadURL;
  if (!url) {
    plan.waiting = 'InfraEnv has no ISO URL yet';
    return 'stop';
  }
  if (bmh.spec.image?.url === url) return 'continue';
  const created = Date.parse(infraEnv.status?.createdTime ?? '');
  if (!Number.isNaN(created)) {
    const remaining = created + input.coolDownMs - input.now.getTime();
    if (remaining > 0) {
      plan.requeueAfterMs = remaining;
      plan.waiting = 'InfraEnv image cooling down';
      return 'stop';
    }
  }
  const state = bmh.status?.provisioning?.state ?? '';
  if (state !== 'ready' && state !== 'available') {
    // Only an idle host takes a new image. A stale one on a busy host is dropped first, so metal3
    // deprovisions it (and, after an unbind, reboots it) before a later pass boots the new image.
    delete draft.spec.image;
    plan.waiting = `waiting for the host to become available (provisioning state "${state}")`;
    return 'stop';
  }
  draft.spec.image = { url, diskFormat: BMH_IMAGE_DISK_FORMAT_LIVE_ISO };
  draft.spec.online = true;
  return 'stop';
}

/** Non-converged: metal3 HardwareDetails from the Agent inventory unless metal3 inspected the host. */
function planHardwareDetails(bmh: BareMetalHost, agent: Agent, draft: Draft): void {
  if (draft.annotations[BMH_HARDWARE_DETAILS_ANNOTATION] !== undefined || bmh.status?.hardware?.hostname)
    return;
  const details = hardwareDetails(agent);
  if (details) draft.annotations[BMH_HARDWARE_DETAILS_ANNOTATION] = JSON.stringify(details);
}

export interface AgentPlan {
  /** Merge patch for the Agent; undefined when nothing changes. */
  patch: { metadata?: { labels: Record<string, string> }; spec?: Record<string, unknown> } | undefined;
  /** A BMH annotation could not be applied (reported as an event and log line). */
  error?: string;
}

/** Why a cluster reference to `target` is not honoured (undefined: it is); see records/references.ts. */
export type ReferenceRefusal = (target: { namespace: string; name: string }) => string | undefined;

/**
 * The Agent spec and labels the BMH asks for (kubeapi.md §3.6 step 7). `fencingSecretRef` is the
 * fencing Secret to reference (see fencingPlan), once it exists; `refuseReference` vets the
 * cluster-reference annotation's target (cross-namespace references).
 */
export function planAgent(
  bmh: BareMetalHost,
  agent: Agent,
  infraEnv: InfraEnv | undefined,
  fencingSecretRef?: string,
  refuseReference?: ReferenceRefusal,
): AgentPlan {
  const ann = bmh.metadata.annotations ?? {};
  const spec: Record<string, unknown> = {};
  const labels: Record<string, string> = {};
  const current = agent.spec as Record<string, unknown>;
  const setString = (key: string, field: string) => {
    const value = ann[key];
    if (value !== undefined && current[field] !== value) spec[field] = value;
  };
  setString(BMH_ROLE_ANNOTATION, 'role');
  setString(BMH_HOSTNAME_ANNOTATION, 'hostname');
  setString(BMH_MACHINE_CONFIG_POOL_ANNOTATION, 'machineConfigPool');
  setString(BMH_INSTALLER_ARGS_ANNOTATION, 'installerArgs');
  setString(BMH_IGNITION_CONFIG_OVERRIDES_ANNOTATION, 'ignitionConfigOverrides');
  if (agent.spec.approved !== true) spec.approved = true;
  const name = bmh.metadata.name ?? '';
  if (agent.metadata.labels?.[AGENT_BMH_LABEL] !== name) labels[AGENT_BMH_LABEL] = name;

  const hints = bmh.spec.rootDeviceHints;
  if (hints && Object.keys(hints).length > 0) {
    const disk = diskForHints(agent, hints);
    if (agent.spec.installation_disk_id !== disk) spec.installation_disk_id = disk;
  }

  let error: string | undefined;
  const ref = ann[BMH_CLUSTER_REFERENCE_ANNOTATION];
  if (ref !== undefined) {
    const result = clusterReference(ref, agent, infraEnv, refuseReference);
    if ('error' in result) error = result.error;
    else if (result.change !== undefined) spec.clusterDeploymentName = result.change;
  }

  // Replace-all, even with no annotation left (upstream): the BMH owns the Agent's node labels.
  const nodeLabels = prefixed(ann, BMH_NODE_LABEL_ANNOTATION_PREFIX);
  if (!sameRecord(nodeLabels, agent.spec.nodeLabels ?? {})) {
    // A merge patch would keep user labels, so null out the ones not asked for.
    const replaced: Record<string, string | null> = { ...nodeLabels };
    for (const k of Object.keys(agent.spec.nodeLabels ?? {})) if (!(k in nodeLabels)) replaced[k] = null;
    spec.nodeLabels = replaced;
  }
  for (const [k, v] of Object.entries(prefixed(ann, BMH_AGENT_LABEL_ANNOTATION_PREFIX))) {
    if (agent.metadata.labels?.[k] !== v) labels[k] = v;
  }
  if (fencingSecretRef !== undefined && agent.spec.fencingCredentialsSecretRef !== fencingSecretRef) {
    spec.fencingCredentialsSecretRef = fencingSecretRef;
  }

  const patch: NonNullable<AgentPlan['patch']> = {};
  if (Object.keys(labels).length) patch.metadata = { labels };
  if (Object.keys(spec).length) patch.spec = spec;
  return { patch: Object.keys(patch).length ? patch : undefined, ...(error ? { error } : {}) };
}

/**
 * Fencing credentials for the Agent: the Secret named by the fencing-credentials-secret-name
 * annotation, else (create-fencing-credentials-secret present) `<agent>-fencing-credentials`, which
 * the controller generates from the BMC details first.
 */
export type FencingPlan = { kind: 'reference'; name: string } | { kind: 'generate'; name: string };

export function fencingPlan(bmh: BareMetalHost, agent: Agent): FencingPlan | undefined {
  const ann = bmh.metadata.annotations ?? {};
  const named = ann[BMH_FENCING_CREDENTIALS_SECRET_NAME_ANNOTATION];
  if (named !== undefined) return { kind: 'reference', name: named };
  if (ann[BMH_CREATE_FENCING_CREDENTIALS_SECRET_ANNOTATION] === undefined) return undefined;
  return { kind: 'generate', name: fencingSecretName(agent) };
}

export function fencingSecretName(agent: Agent): string {
  return `${agent.metadata.name ?? ''}-fencing-credentials`;
}

export interface FencingSecret {
  apiVersion: 'v1';
  kind: 'Secret';
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  type: 'Opaque';
  /** base64, as the API stores it. */
  data: Record<string, string>;
}

/**
 * The generated fencing Secret (in the Agent's namespace, labelled for backup and for our cache)
 * from the BMH's BMC details and its decoded BMC credentials Secret (undefined: not found).
 */
export function fencingSecret(
  bmh: BareMetalHost,
  agent: Agent,
  bmcCredentials: Record<string, string> | undefined,
): { secret: FencingSecret } | { error: string } {
  const bmc = bmh.spec.bmc;
  if (!bmc?.address || !bmc.credentialsName) {
    return {
      error:
        'cannot generate fencing credentials: the BareMetalHost has no spec.bmc address and credentialsName',
    };
  }
  const ref = `${bmh.metadata.namespace ?? ''}/${bmc.credentialsName}`;
  if (!bmcCredentials)
    return { error: `cannot generate fencing credentials: BMC credentials Secret ${ref} not found` };
  const { username, password } = bmcCredentials;
  if (!username || !password) {
    return {
      error: `cannot generate fencing credentials: BMC credentials Secret ${ref} lacks username or password`,
    };
  }
  const plain = {
    address: bmc.address,
    username,
    password,
    certificateVerification: bmc.disableCertificateVerification ? 'Disabled' : 'Enabled',
  };
  return {
    secret: {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: fencingSecretName(agent),
        namespace: agent.metadata.namespace ?? '',
        labels: { [BACKUP_LABEL]: 'true', [WATCH_LABEL]: 'true' },
      },
      type: 'Opaque',
      data: Object.fromEntries(Object.entries(plain).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    },
  };
}

/**
 * Merge patch bringing an existing Secret to the wanted fencing data and labels (other keys and
 * labels are kept); undefined when it already matches.
 */
export function fencingSecretPatch(
  existing: { metadata: { labels?: Record<string, string> }; data?: Record<string, string> },
  wanted: FencingSecret,
): { metadata?: { labels: Record<string, string> }; data?: Record<string, string> } | undefined {
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(wanted.metadata.labels))
    if (existing.metadata.labels?.[k] !== v) labels[k] = v;
  const data: Record<string, string> = {};
  for (const [k, v] of Object.entries(wanted.data)) if (existing.data?.[k] !== v) data[k] = v;
  const patch: { metadata?: { labels: Record<string, string> }; data?: Record<string, string> } = {};
  if (Object.keys(labels).length) patch.metadata = { labels };
  if (Object.keys(data).length) patch.data = data;
  return Object.keys(patch).length ? patch : undefined;
}

type ClusterRefResult =
  | { error: string }
  | { change: { name: string; namespace: string } | null | undefined };

/** The cluster-reference annotation: `ns/name` binds, "" unbinds (only without an InfraEnv clusterRef). */
export function clusterReference(
  value: string,
  agent: Agent,
  infraEnv: InfraEnv | undefined,
  refuseReference?: ReferenceRefusal,
): ClusterRefResult {
  const ieRef = infraEnv?.spec.clusterRef;
  if (ieRef?.name) {
    return {
      error: `failed to reconcile cluster reference.  InfraEnv already has cluster reference ${ieRef.namespace}/${ieRef.name}`,
    };
  }
  const existing = agent.spec.clusterDeploymentName;
  if (value === '') return { change: existing?.name ? null : undefined };
  const parts = value.split('/');
  if (parts.length !== 2 || !parts[0] || !parts[1]) {
    return {
      error: `failed to reconcile cluster reference: invalid value ${JSON.stringify(value)}, want <namespace>/<name>`,
    };
  }
  const [namespace, name] = parts as [string, string];
  if (existing?.name === name && existing.namespace === namespace) return { change: undefined };
  const refused = refuseReference?.({ namespace, name });
  if (refused) return { error: `failed to reconcile cluster reference: ${refused}` };
  return { change: { name, namespace } };
}

function prefixed(ann: Record<string, string>, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(ann)) {
    if (k.startsWith(prefix) && k.length > prefix.length) out[k.slice(prefix.length)] = v;
  }
  return out;
}

function sameRecord(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

/** The CR inventory disk in the core's shape, enough for the hint matcher. */
function coreDisk(d: HostDisk): NonNullable<Inventory['disks']>[number] {
  const eligibility = d.installationEligibility;
  return {
    id: d.id,
    path: d.path,
    by_path: d.byPath,
    hctl: d.hctl,
    model: d.model,
    vendor: d.vendor,
    serial: d.serial,
    wwn: d.wwn,
    size_bytes: d.sizeBytes,
    drive_type: d.driveType,
    ...(eligibility
      ? {
          installation_eligibility: {
            eligible: eligibility.eligible,
            not_eligible_reasons: eligibility.notEligibleReasons ?? [],
          },
        }
      : {}),
  } as NonNullable<Inventory['disks']>[number];
}

/**
 * The installation disk for the BMH's root-device hints: a matching Multipath disk if any, else the
 * first match, else DISK_NOT_FOUND_BY_HINTS (which the Agent then reports as an input error).
 */
export function diskForHints(agent: Agent, hints: RootDeviceHints): string {
  const disks = (agent.status?.inventory?.disks ?? []).map(coreDisk);
  const matches = acceptableDisksWithHints({ disks } as Inventory, hints);
  const chosen = matches.find((d) => d.drive_type === 'Multipath') ?? matches[0];
  return chosen?.id || DISK_NOT_FOUND_BY_HINTS;
}

/** metal3 HardwareDetails from the Agent inventory (kubeapi.md §3.6 step 8). */
export function hardwareDetails(agent: Agent): Record<string, unknown> | undefined {
  const inv = agent.status?.inventory;
  if (!inv?.interfaces?.length) return undefined;
  const nics: Record<string, unknown>[] = [];
  for (const nic of inv.interfaces) {
    for (const ip of [...(nic.ipV6Addresses ?? []), ...(nic.ipV4Addresses ?? [])]) {
      nics.push({
        ip: ip.split('/')[0],
        name: nic.name ?? '',
        model: nic.vendor ?? '',
        mac: nic.macAddress ?? '',
        speedGbps: Math.floor((nic.speedMbps ?? 0) / 1024),
      });
    }
  }
  const storage = (inv.disks ?? []).map((d) => ({
    name: d.byPath || d.path || '',
    hctl: d.hctl ?? '',
    model: d.model ?? '',
    sizeBytes: d.sizeBytes ?? 0,
    serialNumber: d.serial ?? '',
    wwn: d.wwn ?? '',
    vendor: d.vendor ?? '',
    rotational: d.driveType === 'HDD',
  }));
  const physical = inv.memory?.physicalBytes ?? 0;
  return {
    nics,
    storage,
    ...(physical > 0 ? { ramMebibytes: Math.floor(physical / (1024 * 1024)) } : {}),
    cpu: {
      arch: inv.cpu?.architecture ?? '',
      model: inv.cpu?.modelName ?? '',
      clockMegahertz: inv.cpu?.clockMegahertz ?? 0,
      flags: inv.cpu?.flags ?? [],
      count: inv.cpu?.count ?? 0,
    },
    systemVendor: {
      manufacturer: inv.systemVendor?.manufacturer ?? '',
      productName: inv.systemVendor?.productName ?? '',
      serialNumber: inv.systemVendor?.serialNumber ?? '',
    },
    hostname: agent.spec.hostname || inv.hostname || '',
  };
}
