// Decisions of the day-2 work on the spoke after a host rebooted (kubeapi.md §3.4.7 "Day-2 host
// after reboot") and of spoke cleanup (§3.4.1, §3.4.3 step 1), as pure functions: which hosts need
// it, whether CSRs are auto-approved, which CSRs match a host, what csrStatus records, which node
// labels to patch, and the stage to report. src/controllers/agent/spoke-work.ts does the I/O.

import {
  AGENT_SKIP_SPOKE_CLEANUP_ANNOTATION,
  type Agent,
  type CsrInfo,
  type CsrStatus,
  MACHINE_BMH_ANNOTATION,
  MACHINE_CLUSTER_API_MACHINESET_LABEL,
  MACHINE_DELETE_ANNOTATION,
  MACHINE_EXCLUDE_NODE_DRAINING_ANNOTATION,
  MACHINESET_AUTOSCALE_TO_HOSTS_ANNOTATION,
  NODE_MACHINE_ANNOTATION,
} from '../../api/index.ts';
import type { Cluster, Host, HostStatus } from '../../core/model.ts';
import { isDay2Host, isSingleNodeCluster, STAGE } from '../../core/statemachine/index.ts';
import type { KubeObject } from '../../runtime/index.ts';
import { x509 } from '../../util/x509.ts';

// ---------------------------------------------------------------------------------------------
// Spoke object shapes (the fields read here)
// ---------------------------------------------------------------------------------------------

export interface NodeCondition {
  type: string;
  status: string;
}

export interface SpokeNode extends KubeObject {
  status?: { conditions?: NodeCondition[] };
}

export interface CsrCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

export interface SpokeCsr extends KubeObject {
  spec: {
    /** Base64 of the PEM-encoded PKCS#10 request. */
    request: string;
    signerName?: string;
    username?: string;
    groups?: string[];
    usages?: string[];
  };
  status?: { conditions?: CsrCondition[]; certificate?: string };
}

/** The identity kubelets bootstrap with on OpenShift (machine-config-operator's service account). */
export const NODE_BOOTSTRAPPER_USER =
  'system:serviceaccount:openshift-machine-config-operator:node-bootstrapper';
export const KUBELET_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';
export const KUBELET_SERVING_SIGNER = 'kubernetes.io/kubelet-serving';
const NODES_GROUP = 'system:nodes';

export type CsrType = 'client' | 'serving';

// ---------------------------------------------------------------------------------------------
// Which hosts, and whether to auto-approve
// ---------------------------------------------------------------------------------------------

type StageHost = Pick<Host, 'kind' | 'cluster_id' | 'status' | 'progress'>;

const AFTER_REBOOT_STAGES: readonly string[] = [STAGE.rebooting, STAGE.joined, STAGE.configuring];

/**
 * A bound day-2 host past its reboot whose Node the reconciler follows until Done: stage Rebooting,
 * Joined or Configuring, or pending user action, or `installed` short of Done.
 */
export function needsDay2SpokeWork(host: StageHost): boolean {
  if (!isDay2Host(host) || !host.cluster_id) return false;
  const stage = host.progress?.current_stage ?? '';
  if (AFTER_REBOOT_STAGES.includes(stage)) return true;
  if (host.status === 'installing-pending-user-action') return true;
  return host.status === 'installed' && stage !== STAGE.done;
}

export type CsrApprovalCluster = Pick<
  Cluster,
  'user_managed_networking' | 'platform' | 'control_plane_count' | 'install_config_overrides'
>;

/** baselineCapabilitySet and additionalEnabledCapabilities from the install-config overrides. */
export function capabilitiesOf(cluster: Pick<Cluster, 'install_config_overrides'>): {
  baseline?: string;
  additional: string[];
} {
  try {
    const parsed = JSON.parse(cluster.install_config_overrides || '{}') as {
      capabilities?: { baselineCapabilitySet?: unknown; additionalEnabledCapabilities?: unknown };
    };
    const caps = parsed?.capabilities;
    const baseline = typeof caps?.baselineCapabilitySet === 'string' ? caps.baselineCapabilitySet : undefined;
    const additional = Array.isArray(caps?.additionalEnabledCapabilities)
      ? caps.additionalEnabledCapabilities.filter((c): c is string => typeof c === 'string')
      : [];
    return { ...(baseline !== undefined ? { baseline } : {}), additional };
  } catch {
    return { additional: [] };
  }
}

