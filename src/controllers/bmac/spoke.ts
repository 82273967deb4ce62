// BMAC's work on the installed (spoke) cluster (kubeapi.md §3.6): the machine-config-server CA
// that day-2 hosts must trust (step 9), the day-2 host's BareMetalHost and Machine in the spoke's
// Machine API (step 10), and draining a host's Node before a converged BMH deletion deprovisions
// it. Pure decisions and object builders here; the spoke calls take a client from
// src/records/spoke.ts.
import { X509Certificate } from 'node:crypto';
import {
  type Agent,
  BAREMETAL_PROVIDER_SPEC_API_VERSION,
  BAREMETAL_PROVIDER_SPEC_KIND,
  BAREMETALHOST_API_VERSION,
  BAREMETALHOST_KIND,
  type BareMetalHost,
  BMH_HARDWARE_DETAILS_ANNOTATION,
  BMH_INSPECT_ANNOTATION,
  BMH_INSPECT_DISABLED,
  BMH_SPOKE_BMH_MACHINE_CREATED_ANNOTATION,
  INFRAENV_LABEL,
  MACHINE_API_VERSION,
  MACHINE_BMH_ANNOTATION,
  MACHINE_CLUSTER_API_CLUSTER_LABEL,
  MACHINE_CLUSTER_API_MACHINE_ROLE_LABEL,
  MACHINE_CLUSTER_API_MACHINE_TYPE_LABEL,
  MACHINE_KIND,
  type Machine,
} from '../../api/index.ts';
import { base64DataUrl } from '../../core/ignition/index.ts';
import { parseGoDuration } from '../../core/statemachine/durations.ts';
import { type CsrApprovalCluster, clusterHasMachineApi } from '../../records/agents/day2.ts';
import { type DrainDecision, hardwareDetails } from '../../records/bmac-plan.ts';
import { BARE_METAL_HOST, CONFIG_MAP, MACHINE, NODE, POD } from '../../records/resources.ts';
import { type ApiResource, isNotFound, type KubeClient, type KubeObject } from '../../runtime/index.ts';

/** Where the spoke keeps the CA that signs the machine-config-server certificate, in lookup order. */
export const MCS_CA_SOURCES = [
  { namespace: 'openshift-machine-config-operator', name: 'machine-config-server-ca', key: 'ca-bundle.crt' },
  { namespace: 'kube-system', name: 'root-ca', key: 'ca.crt' },
  { namespace: 'openshift-config', name: 'kube-root-ca', key: 'ca.crt' },
  { namespace: 'openshift-config', name: 'kube-root-ca.crt', key: 'ca.crt' },
] as const;

/** Whether `pem` holds at least one certificate and nothing unparseable. */
export function isValidPemBundle(pem: string): boolean {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) return false;
  try {
    for (const b of blocks) new X509Certificate(b);
    return true;
  } catch {
    return false;
  }
}

/** The first MCS CA the spoke has (lookup order above), or why there is none. */
export async function spokeMcsCa(spoke: KubeClient): Promise<{ ca: string } | { error: string }> {
  for (const src of MCS_CA_SOURCES) {
    let cm: (KubeObject & { data?: Record<string, string> }) | undefined;
    try {
      cm = await spoke.getIfExists(CONFIG_MAP, src.name, src.namespace);
    } catch (err) {
      return {
        error: `reading ConfigMap ${src.namespace}/${src.name} on the spoke: ${(err as Error).message}`,
      };
    }
    const ca = cm?.data?.[src.key];
    if (cm === undefined || ca === undefined) continue;
    if (!isValidPemBundle(ca)) {
      return {
        error: `ConfigMap ${src.namespace}/${src.name} key ${src.key} on the spoke is not a valid PEM certificate`,
      };
    }
    return { ca };
  }
  return { error: 'the spoke has none of the machine-config-server CA ConfigMaps' };
}

interface TlsIgnition {
  ignition?: { version?: string; security?: { tls?: { certificateAuthorities?: { source?: string }[] } } };
  [k: string]: unknown;
}

/**
 * The ignition-config-overrides annotation with the MCS CA added as a TLS certificate authority
 * (ignition 3.1.0 when the annotation is empty). Undefined when it already carries that CA, or
 * when the existing value is not a JSON object (then it is left to the user; the caller logs it).
 */
