// The Agent reconciler's calls to a spoke cluster, through the spoke's admin kubeconfig
// (src/records/spoke.ts): the day-2 work after a host rebooted (kubeapi.md §3.4.7 — approve the
// host's CSRs, label its Node, see it Ready) and the cleanup of its Node when the Agent is deleted
// or unbound (§3.4.1 step 2, §3.4.3 step 1). Decisions are the pure functions of day2.ts; every
// failure comes back as a value for the reconciler to log, record as an event and retry.

import type { ClusterDeployment, CsrInfo, CsrStatus } from '../../api/index.ts';
import {
  type CsrType,
  day2Stage,
  machineCleanupPlan,
  mergeCsrStatus,
  nodeCleanupStep,
  nodeLabelsPatch,
  nodeReady,
  planCsrApprovals,
  type SpokeCsr,
  type SpokeNode,
} from '../../records/agents/day2.ts';
import type { OperatorContext } from '../../records/context.ts';
import {
  BARE_METAL_HOST,
  CERTIFICATE_SIGNING_REQUEST,
  CONFIG_MAP,
  DAEMON_SET,
  MACHINE,
  MACHINE_SET,
  NAMESPACE,
  NODE,
  ROLE,
  ROLE_BINDING,
  SECRET,
  SERVICE_ACCOUNT,
} from '../../records/resources.ts';
import { spokeClient } from '../../records/spoke.ts';
import { type ApiResource, isNotFound, type KubeClient, type KubeObject } from '../../runtime/index.ts';
import {
  RECLAIM_FIELD_MANAGER,
  RECLAIM_NAMESPACE,
  type ReclaimKind,
  type ReclaimObject,
  reclaimHostObjectName,
} from './reclaim.ts';

/** Reason and message of the Approved condition this operator puts on a CSR. */
export const CSR_APPROVAL_REASON = 'AgentInstallOperatorApprove';
export const csrApprovalMessage = (hostname: string) =>
  `Approved by agent-install-operator for day-2 host ${hostname}`;

/** Event reasons of spoke work that could not be done (Warning events on the Agent). */
export const SPOKE_EVENT_REASON = {
  day2: 'Day2SpokeWorkFailed',
  cleanup: 'SpokeCleanupFailed',
  reclaim: 'ReclaimFailed',
} as const;

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export interface Day2Input {
  cd: ClusterDeployment;
  /** The Node's name: the Agent's hostname. */
  hostname: string;
  status: Parameters<typeof day2Stage>[0]['status'];
  autoApprove: boolean;
  csrStatus: CsrStatus | undefined;
  nodeLabels: Readonly<Record<string, string>> | undefined;
  now: Date;
  /** How long an unreachable spoke is left alone (the poll interval). */
  unreachableHoldMs: number;
}

export interface Day2Outcome {
  /** csrStatus after this pass (unchanged when nothing was approved). */
  csrStatus: CsrStatus | undefined;
  /** The stage to report, when there is one. */
  progress?: ReturnType<typeof day2Stage>;
  /** CSRs approved in this pass. */
  approvedNow: { name: string; type: CsrType }[];
  /** Node labels patched in this pass. */
  labelled: string[];
  /** Problems of this pass (the rest of it still counts). */
  errors: string[];
}