/**
 * Whether the cluster's Machine API looks after its bare-metal hosts (approves their CSRs, owns
 * Machines and BareMetalHosts on the spoke). Not with user-managed networking or platform none
 * (SNO counts), nor on baremetal with capabilities `None` + `baremetal` and no `MachineAPI`. Shared
 * by CSR auto-approval (§3.4.7 step 1) and the BMAC's day-2 spoke BMH and Machine (§3.6 step 10).
 */
export function clusterHasMachineApi(cluster: CsrApprovalCluster): boolean {
  if (cluster.user_managed_networking || cluster.platform?.type === 'none' || isSingleNodeCluster(cluster))
    return false;
  if (cluster.platform?.type === 'baremetal') {
    const caps = capabilitiesOf(cluster);
    if (
      caps.baseline === 'None' &&
      caps.additional.includes('baremetal') &&
      !caps.additional.includes('MachineAPI')
    )
      return false;
  }
  return true;
}

/**
 * Whether the reconciler approves the host's CSRs (§3.4.7 step 1): at stage Rebooting or Joined or
 * pending user action, on a cluster whose own machine approver will not (no Machine API, see
 * clusterHasMachineApi), or for a host without a BareMetalHost.
 */
export function shouldApproveCsrs(input: {
  host: Pick<Host, 'status' | 'progress'>;
  cluster: CsrApprovalCluster;
  hasBmh: boolean;
}): boolean {
  const { host, cluster } = input;
  const stage = host.progress?.current_stage ?? '';
  const waiting =
    stage === STAGE.rebooting || stage === STAGE.joined || host.status === 'installing-pending-user-action';
  if (!waiting) return false;
  if (!clusterHasMachineApi(cluster)) return true;
  return !input.hasBmh;
}

// ---------------------------------------------------------------------------------------------
// CSRs
// ---------------------------------------------------------------------------------------------

/** Subject common names and organizations of a CSR's request; undefined when unreadable. */
export function csrSubject(csr: SpokeCsr): { cn: string[]; o: string[] } | undefined {
  try {
    const pem = Buffer.from(csr.spec.request ?? '', 'base64').toString('utf8');
    const req = new x509.Pkcs10CertificateRequest(pem);
    return { cn: req.subjectName.getField('CN'), o: req.subjectName.getField('O') };
  } catch {
    return undefined;
  }
}

function conditionOf(csr: SpokeCsr, type: string): CsrCondition | undefined {
  return csr.status?.conditions?.find((c) => c.type === type && c.status !== 'False');
}

/** Neither approved, denied nor failed. */
export function csrPending(csr: SpokeCsr): boolean {
  return !conditionOf(csr, 'Approved') && !conditionOf(csr, 'Denied') && !conditionOf(csr, 'Failed');
}

/** When an approved CSR was approved (its Approved condition), else undefined. */
export function csrApprovedAt(csr: SpokeCsr): string | undefined {
  const c = conditionOf(csr, 'Approved');
  if (!c || conditionOf(csr, 'Denied')) return undefined;
  return c.lastUpdateTime || c.lastTransitionTime || '';
}

/**
 * Whether a CSR is this host's kubelet asking for a certificate: a client certificate requested by
 * the node bootstrapper, or a serving certificate requested by the node itself, in both cases for
 * subject CN `system:node:<hostname>` in organization `system:nodes`.
 */
export function csrTypeFor(csr: SpokeCsr, hostname: string): CsrType | undefined {
  if (!hostname) return undefined;
  const nodeUser = `system:node:${hostname}`;
  const { signerName, username } = csr.spec;
  let type: CsrType;
  if (signerName === KUBELET_CLIENT_SIGNER && username === NODE_BOOTSTRAPPER_USER) type = 'client';
  else if (signerName === KUBELET_SERVING_SIGNER && username === nodeUser) type = 'serving';
  else return undefined;
  const subject = csrSubject(csr);
  if (!subject) return undefined;
  const [cn, ...moreCns] = subject.cn;
  if (cn !== nodeUser || moreCns.length > 0 || !subject.o.includes(NODES_GROUP)) return undefined;
  return type;
}

export interface CsrPlan {
  /** Pending CSRs of the host to approve now. */
  approve: { name: string; type: CsrType }[];
  /** The host's CSRs already approved (by this operator earlier, or by anyone). */
  approved: CsrInfo[];
}

