// Reclaim on unbind (kubeapi.md §3.4.4 "Unbind details"), the pure part: whether an unbound host
// is reclaimed, and the objects that make its node reboot into the discovery image. They go onto
// the spoke the host was installed into: namespace `assisted-installer` (labelled for privileged
// pods), ServiceAccount, Role and RoleBinding `node-reclaim`, a Secret with the infra-env's agent
// token, ConfigMap `reclaim-config` with the service CA, and a next-step-runner DaemonSet pinned to
// the node. The runner polls the service as the host; the service answers with the reclaim steps
// (download-boot-artifacts, then reboot-for-reclaim), and the host comes back in discovery.
// src/controllers/agent/spoke-work.ts applies and removes them.
//
// Where the spec is silent, these are project choices (docs/compatibility.md): the per-host objects
// (Secret, DaemonSet) are named `node-reclaim-<host id>` so several hosts of one spoke can be
// reclaimed at once; the runner's flags are the ones the discovery image's agent starts it with.

import type { AgentDeprovisionInfo } from '../../api/index.ts';
import type { HostStatus } from '../../core/model.ts';
import type { KubeObject } from '../../runtime/index.ts';

export const RECLAIM_NAMESPACE = 'assisted-installer';
export const RECLAIM_NAME = 'node-reclaim';
export const RECLAIM_CONFIG_MAP = 'reclaim-config';
/** Key of the service CA in `reclaim-config`, and its file name in the runner's container. */
export const RECLAIM_CA_KEY = 'service-ca.crt';
export const RECLAIM_CA_MOUNT_DIR = '/etc/assisted-service';
/** Where the runner sees the node's root filesystem (the reclaim steps' host_fs_mount_dir default). */
export const RECLAIM_HOST_FS_MOUNT_DIR = '/host';
export const RECLAIM_TOKEN_KEY = 'PULL_SECRET_TOKEN';
/** Label on every reclaim object; the per-host ones also carry RECLAIM_HOST_LABEL. */
export const RECLAIM_APP_LABEL = 'app.kubernetes.io/name';
export const RECLAIM_HOST_LABEL = 'agent-install.openshift.io/reclaim-host';
export const POD_SECURITY_ENFORCE_LABEL = 'pod-security.kubernetes.io/enforce';
/** Field manager of the server-side applies on the spoke. */
export const RECLAIM_FIELD_MANAGER = 'agent-install-operator-reclaim';

/** Host states in which ReclaimHost leads to `reclaiming` (core.md RC1); elsewhere it is an unbind. */
export const RECLAIMABLE_STATES: readonly HostStatus[] = ['installed', 'added-to-existing-cluster'];

export type ReclaimDecision = { reclaim: true } | { reclaim: false; why: string };

/**
 * Whether an unbind reclaims the host: only with the image service on (the host downloads the
 * discovery boot artifacts from it), no BareMetalHost (the BMAC reboots those itself), and a host
 * that is installed, so its node runs on the spoke.
 */
export function reclaimDecision(input: {
  imageServiceEnabled: boolean;
  hasBmh: boolean;
  status: HostStatus;
}): ReclaimDecision {
  if (!input.imageServiceEnabled) return { reclaim: false, why: 'the image service is disabled' };
  if (input.hasBmh) return { reclaim: false, why: 'a BareMetalHost is associated with the Agent' };
  if (!RECLAIMABLE_STATES.includes(input.status)) {
    return { reclaim: false, why: `the host is ${input.status}, not installed` };
  }
  return { reclaim: true };
}

/** Host states in which the host's runner is on the spoke, working. */
export const RECLAIMING_STATES: readonly HostStatus[] = ['reclaiming', 'reclaiming-rebooting'];

/**
 * On Agent deletion: the spoke that may still run the host's reclaim runner, or undefined. The
 * runner goes onto the old spoke with the unbind that sets deprovision_info, and is removed only
 * by the cleanup that clears it; so while deprovision_info names a cluster a runner may be there
 * (reclaiming, rebooting, back in discovery before the cleanup ran, or left by a reclaim timeout).
 */
export function reclaimRunnerOnDelete(input: {
  state: string | undefined;
  deprovisionInfo: AgentDeprovisionInfo | undefined;
}): { clusterNamespace: string; clusterName: string; reclaiming: boolean } | undefined {
  const name = input.deprovisionInfo?.cluster_name;
  const namespace = input.deprovisionInfo?.cluster_namespace;
  if (!name || !namespace) return undefined;
  return {
    clusterNamespace: namespace,
    clusterName: name,
    reclaiming: RECLAIMING_STATES.includes(input.state as HostStatus),
  };
}

