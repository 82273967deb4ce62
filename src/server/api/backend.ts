// The contract between the REST layer and the operator: one method per operation, typed inputs
// (ids, parsed bodies, the authenticated principal) and typed results. The router has already
// authenticated, authorised and validated the request; the backend decides with the records
// (Kubernetes caches, installer core) and answers a value or an ApiError. Thrown errors become
// 500 (agents retry); never answer 401/403/404/409 for transient conditions — the agent stops
// for good on those (agent-api.md §0.7, §1.1) — use 503 instead.

import type { Readable } from 'node:stream';
import type { Principal } from '../../auth/types.ts';
import type { ApiEvent, EventFilter, EventList } from '../../core/event-model.ts';
import type { Cluster, Host, HostStage, InfraEnv, LogsState } from '../../core/model.ts';
import type { FinalizingStage, SmError } from '../../core/statemachine/index.ts';
import type { StepReply, StepReplyResult, Steps } from '../../core/steps/index.ts';
import type { ApiError } from './errors.ts';

export type Outcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: ApiError };

export function ok<T>(value: T): Outcome<T> {
  return { ok: true, value };
}
export function done(): Outcome<void> {
  return { ok: true, value: undefined };
}
export function fail(status: number, reason: string, code?: string): Outcome<never> {
  return { ok: false, error: code === undefined ? { status, reason } : { status, reason, code } };
}
/** A state-machine refusal (its `code` is the HTTP status, e.g. 409 with the rule's message). */
export function fromSmError(error: SmError): Outcome<never> {
  return fail(error.code, error.message);
}

/** Facts about the call every backend method receives. */
export interface CallContext {
  readonly principal: Principal;
  /** `X-Request-ID` (agent session id / installer per-call id), for correlating logs. */
  readonly requestId?: string;
  /** The `discovery_agent_version` header (agent image ref), sent by the agent and its runner. */
  readonly agentVersionHeader?: string;
}

export interface HostRef {
  readonly infraEnvId: string;
  readonly hostId: string;
}

// ---- agent / next_step_runner (§2.1) ----

export interface RegisterHostInput {
  readonly infraEnvId: string;
  readonly hostId: string;
  /** Body `discovery_agent_version` (falls back to the header when the body has none). */
  readonly discoveryAgentVersion?: string;
}

export interface RegisteredHost {
  readonly host: Host;
  /** Builds `next_step_runner_command`: args = [JSON {agent_version, host_id, infra_env_id}]. */
  readonly nextStepRunner: {
    /** The agent image the runner must use (the service's AGENT_DOCKER_IMAGE). */
    readonly agentImage: string;
    /** Seconds the agent waits before re-registering when the runner fails (unset: 1 hour). */
    readonly retrySeconds?: number;
  };
}

export interface NextStepsInput extends HostRef {
  /** `timestamp` query: the host clock, unix seconds (clock-skew validation). */
  readonly timestamp?: number;
}

export interface StepReplyInput extends HostRef {
  readonly reply: StepReply;
  /**
   * parseStepReply(reply). The router has already answered 400 when the exit code is 0 and the
   * output does not decode; failures with a non-zero exit code arrive here (upstream answers 204).
   */
  readonly decoded: StepReplyResult;
}

export interface HostLogsProgressInput extends HostRef {
  readonly logsState: LogsState;
}

export interface UploadedFile {
  /** Multipart filename (e.g. `host-logs.tar.gz`). */
  readonly fileName: string;
  readonly contentType?: string;
  /**
   * The file bytes, streamed from the request. Consume it fully (or destroy it). It errors if the
   * client disconnects or the upload exceeds the size limit; the router then answers itself.
   */
  readonly stream: Readable;
}

export const LOGS_TYPES = ['host', 'controller', 'all', ''] as const;
export type LogsType = (typeof LOGS_TYPES)[number];

export interface UploadLogsInput {
  readonly clusterId: string;
  readonly logsType: 'host' | 'controller';
  readonly infraEnvId?: string;
  readonly hostId?: string;
  readonly file: UploadedFile;
}

// ---- installer (§2.2) ----

export interface InstallProgressInput extends HostRef {
  readonly progress: { readonly current_stage: HostStage; readonly progress_info?: string };
}

