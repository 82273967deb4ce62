// What a host's agent token may download from a cluster (issue 13, item 2). Upstream's local agent
// auth serves every cluster file and credential to any valid agent token; the real clients only
// ever fetch three, and only while the cluster installs:
//
// | client                          | route                        | file                  |
// |---------------------------------|------------------------------|-----------------------|
// | assisted-installer (bootstrap,  | …/downloads/files            | bootstrap.ign         |
// |   SNO host included)            |                              |                       |
// | assisted-installer-controller   | …/downloads/credentials      | kubeconfig-noingress  |
// | assisted-installer-controller   | …/downloads/files            | custom_manifests.json |
//
// (The installer's own pointer ignition comes from …/hosts/{id}/downloads/ignition, which has its
// own installing-state check; the discovery agent downloads nothing from a cluster.) Everything
// else — kubeadmin-password, the admin kubeconfig, install-config.yaml, metadata.json, the role
// ignitions, custom_manifests.yaml — is refused to every agent token with 403, whatever the state.
// The allowed three are served only while the cluster installs and only to a token whose
// infra-env has a host taking part in that installation.

export type ClusterDownloadRoute = 'files' | 'credentials';

export interface AllowedDownload {
  readonly route: ClusterDownloadRoute;
  readonly fileName: string;
  /** Who fetches it, for the refusal message and the docs. */
  readonly client: string;
}

export const AGENT_CLUSTER_DOWNLOADS: readonly AllowedDownload[] = [
  { route: 'files', fileName: 'bootstrap.ign', client: 'the bootstrap host installer' },
  { route: 'files', fileName: 'custom_manifests.json', client: 'the assisted-installer-controller' },
  { route: 'credentials', fileName: 'kubeconfig-noingress', client: 'the assisted-installer-controller' },
];

/** Cluster states in which the installer and controller run. */
export const CLUSTER_INSTALL_STATES: readonly string[] = [
  'installing',
  'installing-pending-user-action',
  'finalizing',
];

/** Host states of a host that takes part in a running installation. */
export const HOST_INSTALL_STATES: readonly string[] = [
  'installing',
  'installing-in-progress',
  'installing-pending-user-action',
  'installed',
];

export interface AgentDownloadRequest {
  readonly route: ClusterDownloadRoute;
  readonly fileName: string;
  readonly clusterId: string;
  /** The cluster's current state. */
  readonly clusterState: string;
  /** Whether the token's infra-env (or cluster) has a host taking part in the installation. */
  readonly participating: boolean;
}

export type DownloadDecision = { ok: true } | { ok: false; status: 403 | 409; reason: string };

/** Whether an agent token may download this cluster file now. */
export function agentClusterDownload(request: AgentDownloadRequest): DownloadDecision {
  const { route, fileName, clusterId, clusterState } = request;
  const allowed = AGENT_CLUSTER_DOWNLOADS.find((d) => d.route === route && d.fileName === fileName);
  if (!allowed) {
    return {
      ok: false,
      status: 403,
      reason: `${fileName} of cluster ${clusterId} is not served to agent tokens`,
    };
  }
  if (!CLUSTER_INSTALL_STATES.includes(clusterState)) {
    return {
      ok: false,
      status: 409,
      reason: `Cluster ${clusterId} is in ${clusterState} state, ${fileName} can be downloaded with an agent token only in one of [${CLUSTER_INSTALL_STATES.join(' ')}]`,
    };
  }
  if (!request.participating) {
    return {
      ok: false,
      status: 403,
      reason: `${fileName} of cluster ${clusterId} is served only to ${allowed.client} of a host being installed in it`,
    };
  }
  return { ok: true };
}