export interface ReclaimInput {
  hostId: string;
  infraEnvId: string;
  /** The spoke Node the host runs as (the Agent's hostname). */
  nodeName: string;
  /** The next-step-runner image (AGENT_DOCKER_IMAGE). */
  agentImage: string;
  /** Where the runner reaches the REST API. */
  serviceBaseUrl: string;
  /** The infra-env's agent token (X-Secret-Key). */
  token: string;
  /** PEM of the CA that signs the service's certificate, when one is configured. */
  serviceCaCert?: string | undefined;
}

export type ReclaimKind =
  | 'Namespace'
  | 'ServiceAccount'
  | 'Role'
  | 'RoleBinding'
  | 'Secret'
  | 'ConfigMap'
  | 'DaemonSet';

export interface ReclaimObject extends KubeObject {
  apiVersion: string;
  kind: ReclaimKind;
}

/** Name of the host's own reclaim objects (Secret, DaemonSet); a host id is a UUID, so it fits. */
export function reclaimHostObjectName(hostId: string): string {
  return `${RECLAIM_NAME}-${hostId}`.toLowerCase().slice(0, 63).replace(/-+$/, '');
}

const appLabels = { [RECLAIM_APP_LABEL]: RECLAIM_NAME };

/** The runner's command line: what the discovery image's agent starts it with (agent-api.md §1.1). */
export function reclaimRunnerArgs(input: ReclaimInput): string[] {
  return [
    'next_step_runner',
    '--url',
    input.serviceBaseUrl,
    '--infra-env-id',
    input.infraEnvId,
    '--host-id',
    input.hostId,
    '--agent-version',
    input.agentImage,
    '--insecure=false',
    ...(input.serviceCaCert ? ['--cacert', `${RECLAIM_CA_MOUNT_DIR}/${RECLAIM_CA_KEY}`] : []),
  ];
}

/** Every object a reclaim creates on the spoke, in the order they are applied. */
export function reclaimObjects(input: ReclaimInput): ReclaimObject[] {
  const ns = RECLAIM_NAMESPACE;
  const hostName = reclaimHostObjectName(input.hostId);
  const hostLabels = { ...appLabels, [RECLAIM_HOST_LABEL]: input.hostId };
  const caVolume = input.serviceCaCert !== undefined && input.serviceCaCert !== '';
  const objects: ReclaimObject[] = [
    {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: ns, labels: { [POD_SECURITY_ENFORCE_LABEL]: 'privileged' } },
    },
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: RECLAIM_NAME, namespace: ns, labels: appLabels },
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: RECLAIM_NAME, namespace: ns, labels: appLabels },
      // The runner's pod is privileged: on OpenShift that takes the `privileged` SCC.
      rules: [
        {
          apiGroups: ['security.openshift.io'],
          resources: ['securitycontextconstraints'],
          resourceNames: ['privileged'],
          verbs: ['use'],
        },
      ],
    } as ReclaimObject,
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: RECLAIM_NAME, namespace: ns, labels: appLabels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: RECLAIM_NAME },
      subjects: [{ kind: 'ServiceAccount', name: RECLAIM_NAME, namespace: ns }],
    } as ReclaimObject,
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: hostName, namespace: ns, labels: hostLabels },
      type: 'Opaque',
      stringData: { [RECLAIM_TOKEN_KEY]: input.token },
    } as ReclaimObject,
  ];
  if (caVolume) {
    objects.push({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: RECLAIM_CONFIG_MAP, namespace: ns, labels: appLabels },
      data: { [RECLAIM_CA_KEY]: input.serviceCaCert },
    } as ReclaimObject);
  }
  const volumes: unknown[] = [{ name: 'host', hostPath: { path: '/', type: 'Directory' } }];
  const mounts: unknown[] = [{ name: 'host', mountPath: RECLAIM_HOST_FS_MOUNT_DIR }];
  if (caVolume) {
    volumes.push({ name: 'service-ca', configMap: { name: RECLAIM_CONFIG_MAP } });
    mounts.push({ name: 'service-ca', mountPath: RECLAIM_CA_MOUNT_DIR, readOnly: true });
  }
  objects.push({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: hostName, namespace: ns, labels: hostLabels },
    spec: {
      selector: { matchLabels: hostLabels },
      template: {
        metadata: { labels: hostLabels },
        spec: {
          serviceAccountName: RECLAIM_NAME,
          // Pinned to the host's node, whatever its taints.
          nodeSelector: { 'kubernetes.io/hostname': input.nodeName },
          tolerations: [{ operator: 'Exists' }],
          hostPID: true,
          hostNetwork: true,
          restartPolicy: 'Always',
          containers: [
            {
              name: 'next-step-runner',
              image: input.agentImage,
              command: reclaimRunnerArgs(input),
              env: [
                {
                  name: RECLAIM_TOKEN_KEY,
                  valueFrom: { secretKeyRef: { name: hostName, key: RECLAIM_TOKEN_KEY } },
                },
              ],
              securityContext: { privileged: true, runAsUser: 0 },
              volumeMounts: mounts,
            },
          ],
          volumes,
        },
      },
    },
  } as ReclaimObject);
  return objects;
}