export const CLUSTER_FILE_NAMES = [
  'bootstrap.ign',
  'master.ign',
  'metadata.json',
  'worker.ign',
  'install-config.yaml',
  'custom_manifests.json',
  'custom_manifests.yaml',
  'arbiter.ign',
] as const;
export type ClusterFileName = (typeof CLUSTER_FILE_NAMES)[number];

export const CREDENTIAL_FILE_NAMES = ['kubeadmin-password', 'kubeconfig', 'kubeconfig-noingress'] as const;
export type CredentialFileName = (typeof CREDENTIAL_FILE_NAMES)[number];

/** Bytes served as application/octet-stream. */
export interface FileDownload {
  readonly content: Buffer | string | Readable;
  /** Used in Content-Disposition. */
  readonly fileName: string;
  /** Content-Length for streams (Buffers and strings know their own). */
  readonly size?: number;
  /** Last-Modified (infra-env files: the infra-env's update time). */
  readonly lastModified?: Date;
}

export interface ClusterRef {
  readonly clusterId: string;
}

export interface LogsProgressInput extends ClusterRef {
  readonly logsState: LogsState;
}

export interface ClusterLogsDownloadInput extends ClusterRef {
  readonly logsType?: LogsType;
  readonly hostId?: string;
}

// ---- controller (§2.3) ----

export interface FinalizingProgressInput extends ClusterRef {
  readonly finalizingStage: FinalizingStage;
}

export interface OperatorStatusInput extends ClusterRef {
  readonly report: {
    readonly name: string;
    readonly version?: string;
    readonly status: 'failed' | 'progressing' | 'available';
    readonly status_info?: string;
  };
}

export interface IngressCertInput extends ClusterRef {
  /** The PEM bundle (the request body is a JSON string). */
  readonly pem: string;
}

export interface CompleteInstallationInput extends ClusterRef {
  readonly isSuccess: boolean;
  readonly errorInfo?: string;
  readonly data?: Readonly<Record<string, unknown>>;
}

// ---- events, versions ----

// The event model lives below the host API (the operator's event writer uses it too).
export * from '../../core/event-model.ts';

export interface ComponentVersions {
  readonly versions: Readonly<Record<string, string>>;
  readonly release_tag?: string;
}

// ---- infra-env reads used by the image service / PXE (§2.4) ----

export const INFRA_ENV_FILE_NAMES = ['discovery.ign', 'ipxe-script', 'static-network-config'] as const;
export type InfraEnvFileName = (typeof INFRA_ENV_FILE_NAMES)[number];
export const IPXE_SCRIPT_TYPES = ['discovery-image-always', 'boot-order-control'] as const;
export type IpxeScriptType = (typeof IPXE_SCRIPT_TYPES)[number];
export const DISCOVERY_ISO_TYPES = ['full-iso', 'minimal-iso', 'disconnected-iso'] as const;
export type DiscoveryIsoType = (typeof DISCOVERY_ISO_TYPES)[number];

export interface InfraEnvFileInput {
  readonly infraEnvId: string;
  readonly fileName: InfraEnvFileName;
  /** Lower-case colon form. */
  readonly mac?: string;
  readonly ipxeScriptType?: IpxeScriptType;
  readonly discoveryIsoType?: DiscoveryIsoType;
}

/** An infra-env with the bookkeeping the wire model shows (pull secret is never sent). */
export interface InfraEnvRecord extends InfraEnv {
  readonly created_at?: string;
  readonly updated_at?: string;
  readonly download_url?: string;
  readonly expires_at?: string;
}