export function withMcsCa(overrides: string | undefined, caPem: string): string | undefined {
  const source = base64DataUrl(caPem);
  if (overrides?.includes(source)) return undefined;
  let ign: TlsIgnition;
  if (!overrides?.trim()) {
    ign = { ignition: { version: '3.1.0' } };
  } else {
    try {
      const parsed: unknown = JSON.parse(overrides);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
      ign = parsed as TlsIgnition;
    } catch {
      return undefined;
    }
  }
  ign.ignition ??= { version: '3.1.0' };
  ign.ignition.security ??= {};
  ign.ignition.security.tls ??= {};
  const cas = ign.ignition.security.tls.certificateAuthorities ?? [];
  ign.ignition.security.tls.certificateAuthorities = [...cas, { source }];
  return JSON.stringify(ign);
}

/** What the drain annotations should say next (kubeapi.md §3.6 BMH deletion). */
export interface DrainInput {
  /** drain-started-at (RFC 3339), if set. */
  startedAt: string | undefined;
  /** drain-timeout (a Go duration), if set. */
  timeout: string | undefined;
  now: Date;
  /** The outcome of this drain attempt. */
  attempt: { done: true } | { done: false; unreachable: boolean } | { error: string };
}

/** Poll interval while draining, and how long to wait for an unreachable Node. */
export const DRAIN_REQUEUE_MS = 20_000;
export const UNREACHABLE_NODE_GRACE_MS = 5 * 60_000;

/** The drain-timeout annotation (a Go duration: "90s", "1h30m", "500ms") in ms; undefined when invalid or negative. */
export function drainTimeoutMs(text: string): number | undefined {
  const ms = parseGoDuration(text);
  return ms !== undefined && ms >= 0 ? ms : undefined;
}

export function decideDrain(input: DrainInput): DrainDecision {
  const startedAt = input.startedAt ?? input.now.toISOString();
  const elapsed = input.now.getTime() - Date.parse(startedAt);
  const { attempt } = input;
  if ('done' in attempt && attempt.done) return { status: 'drain succeeded', startedAt, proceed: true };
  const timeoutMs = input.timeout ? drainTimeoutMs(input.timeout) : undefined;
  // The user's limit; failing attempts and unreachable Nodes (the spoke may be gone for good)
  // stop blocking the deletion after 5 minutes anyway.
  const unreachable = 'error' in attempt || attempt.unreachable;
  if (
    (timeoutMs !== undefined && elapsed > timeoutMs) ||
    (unreachable && elapsed > UNREACHABLE_NODE_GRACE_MS)
  ) {
    return { status: 'drain timed out', startedAt, proceed: true };
  }
  const status = 'error' in attempt ? `failed to drain node: ${attempt.error}` : 'draining in progress';
  return { status, startedAt, proceed: false, requeueAfterMs: DRAIN_REQUEUE_MS };
}

interface PodLike extends KubeObject {
  spec?: { nodeName?: string };
  status?: { phase?: string };
}

interface NodeLike extends KubeObject {
  spec?: { unschedulable?: boolean };
  status?: { conditions?: { type: string; status: string }[] };
}

/**
 * One drain attempt of Node `name` on the spoke: cordon it, then evict every pod on it except
 * DaemonSet pods and mirror pods (as `kubectl drain --ignore-daemonsets --delete-emptydir-data
 * --force` does). Done when no such pod is left; a Node that is gone counts as drained.
 */