/**
 * The host's CSRs: pending client CSRs are approved at once, pending serving CSRs once its Node
 * exists (§3.4.7 step 3). Sorted by name, so the outcome does not depend on list order.
 */
export function planCsrApprovals(csrs: readonly SpokeCsr[], hostname: string, nodeExists: boolean): CsrPlan {
  const plan: CsrPlan = { approve: [], approved: [] };
  const sorted = [...csrs].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  for (const csr of sorted) {
    const name = csr.metadata.name ?? '';
    const type = csrTypeFor(csr, hostname);
    if (!name || !type) continue;
    const approvedAt = csrApprovedAt(csr);
    if (approvedAt !== undefined) plan.approved.push({ name, type, approvedAt });
    else if (csrPending(csr) && (type === 'client' || nodeExists)) plan.approve.push({ name, type });
  }
  return plan;
}

/**
 * csrStatus after an approval pass: earlier entries are kept (approved CSRs are garbage-collected
 * on the spoke after a while), new ones added by name. lastApprovalAttempt moves only when this
 * pass approved something, so a pass with nothing to do writes nothing.
 */
export function mergeCsrStatus(
  previous: CsrStatus | undefined,
  approved: readonly CsrInfo[],
  attemptedAt: string | undefined,
): CsrStatus {
  const byName = new Map<string, CsrInfo>();
  for (const c of previous?.approvedCSRs ?? []) byName.set(c.name, c);
  for (const c of approved) if (!byName.has(c.name)) byName.set(c.name, c);
  const approvedCSRs = [...byName.values()];
  const last = attemptedAt ?? previous?.lastApprovalAttempt;
  return {
    ...(approvedCSRs.length > 0 ? { approvedCSRs } : {}),
    ...(last ? { lastApprovalAttempt: last } : {}),
  };
}

/** Whether csrStatus records both a client and a serving CSR. */
export function clientAndServingApproved(status: CsrStatus | undefined): boolean {
  const types = new Set((status?.approvedCSRs ?? []).map((c) => c.type));
  return types.has('client') && types.has('serving');
}

// ---------------------------------------------------------------------------------------------
// Node
// ---------------------------------------------------------------------------------------------

export function nodeReady(node: SpokeNode | undefined): boolean {
  return node?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
}

/** The labels of `wanted` the Node lacks or has with another value; undefined when none. */
export function nodeLabelsPatch(
  node: SpokeNode,
  wanted: Readonly<Record<string, string>> | undefined,
): Record<string, string> | undefined {
  const have = node.metadata.labels ?? {};
  const patch: Record<string, string> = {};
  for (const [k, v] of Object.entries(wanted ?? {})) if (have[k] !== v) patch[k] = v;
  return Object.keys(patch).length > 0 ? patch : undefined;
}

// ---------------------------------------------------------------------------------------------
// Progress
// ---------------------------------------------------------------------------------------------

/** progress_info of a Done that ends a wait for the user (the host booted the installed system after all). */
export const RECOVERED_FROM_PENDING_USER_ACTION_INFO =
  'Host recovered from installing-pending-user-action: its Node joined the cluster';

/**
 * The stage to report (§3.4.7 step 5): Done once the Node is Ready and, when approving, a client
 * and a serving CSR were approved; Joined otherwise. A host pending user action (it booted the
 * wrong disk) only moves once there is sign of its kubelet — the Node or an approved CSR — so the
 * wait for the user is not cleared by a guess.
 */
export function day2Stage(input: {
  status: HostStatus;
  nodeExists: boolean;
  nodeReady: boolean;
  autoApprove: boolean;
  csrStatus: CsrStatus | undefined;
}): { stage: typeof STAGE.done | typeof STAGE.joined; info: string } | undefined {
  const pending = input.status === 'installing-pending-user-action';
  if (input.nodeReady && (!input.autoApprove || clientAndServingApproved(input.csrStatus))) {
    return { stage: STAGE.done, info: pending ? RECOVERED_FROM_PENDING_USER_ACTION_INFO : '' };
  }
  if (pending && !input.nodeExists && (input.csrStatus?.approvedCSRs ?? []).length === 0) return undefined;
  return { stage: STAGE.joined, info: '' };
}