/** One pass of the day-2 work on the spoke, or why none could be made. */
export async function day2SpokeWork(
  ctx: OperatorContext,
  input: Day2Input,
): Promise<{ ok: true; value: Day2Outcome } | { ok: false; message: string }> {
  // A spoke that did not answer is left alone for the hold time (spokeClient returns why).
  const spoke = await spokeClient(ctx, input.cd, { unreachableHoldMs: input.unreachableHoldMs });
  if (!spoke.ok) return { ok: false, message: spoke.message };
  const client = spoke.client;
  const errors: string[] = [];
  let node: SpokeNode | undefined;
  try {
    node = await client.getIfExists<SpokeNode>(NODE, input.hostname);
  } catch (err) {
    return { ok: false, message: `reading Node ${input.hostname}: ${errorMessage(err)}` };
  }

  let csrStatus = input.csrStatus;
  const approvedNow: Day2Outcome['approvedNow'] = [];
  if (input.autoApprove) {
    let csrs: SpokeCsr[];
    try {
      csrs = (await client.list<SpokeCsr>(CERTIFICATE_SIGNING_REQUEST)).items;
    } catch (err) {
      return { ok: false, message: `listing CertificateSigningRequests: ${errorMessage(err)}` };
    }
    const plan = planCsrApprovals(csrs, input.hostname, node !== undefined);
    const approved: CsrInfo[] = [...plan.approved];
    const byName = new Map(csrs.map((c) => [c.metadata.name ?? '', c]));
    for (const { name, type } of plan.approve) {
      const csr = byName.get(name);
      if (!csr) continue;
      try {
        await approveCsr(client, csr, input.hostname, input.now);
        approved.push({ name, type, approvedAt: input.now.toISOString() });
        approvedNow.push({ name, type });
      } catch (err) {
        errors.push(`approving CertificateSigningRequest ${name}: ${errorMessage(err)}`);
      }
    }
    csrStatus = mergeCsrStatus(
      input.csrStatus,
      approved,
      plan.approve.length > 0 ? input.now.toISOString() : undefined,
    );
  }

  const ready = nodeReady(node);
  const labelled: string[] = [];
  if (node && ready) {
    const patch = nodeLabelsPatch(node, input.nodeLabels);
    if (patch) {
      try {
        await client.patch(NODE, input.hostname, undefined, 'merge', { metadata: { labels: patch } });
        labelled.push(...Object.keys(patch).sort());
      } catch (err) {
        errors.push(`labelling Node ${input.hostname}: ${errorMessage(err)}`);
      }
    }
  }
  const progress = day2Stage({
    status: input.status,
    nodeExists: node !== undefined,
    // Done waits for the labels: a failed patch is tried again on the next pass.
    nodeReady: ready && !errors.some((e) => e.startsWith('labelling')),
    autoApprove: input.autoApprove,
    csrStatus,
  });
  return {
    ok: true,
    value: { csrStatus, ...(progress ? { progress } : {}), approvedNow, labelled, errors },
  };
}

/** PUTs the CSR's approval subresource with an Approved condition added. */
async function approveCsr(client: KubeClient, csr: SpokeCsr, hostname: string, now: Date): Promise<void> {
  const time = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const body: SpokeCsr = {
    ...csr,
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    status: {
      ...csr.status,
      conditions: [
        ...(csr.status?.conditions ?? []),
        {
          type: 'Approved',
          status: 'True',
          reason: CSR_APPROVAL_REASON,
          message: csrApprovalMessage(hostname),
          lastUpdateTime: time,
        },
      ],
    },
  };
  await client.request(
    'PUT',
    client.path(CERTIFICATE_SIGNING_REQUEST, undefined, csr.metadata.name, 'approval'),
    {
      body,
    },
  );
}

export type SpokeCleanupOutcome =
  /** No kubeconfig Secret (or no kubeconfig in it): there is no spoke to clean; dropped. */
  | { kind: 'dropped'; message: string }
  | { kind: 'no-node' }
  | { kind: 'node-deleted' }
  /** Cleaned through the Node's Machine; `steps` says what was done. */
  | { kind: 'machine'; steps: string[] }
  | { kind: 'failed'; message: string };

/**
 * Removes the host's Node from the spoke (§3.4.1 step 2): through its Machine when the Node names
 * one (the Machine annotated for deletion; its MachineSet told to scale to its hosts and the
 * BareMetalHost deleted, or the BareMetalHost and Machine deleted), else the Node itself.
 */
export async function cleanSpokeNode(
  ctx: OperatorContext,
  cd: ClusterDeployment,
  nodeName: string,
): Promise<SpokeCleanupOutcome> {
  if (!nodeName) return { kind: 'no-node' };
  const spoke = await spokeClient(ctx, cd);
  if (!spoke.ok) {
    return spoke.reason === 'secret-not-found'
      ? { kind: 'dropped', message: spoke.message }
      : { kind: 'failed', message: spoke.message };
  }
  const client = spoke.client;
  try {
    const node = await client.getIfExists<SpokeNode>(NODE, nodeName);
    if (!node) return { kind: 'no-node' };
    const step = nodeCleanupStep(node);
    if (step.kind === 'machine') {
      const { namespace, name } = step.machine;
      const machine = await client.getIfExists<KubeObject>(MACHINE, name, namespace);
      if (machine) return { kind: 'machine', steps: await cleanThroughMachine(client, machine) };
      // The Machine is gone already: nothing will remove the Node but us.
    }
    await deleteIfExists(client, NODE, nodeName);
    return { kind: 'node-deleted' };
  } catch (err) {
    return { kind: 'failed', message: `cleaning Node ${nodeName}: ${errorMessage(err)}` };
  }
}