export async function drainAttempt(
  spoke: KubeClient,
  name: string,
): Promise<{ done: true } | { done: false; unreachable: boolean } | { error: string }> {
  try {
    const node = await spoke.getIfExists<NodeLike>(NODE, name);
    if (!node) return { done: true };
    if (!node.spec?.unschedulable) {
      await spoke.patch(NODE, name, undefined, 'merge', { spec: { unschedulable: true } });
    }
    const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
    const unreachable = ready?.status !== 'True';
    const pods = (await spoke.list<PodLike>(POD, { fieldSelector: `spec.nodeName=${name}` })).items;
    const evictable = pods.filter(
      (p) =>
        !p.metadata.ownerReferences?.some((o) => o.kind === 'DaemonSet') &&
        !p.metadata.annotations?.['kubernetes.io/config.mirror'] &&
        p.status?.phase !== 'Succeeded' &&
        p.status?.phase !== 'Failed',
    );
    if (evictable.length === 0) return { done: true };
    for (const pod of evictable) {
      try {
        await spoke.request('POST', spoke.path(POD, pod.metadata.namespace, pod.metadata.name, 'eviction'), {
          body: {
            apiVersion: 'policy/v1',
            kind: 'Eviction',
            metadata: { name: pod.metadata.name, namespace: pod.metadata.namespace },
          },
        });
      } catch (err) {
        // Already gone is fine; a PodDisruptionBudget refusal (429) is retried on the next attempt.
        if (!isNotFound(err) && !/\b429\b|disruption budget/i.test(String(err))) throw err;
      }
    }
    return { done: false, unreachable };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

// ---------------------------------------------------------------------------------------------
// Day-2 spoke BareMetalHost and Machine (step 10)
// ---------------------------------------------------------------------------------------------

/** The spoke namespace of the Machine API's Machines and BareMetalHosts. */
export const SPOKE_MACHINE_API_NAMESPACE = 'openshift-machine-api';
/** Agent states (status.debugInfo.state) in which the spoke BMH and Machine are created. */
const SPOKE_MACHINE_AGENT_STATES = new Set(['installing', 'installing-in-progress']);

/**
 * Why this pass does not create the spoke BMH and Machine, from what the hub has at hand (the
 * cluster's Machine API is asked separately, see spokeMachineClusterSkip); undefined: go on.
 */
export function spokeMachineSkip(input: {
  bmh: BareMetalHost;
  agent: Agent;
  cdInstalled: boolean;
}): string | undefined {
  const { bmh, agent } = input;
  if (!bmh.metadata.labels?.[INFRAENV_LABEL] || bmh.metadata.deletionTimestamp)
    return 'not an active BMAC host';
  if (bmh.metadata.annotations?.[BMH_SPOKE_BMH_MACHINE_CREATED_ANNOTATION] !== undefined)
    return 'already created';
  if (!input.cdInstalled) return 'the ClusterDeployment is not installed';
  const state = agent.status?.debugInfo?.state ?? '';
  if (!SPOKE_MACHINE_AGENT_STATES.has(state)) return `Agent state "${state}" is not installing`;
  return undefined;
}

/** Why the cluster gets no spoke BMH and Machine: no record yet, or no Machine API for its hosts. */
export function spokeMachineClusterSkip(cluster: CsrApprovalCluster | undefined): string | undefined {
  if (!cluster) return 'the cluster record cannot be built';
  if (!clusterHasMachineApi(cluster)) {
    return 'the cluster has no Machine API for its hosts (platform none, user-managed networking, or baremetal without MachineAPI)';
  }
  return undefined;
}

/** The spoke Machine of a hub BMH: `<cdName>-<bmhName>`. */
export function spokeMachineName(cdName: string, bmhName: string): string {
  return `${cdName}-${bmhName}`;
}

/** The Machine role of the Agent's host: its effective role, `worker` while undecided. */
export function spokeMachineRole(agent: Agent): string {
  const role = agent.status?.role || agent.spec.role || '';
  if (role === 'bootstrap') return 'master';
  return role === '' || role === 'auto-assign' ? 'worker' : role;
}

export interface MachineImage {
  checksum: string;
  url: string;
}

/** The providerSpec image of the first master Machine (by name); undefined without masters. */
export function masterMachineImage(masters: readonly Machine[]): MachineImage | undefined {
  const sorted = [...masters].sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  const first = sorted[0];
  if (!first) return undefined;
  const image = first.spec?.providerSpec?.value?.image;
  return { checksum: image?.checksum ?? '', url: image?.url ?? '' };
}

/**
 * The spoke BMH of a day-2 host: the hub BMH's name and spec with the BMC emptied (the spoke does
 * not manage the power of a host the hub provisioned), inspection disabled, the hardware details
 * from the Agent inventory, and the spoke Machine as its consumer.
 */
export function spokeBareMetalHost(hub: BareMetalHost, agent: Agent, cdName: string): BareMetalHost {
  const name = hub.metadata.name ?? '';
  const annotations: Record<string, string> = { [BMH_INSPECT_ANNOTATION]: BMH_INSPECT_DISABLED };
  const details = hardwareDetails(agent);
  if (details) annotations[BMH_HARDWARE_DETAILS_ANNOTATION] = JSON.stringify(details);
  return {
    apiVersion: BAREMETALHOST_API_VERSION,
    kind: BAREMETALHOST_KIND,
    metadata: { name, namespace: SPOKE_MACHINE_API_NAMESPACE, annotations },
    spec: {
      ...structuredClone(hub.spec),
      bmc: { address: '', credentialsName: '' },
      consumerRef: {
        apiVersion: MACHINE_API_VERSION,
        kind: MACHINE_KIND,
        name: spokeMachineName(cdName, name),
        namespace: SPOKE_MACHINE_API_NAMESPACE,
      },
    },
  };
}

/** The spoke Machine of a day-2 host, provisioned with the masters' image on its BMH. */
export function spokeMachine(input: {
  cdName: string;
  bmhName: string;
  role: string;
  image: MachineImage;
}): Machine {
  return {
    apiVersion: MACHINE_API_VERSION,
    kind: MACHINE_KIND,
    metadata: {
      name: spokeMachineName(input.cdName, input.bmhName),
      namespace: SPOKE_MACHINE_API_NAMESPACE,
      labels: {
        [MACHINE_CLUSTER_API_CLUSTER_LABEL]: input.cdName,
        [MACHINE_CLUSTER_API_MACHINE_ROLE_LABEL]: input.role,
        [MACHINE_CLUSTER_API_MACHINE_TYPE_LABEL]: input.role,
      },
      annotations: { [MACHINE_BMH_ANNOTATION]: `${SPOKE_MACHINE_API_NAMESPACE}/${input.bmhName}` },
    },
    spec: {
      providerSpec: {
        value: {
          apiVersion: BAREMETAL_PROVIDER_SPEC_API_VERSION,
          kind: BAREMETAL_PROVIDER_SPEC_KIND,
          image: { checksum: input.image.checksum, url: input.image.url },
        },
      },
    },
  };
}

type SpecObject = KubeObject & { spec?: Record<string, unknown> };

/**
 * An existing spoke object brought to `wanted`: its labels and annotations are added or changed,
 * the spec fields `wanted` names replaced; everything else (status, other keys) kept. Undefined
 * when it already matches, so a repeated pass writes nothing.
 */
export function updatedSpokeObject<T extends SpecObject>(existing: T, wanted: T): T | undefined {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const labels = { ...existing.metadata.labels, ...wanted.metadata.labels };
  const annotations = { ...existing.metadata.annotations, ...wanted.metadata.annotations };
  const spec = { ...existing.spec, ...wanted.spec };
  const changed =
    !same(labels, { ...existing.metadata.labels }) ||
    !same(annotations, { ...existing.metadata.annotations }) ||
    Object.keys(wanted.spec ?? {}).some((k) => !same(existing.spec?.[k], wanted.spec?.[k]));
  if (!changed) return undefined;
  return {
    ...existing,
    metadata: {
      ...existing.metadata,
      ...(Object.keys(labels).length ? { labels } : {}),
      ...(Object.keys(annotations).length ? { annotations } : {}),
    },
    spec,
  };
}

/** Create `wanted` on the spoke, or bring the existing object to it (optimistic lock). */
async function createOrUpdate<T extends SpecObject>(
  spoke: KubeClient,
  res: ApiResource,
  wanted: T,
): Promise<'created' | 'updated' | 'unchanged'> {
  const existing = await spoke.getIfExists<T>(res, wanted.metadata.name ?? '', wanted.metadata.namespace);
  if (!existing) {
    await spoke.create(res, wanted);
    return 'created';
  }
  const updated = updatedSpokeObject(existing, wanted);
  if (!updated) return 'unchanged';
  await spoke.replace(res, updated);
  return 'updated';
}

export type SpokeMachineOutcome =
  | { kind: 'done'; bmh: string; machine: string }
  | { kind: 'no-masters' }
  | { kind: 'error'; message: string };

/**
 * Step 10 on the spoke: the masters' image from a master Machine, then the day-2 host's BMH and
 * its Machine in openshift-machine-api. Errors are values (the caller reports and retries).
 */
export async function ensureSpokeBmhAndMachine(
  spoke: KubeClient,
  input: { hubBmh: BareMetalHost; agent: Agent; cdName: string },
): Promise<SpokeMachineOutcome> {
  const ns = SPOKE_MACHINE_API_NAMESPACE;
  let step = `listing master Machines in ${ns}`;
  try {
    const masters = await spoke.list<Machine>(MACHINE, {
      namespace: ns,
      labelSelector: `${MACHINE_CLUSTER_API_MACHINE_TYPE_LABEL}=master`,
    });
    const image = masterMachineImage(masters.items);
    if (!image) return { kind: 'no-masters' };
    const bmh = spokeBareMetalHost(input.hubBmh, input.agent, input.cdName);
    const machine = spokeMachine({
      cdName: input.cdName,
      bmhName: input.hubBmh.metadata.name ?? '',
      role: spokeMachineRole(input.agent),
      image,
    });
    step = `writing BareMetalHost ${ns}/${bmh.metadata.name}`;
    const b = await createOrUpdate(spoke, BARE_METAL_HOST, bmh as SpecObject);
    step = `writing Machine ${ns}/${machine.metadata.name}`;
    const m = await createOrUpdate(spoke, MACHINE, machine as SpecObject);
    return { kind: 'done', bmh: b, machine: m };
  } catch (err) {
    return { kind: 'error', message: `${step} on the spoke: ${(err as Error).message}` };
  }
}