// ---------------------------------------------------------------------------------------------
// Spoke cleanup
// ---------------------------------------------------------------------------------------------

/** skip-spoke-cleanup (presence only): the spoke stays as it is on Agent delete or unbind (§4.1). */
export function skipsSpokeCleanup(agent: Pick<Agent, 'metadata'>): boolean {
  return agent.metadata.annotations?.[AGENT_SKIP_SPOKE_CLEANUP_ANNOTATION] !== undefined;
}

/**
 * Whether a deleted Agent left something on the spoke (§3.4.1 step 1): stage Done, a BMH the BMAC
 * created a spoke Machine for, or CSRs this operator approved.
 */
export function spokeResourcesExist(input: {
  stage: string | undefined;
  bmhMachineCreated: boolean;
  csrStatus: CsrStatus | undefined;
}): boolean {
  return (
    input.stage === STAGE.done || input.bmhMachineCreated || (input.csrStatus?.approvedCSRs ?? []).length > 0
  );
}

/** `<namespace>/<name>` → parts; undefined unless both are there. */
export function splitNamespacedName(
  value: string | undefined,
): { namespace: string; name: string } | undefined {
  const [namespace, name, ...rest] = (value ?? '').split('/');
  if (!namespace || !name || rest.length > 0) return undefined;
  return { namespace, name };
}

export type SpokeNodeCleanupStep =
  | { kind: 'delete-node' }
  | {
      kind: 'machine';
      machine: { namespace: string; name: string };
    };

/** What cleaning a spoke Node means (§3.4.1 step 2): through its Machine when it names one. */
export function nodeCleanupStep(node: SpokeNode): SpokeNodeCleanupStep {
  const machine = splitNamespacedName(node.metadata.annotations?.[NODE_MACHINE_ANNOTATION]);
  return machine ? { kind: 'machine', machine } : { kind: 'delete-node' };
}

export interface MachineCleanupPlan {
  /** Annotations set on the Machine. */
  machineAnnotations: Record<string, string>;
  /** MachineSet to annotate with autoscale-to-hosts (it scales down; Machine and Node follow). */
  machineSet?: { namespace: string; name: string };
  machineSetAnnotations: Record<string, string>;
  /** BareMetalHost to delete on the spoke. */
  bmh?: { namespace: string; name: string };
  /** Whether the Machine itself is deleted (not owned by a MachineSet). */
  deleteMachine: boolean;
}

/** The Machine branch of spoke cleanup, from the Machine's labels and annotations. */
export function machineCleanupPlan(machine: KubeObject): MachineCleanupPlan {
  const ns = machine.metadata.namespace ?? '';
  const machineSet = machine.metadata.labels?.[MACHINE_CLUSTER_API_MACHINESET_LABEL];
  const bmh = splitNamespacedName(machine.metadata.annotations?.[MACHINE_BMH_ANNOTATION]);
  return {
    machineAnnotations: {
      [MACHINE_DELETE_ANNOTATION]: 'true',
      [MACHINE_EXCLUDE_NODE_DRAINING_ANNOTATION]: 'true',
    },
    ...(machineSet ? { machineSet: { namespace: ns, name: machineSet } } : {}),
    machineSetAnnotations: { [MACHINESET_AUTOSCALE_TO_HOSTS_ANNOTATION]: 'true' },
    ...(bmh ? { bmh } : {}),
    deleteMachine: !machineSet,
  };
}

/**
 * Why the spoke is left alone although the Agent had something there (§3.4.1 step 2): cleanup runs
 * only while the ClusterDeployment, its AgentClusterInstall and the Agent's InfraEnv exist and none
 * is being deleted (a cluster on its way out takes its Nodes with it). Undefined: go ahead.
 */
export function spokeCleanupBlockedBy(objects: {
  clusterDeployment: KubeObject | undefined;
  agentClusterInstall: KubeObject | undefined;
  infraEnv: KubeObject | undefined;
}): string | undefined {
  const named: [string, KubeObject | undefined][] = [
    ['ClusterDeployment', objects.clusterDeployment],
    ['AgentClusterInstall', objects.agentClusterInstall],
    ['InfraEnv', objects.infraEnv],
  ];
  for (const [kind, obj] of named) {
    if (!obj) return `its ${kind} does not exist`;
    if (obj.metadata.deletionTimestamp) return `its ${kind} is being deleted`;
  }
  return undefined;
}