/** One async method per REST operation. */
export interface HostApiBackend {
  /** POST /v2/infra-envs/{infra_env_id}/hosts → 201. 409 when the cluster cannot accept the host. */
  registerHost(ctx: CallContext, input: RegisterHostInput): Promise<Outcome<RegisteredHost>>;
  /** GET …/hosts/{host_id}/instructions → 200; 404 only when the host is gone for good. */
  getNextSteps(ctx: CallContext, input: NextStepsInput): Promise<Outcome<Steps>>;
  /** POST …/hosts/{host_id}/instructions → 204. */
  postStepReply(ctx: CallContext, input: StepReplyInput): Promise<Outcome<void>>;
  /**
   * A step reply of this host was refused (413: over its size limit) before it reached
   * postStepReply: tell whoever watches the host why its record is not updated.
   */
  stepReplyRefused?(ctx: CallContext, input: HostRef & { readonly reason: string }): Promise<void>;
  /** PUT …/hosts/{host_id}/logs-progress → 204. */
  updateHostLogsProgress(ctx: CallContext, input: HostLogsProgressInput): Promise<Outcome<void>>;
  /** PUT …/hosts/{host_id}/progress → 200; 400 unbound host, 409 refused stage (core.md / §6.3). */
  updateHostInstallProgress(ctx: CallContext, input: InstallProgressInput): Promise<Outcome<void>>;
  /** GET /v2/infra-env/{ie}/hosts/{host_id}/downloads/ignition → 200 bytes; 409 when not installing. */
  downloadHostIgnition(ctx: CallContext, input: HostRef): Promise<Outcome<FileDownload>>;
  /** POST /v2/clusters/{cid}/logs (multipart `upfile`) → 204. */
  uploadLogs(ctx: CallContext, input: UploadLogsInput): Promise<Outcome<void>>;
  /** GET /v2/clusters/{cid}/logs → 200 bytes (debugInfo.logsURL). */
  downloadClusterLogs(ctx: CallContext, input: ClusterLogsDownloadInput): Promise<Outcome<FileDownload>>;
  /**
   * The cluster with all its hosts. Serves GET /v2/clusters/{cid} (hosts dropped for
   * exclude-hosts), GET …/hosts (filtered by the router) and GET …/monitored-operators.
   */
  getCluster(ctx: CallContext, input: ClusterRef): Promise<Outcome<Cluster>>;
  /** GET /v2/clusters/{cid}/downloads/files → 200 bytes; 409 before the files exist. */
  downloadClusterFile(
    ctx: CallContext,
    input: ClusterRef & { readonly fileName: ClusterFileName },
  ): Promise<Outcome<FileDownload>>;
  /** GET /v2/clusters/{cid}/downloads/credentials → 200 bytes; 409 before they exist. */
  downloadClusterCredentials(
    ctx: CallContext,
    input: ClusterRef & { readonly fileName: CredentialFileName },
  ): Promise<Outcome<FileDownload>>;
  /** PUT /v2/clusters/{cid}/logs-progress → 204. */
  updateClusterLogsProgress(ctx: CallContext, input: LogsProgressInput): Promise<Outcome<void>>;
  /** PUT /v2/clusters/{cid}/progress → 200. */
  updateClusterFinalizingProgress(ctx: CallContext, input: FinalizingProgressInput): Promise<Outcome<void>>;
  /** PUT /v2/clusters/{cid}/monitored-operators → 200. */
  reportMonitoredOperatorStatus(ctx: CallContext, input: OperatorStatusInput): Promise<Outcome<void>>;
  /** POST /v2/clusters/{cid}/uploads/ingress-cert → 201. */
  uploadIngressCert(ctx: CallContext, input: IngressCertInput): Promise<Outcome<void>>;
  /** POST /v2/clusters/{cid}/actions/complete-installation → 202 with the cluster. */
  completeInstallation(ctx: CallContext, input: CompleteInstallationInput): Promise<Outcome<Cluster>>;
  /** POST /v2/events → 201 (the router has checked the event's ids against the token). */
  triggerEvent(ctx: CallContext, input: { readonly event: ApiEvent }): Promise<Outcome<void>>;
  /** GET /v2/events → 200 list (the router has checked the filter's ids against the token). */
  listEvents(ctx: CallContext, filter: EventFilter): Promise<Outcome<EventList>>;
  /** GET /v2/component-versions → 200 (no credential needed; image refs only). */
  getComponentVersions(): Promise<Outcome<ComponentVersions>>;
  /** GET /v2/infra-envs/{ie} → 200 (the image service reads kernel_arguments). */
  getInfraEnv(ctx: CallContext, input: { readonly infraEnvId: string }): Promise<Outcome<InfraEnvRecord>>;
  /** GET /v2/infra-envs/{ie}/downloads/files → 200 bytes (404 boot-order-control with an installed host's MAC). */
  downloadInfraEnvFile(ctx: CallContext, input: InfraEnvFileInput): Promise<Outcome<FileDownload>>;
  /** GET /v2/infra-envs/{ie}/downloads/minimal-initrd → 200 bytes, or null for 204 (nothing to add). */
  downloadMinimalInitrd(
    ctx: CallContext,
    input: { readonly infraEnvId: string },
  ): Promise<Outcome<FileDownload | null>>;
}