async function cleanThroughMachine(client: KubeClient, machine: KubeObject): Promise<string[]> {
  const plan = machineCleanupPlan(machine);
  const ns = machine.metadata.namespace ?? '';
  const name = machine.metadata.name ?? '';
  const steps: string[] = [];
  await client.patch(MACHINE, name, ns, 'merge', { metadata: { annotations: plan.machineAnnotations } });
  steps.push(`annotated Machine ${ns}/${name}`);
  if (plan.machineSet) {
    const ms = plan.machineSet;
    await client.patch(MACHINE_SET, ms.name, ms.namespace, 'merge', {
      metadata: { annotations: plan.machineSetAnnotations },
    });
    steps.push(`annotated MachineSet ${ms.namespace}/${ms.name}`);
  }
  if (plan.bmh && (await deleteIfExists(client, BARE_METAL_HOST, plan.bmh.name, plan.bmh.namespace))) {
    steps.push(`deleted BareMetalHost ${plan.bmh.namespace}/${plan.bmh.name}`);
  }
  if (plan.deleteMachine && (await deleteIfExists(client, MACHINE, name, ns))) {
    steps.push(`deleted Machine ${ns}/${name}`);
  }
  return steps;
}

/** Deletes; true when it was there. */
async function deleteIfExists(
  client: KubeClient,
  res: Parameters<KubeClient['delete']>[0],
  name: string,
  namespace?: string,
): Promise<boolean> {
  try {
    await client.delete(res, name, namespace);
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

const RECLAIM_RESOURCES: Record<ReclaimKind, ApiResource> = {
  Namespace: NAMESPACE,
  ServiceAccount: SERVICE_ACCOUNT,
  Role: ROLE,
  RoleBinding: ROLE_BINDING,
  Secret: SECRET,
  ConfigMap: CONFIG_MAP,
  DaemonSet: DAEMON_SET,
};

/**
 * Puts the reclaim objects onto the spoke (server-side apply: creating them again changes nothing,
 * and an existing `assisted-installer` namespace only gains the pod-security label). Stops at the
 * first failure: without all of them the node would not reboot, and the caller unbinds plainly.
 */
export async function applyReclaimObjects(
  ctx: OperatorContext,
  cd: ClusterDeployment,
  objects: readonly ReclaimObject[],
): Promise<{ ok: true } | { ok: false; message: string }> {
  const spoke = await spokeClient(ctx, cd);
  if (!spoke.ok) return { ok: false, message: spoke.message };
  for (const obj of objects) {
    const res = RECLAIM_RESOURCES[obj.kind];
    const name = obj.metadata.name ?? '';
    try {
      await spoke.client.patch(res, name, obj.metadata.namespace, 'apply', obj, {
        fieldManager: RECLAIM_FIELD_MANAGER,
        force: true,
      });
    } catch (err) {
      const where = obj.metadata.namespace ? `${obj.metadata.namespace}/${name}` : name;
      return { ok: false, message: `applying ${obj.kind} ${where} on the spoke: ${errorMessage(err)}` };
    }
  }
  return { ok: true };
}

/**
 * Removes the host's own reclaim objects (its DaemonSet and token Secret) once the host is back
 * in discovery; the shared ServiceAccount, Role, RoleBinding and ConfigMap stay for other hosts.
 * Returns what was deleted.
 */
export async function deleteReclaimObjects(
  ctx: OperatorContext,
  cd: ClusterDeployment,
  hostId: string,
): Promise<{ ok: true; deleted: string[] } | { ok: false; message: string }> {
  const spoke = await spokeClient(ctx, cd);
  // No kubeconfig any more: nothing to reach, nothing to remove.
  if (!spoke.ok) return spoke.reason === 'secret-not-found' ? { ok: true, deleted: [] } : spoke;
  const name = reclaimHostObjectName(hostId);
  const deleted: string[] = [];
  try {
    for (const [res, kind] of [
      [DAEMON_SET, 'DaemonSet'],
      [SECRET, 'Secret'],
    ] as const) {
      if (await deleteIfExists(spoke.client, res, name, RECLAIM_NAMESPACE)) deleted.push(`${kind} ${name}`);
    }
  } catch (err) {
    return {
      ok: false,
      message: `removing reclaim objects ${RECLAIM_NAMESPACE}/${name}: ${errorMessage(err)}`,
    };
  }
  return { ok: true, deleted };
}
