// ClusterDeployment + AgentClusterInstall + ClusterImageSet + pull secret + Agents → core Cluster
// (kubeapi.md §3.1). The spec is mapped the way upstream creates and updates its backend cluster;
// what the backend decided or learned (state, validations, machine networks it calculated, VIPs,
// platform, release, install times) is read back from the ACI status and `status.backend`, which
// is where `clusterToAciStatus` put it. Facts count only when `status.backend.clusterID` is the
// ClusterDeployment's uid: a re-created ClusterDeployment is a new cluster, as upstream.
//
// Errors follow upstream's split. Problems found before upstream looks its cluster up (mismatched
// references, pull secret, ClusterImageSet, release) return only an error, and the ACI shows the
// "Unknown set". Problems with the spec itself (platform, networks, VIPs, annotations, manifests)
// are the backend rejecting an update: an existing cluster is still returned with the error (its
// platform, VIPs and machine networks as they were; a rejected annotation or manifest set is left
// out; cluster and service networks are not stored, so they follow the spec); a cluster that does
// not exist yet is not created. Manifests are synced after registration: their problem is
// reported on the cluster, new or not.

import {
  type Agent,
  type AgentClusterInstall,
  type ClusterDeployment,
  type ClusterImageSet,
  HIVE_EXTENSIONS_GROUP,
} from '../api/index.ts';
import type {
  Cluster,
  ClusterKind,
  ClusterStatus,
  LastInstallationPreparation,
  MonitoredOperator,
  VipEntry,
} from '../core/model.ts';
import { canonicalIp } from '../core/network/cidr.ts';
import { computePrimaryIpStack } from '../core/network/dual-stack.ts';
import { CLUSTER_INFO } from '../core/statemachine/cluster-refresh-effects.ts';
import { schedulableMastersForcedTrue } from '../core/statemachine/monitor.ts';
import { pullSecretProblem } from '../core/validations/pull-secret.ts';
import type { AgentHost } from './agent.ts';
import type { SpecSyncError } from './agent-conditions.ts';
import { clusterHosts, type HostFactsReader } from './cluster-hosts.ts';
import { type ClusterSpecInputs, clusterSpecInputs } from './cluster-inputs.ts';
import {
  diskEncryption,
  hyperthreading,
  type ManifestsConfigMap,
  provisionCounts,
  proxyFields,
} from './cluster-spec.ts';
import { majorityGroupsOf } from './clusters/agents-view.ts';
import {
  RELEASE_VERSION_NOT_DERIVABLE,
  type ReleaseInfo,
  releaseFromImageTag,
  releaseImageError,
} from './release.ts';

/** A cluster whose hosts carry the Agent approval flag. */
export interface AgentCluster extends Cluster {
  hosts: AgentHost[];
}

/** Cluster facts the reconciler keeps in memory (recomputed from step replies after a restart). */
export interface ClusterMemoryFacts {
  /** Runtime facts per host id. */
  hosts?: HostFactsReader;
  ip_collisions?: string;
  /** verify-vips results by VIP. */
  vipVerifications?: Readonly<Record<string, VipEntry['verification']>>;
}

export interface ClusterResources {
  cd: ClusterDeployment;
  aci: AgentClusterInstall;
  /** The ClusterImageSet named by `aci.spec.imageSetRef`, when it exists. */
  clusterImageSet?: ClusterImageSet;
  /** `.dockerconfigjson` of the CD's pull Secret; undefined when it could not be read. */
  pullSecret?: string;
  /** The pull Secret exists but has no `.dockerconfigjson` key. */
  pullSecretKeyMissing?: boolean;
  /** Agents of this ClusterDeployment; only those bound to the cluster become its hosts. */
  agents: readonly Agent[];
  memoryFacts?: ClusterMemoryFacts;
  now: Date;
  /** Release version/architecture the caller resolved from the image; else read from its tag. */
  release?: ReleaseInfo;
  /** PEM of the ignition endpoint CA (`tls.crt` of `ignitionEndpoint.caCertificateReference`). */
  ignitionEndpointCaCertificate?: string;
  /** The manifests ConfigMaps the ACI references that exist. */
  manifestConfigMaps?: readonly ManifestsConfigMap[];
}

export type ClusterFromResourcesResult =
  | { cluster: AgentCluster; error?: SpecSyncError }
  | { cluster?: undefined; error: SpecSyncError };

const PULL_SECRET_KEY = '.dockerconfigjson';

const input = (message: string): SpecSyncError => ({ kind: 'input', message });
const backendError = (message: string): SpecSyncError => ({ kind: 'backend', message });

/** Installed for the controller: CD spec.installed, or the ACI already reported completion. */
export function isClusterInstalled(cd: ClusterDeployment, aci: AgentClusterInstall): boolean {
  const completed = aci.status?.conditions?.find((c) => c.type === 'Completed');
  return cd.spec.installed === true || completed?.reason === 'InstallationCompleted';
}

/** The mismatch between the CD's clusterInstallRef and the ACI's clusterDeploymentRef, if any. */
export function referenceMismatch(cd: ClusterDeployment, aci: AgentClusterInstall): string | undefined {
  const ref = cd.spec.clusterInstallRef;
  const cdNs = cd.metadata.namespace ?? '';
  const aciNs = aci.metadata.namespace ?? '';
  const cdPointsHere =
    ref?.group === HIVE_EXTENSIONS_GROUP &&
    ref.kind === 'AgentClusterInstall' &&
    ref.name === aci.metadata.name &&
    cdNs === aciNs;
  const aciPointsHere = aci.spec.clusterDeploymentRef.name === cd.metadata.name && cdNs === aciNs;
  if (cdPointsHere && aciPointsHere) return undefined;
  return (
    `AgentClusterInstall ${aciNs}/${aci.metadata.name} references ClusterDeployment ` +
    `'${aci.spec.clusterDeploymentRef.name ?? ''}' but ClusterDeployment ${cdNs}/${cd.metadata.name} ` +
    `references ${ref?.kind ?? 'no cluster install'} '${ref?.name ?? ''}'`
  );
}

function pullSecretFor(
  r: ClusterResources,
  installed: boolean,
): { value: string } | { error: SpecSyncError } {
  const name = r.cd.spec.pullSecretRef?.name;
  const cdKey = `${r.cd.metadata.name}/${r.cd.metadata.namespace}`;
  if (!name) {
    return installed
      ? { value: '' }
      : { error: input(`PullSecret is required for ClusterDeployment ${cdKey}`) };
  }
  const failure = (reason: string) =>
    ({
      error: backendError(`failed to validate pull secret for ClusterDeployment ${cdKey}: ${reason}`),
    }) as const;
  if (r.pullSecretKeyMissing) return failure(`secret ${name} did not contain key ${PULL_SECRET_KEY}`);
  if (r.pullSecret === undefined) return failure(`failed to find secret ${name}`);
  // Upstream also prints the secret's data here; it never reaches a status (docs/compatibility.md).
  const problem = pullSecretProblem(r.pullSecret);
  if (problem) return failure(`invalid pull secret data in secret ${name}: ${problem}`);
  return { value: r.pullSecret };
}

/** Release of a new cluster; a cluster keeps the release it was registered with. */
function releaseFor(
  r: ClusterResources,
  installed: boolean,
  persisted: ReleaseInfo | undefined,
): { release: ReleaseInfo & { image?: string } } | { error: SpecSyncError } {
  const ref = r.aci.spec.imageSetRef;
  if (!ref) {
    if (!installed) {
      return {
        error: input(
          'ClusterImageSet must be specified in AgentClusterInstall.Spec.ImageSetRef for cluster that is not installed',
        ),
      };
    }
    return { release: persisted ?? { version: '', cpuArchitecture: '' } };
  }
  if (!r.clusterImageSet) {
    return {
      error: backendError(`ClusterImageSet ${ref.name} not found. Please ensure the ClusterImageSet exists`),
    };
  }
  const image = r.clusterImageSet.spec.releaseImage;
  if (persisted) return { release: { ...persisted, image } };
  const release = r.release ?? releaseFromImageTag(image);
  if (!release)
    return { error: backendError(releaseImageError(image, ref.name, RELEASE_VERSION_NOT_DERIVABLE)) };
  return { release: { ...release, image } };
}

function vipEntries(ips: string[], facts: ClusterMemoryFacts | undefined): VipEntry[] {
  return ips.map((raw) => {
    const ip = canonicalIp(raw);
    const verification = facts?.vipVerifications?.[ip];
    return verification ? { ip, verification } : { ip };
  });
}

function monitoredOperatorsFrom(
  list: NonNullable<NonNullable<AgentClusterInstall['status']>['backend']>['monitoredOperators'],
): MonitoredOperator[] | undefined {
  return list?.map((o) =>
    dropUndefined({
      name: o.name,
      operator_type: o.operatorType as MonitoredOperator['operator_type'],
      status: o.status as MonitoredOperator['status'],
      status_info: o.statusInfo,
      timeout_seconds: o.timeoutSeconds,
      version: o.version,
      namespace: o.namespace,
      subscription_name: o.subscriptionName,
    }),
  );
}

function dropUndefined<T extends object>(entries: T): T {
  return Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined)) as T;
}

/** Record fields read back from the ACI status of an existing cluster (or a new cluster's start). */
function persistedFields(aci: AgentClusterInstall, existing: boolean, kind: ClusterKind, now: string) {
  if (!existing) {
    return {
      status: (kind === 'AddHostsCluster' ? 'adding-hosts' : 'insufficient') as ClusterStatus,
      status_info: kind === 'AddHostsCluster' ? CLUSTER_INFO.addingHosts : CLUSTER_INFO.insufficientInitial,
      status_updated_at: now,
      created_at: now,
      progress: { total_percentage: 0 },
    };
  }
  const status = aci.status;
  const backend = status?.backend;
  const p = backend?.progress;
  const last = backend?.lastInstallationPreparation;
  return {
    status: (backend?.state ?? status?.debugInfo?.state ?? 'insufficient') as ClusterStatus,
    status_info: backend?.stateInfo ?? status?.debugInfo?.stateInfo ?? '',
    status_updated_at: backend?.statusUpdatedAt,
    created_at: backend?.createdAt,
    validations_info: status?.validationsInfo as Cluster['validations_info'],
    progress: dropUndefined({
      total_percentage: status?.progress?.totalPercentage,
      preparing_for_installation_stage_percentage: p?.preparingForInstallationStagePercentage,
      installing_stage_percentage: p?.installingStagePercentage,
      finalizing_stage_percentage: p?.finalizingStagePercentage,
      finalizing_stage: p?.finalizingStage,
      finalizing_stage_started_at: p?.finalizingStageStartedAt,
      finalizing_stage_timed_out: p?.finalizingStageTimedOut,
    }),
    last_installation_preparation: last
      ? { status: last.status as LastInstallationPreparation['status'], reason: last.reason ?? '' }
      : undefined,
    monitored_operators: monitoredOperatorsFrom(backend?.monitoredOperators),
    install_started_at: backend?.installStartedAt,
    install_completed_at: backend?.installCompletedAt,
    controller_logs_started_at: backend?.controllerLogsStartedAt,
    controller_logs_collected_at: backend?.controllerLogsCollectedAt,
    logs_info: backend?.logsInfo as Cluster['logs_info'],
    kubeconfig_uploaded: backend?.kubeconfigUploaded,
    connectivity_majority_groups: majorityGroupsOf(aci),
    api_vip_dns_name: backend?.apiVipDnsName,
    openshift_cluster_id: backend?.openshiftClusterID,
  };
}

/** Record fields the ACI spec and the ClusterDeployment set directly. */
function specFields(r: ClusterResources, inputs: ClusterSpecInputs, pullSecret: string) {
  const spec = r.aci.spec;
  const rejected = inputs.rejectedFields;
  const sshKey = rejected.has('sshPublicKey') ? undefined : spec.sshPublicKey?.trim();
  const ntp = rejected.has('ntpSources') ? '' : (spec.ntpSources ?? []).join(',');
  const platform: Cluster['platform'] =
    inputs.platform === 'external'
      ? {
          type: 'external',
          external: {
            platform_name: spec.external?.platformName ?? 'Unknown',
            cloud_controller_manager: spec.external?.cloudControllerManager ?? '',
          },
        }
      : { type: inputs.platform };
  return {
    name: r.cd.spec.clusterName,
    base_dns_domain: r.cd.spec.baseDomain,
    control_plane_count: provisionCounts(spec).controlPlane,
    platform,
    user_managed_networking: inputs.userManagedNetworking,
    network_type: inputs.networkType,
    cluster_networks: inputs.clusterNetworks,
    service_networks: inputs.serviceNetworks,
    machine_networks: inputs.machineNetworks,
    api_vips: vipEntries(inputs.apiVips, r.memoryFacts),
    ingress_vips: vipEntries(inputs.ingressVips, r.memoryFacts),
    vip_dhcp_allocation: false,
    load_balancer: {
      type: spec.loadBalancer?.type === 'UserManaged' ? 'user-managed' : 'cluster-managed',
    } as const,
    pull_secret: pullSecret || undefined,
    pull_secret_set: pullSecret !== '',
    ssh_public_key: sshKey || undefined,
    ...(rejected.has('proxy') ? {} : proxyFields(spec)),
    additional_ntp_source: ntp || undefined,
    hyperthreading: hyperthreading(spec),
    schedulable_masters: spec.mastersSchedulable === true,
    install_config_overrides: inputs.installConfigOverrides,
    ignition_endpoint: spec.ignitionEndpoint
      ? {
          url: spec.ignitionEndpoint.url ?? '',
          ca_certificate: r.ignitionEndpointCaCertificate
            ? Buffer.from(r.ignitionEndpointCaCertificate).toString('base64')
            : '',
        }
      : undefined,
    disk_encryption: diskEncryption(spec),
    ignored_cluster_validations: inputs.ignoredClusterValidations,
    ignored_host_validations: inputs.ignoredHostValidations,
    custom_manifests: inputs.customManifests,
  };
}

/** Builds the cluster record, or the error that stops upstream from having one. */
export function clusterFromResources(r: ClusterResources): ClusterFromResourcesResult {
  const { cd, aci } = r;
  const mismatch = referenceMismatch(cd, aci);
  if (mismatch) return { error: input(mismatch) };
  const installed = isClusterInstalled(cd, aci);
  const pullSecret = pullSecretFor(r, installed);
  if ('error' in pullSecret) return { error: pullSecret.error };

  const id = cd.metadata.uid ?? '';
  const backend = aci.status?.backend;
  const existing = id !== '' && backend?.clusterID === id;
  const persistedRelease =
    existing && backend?.openshiftVersion !== undefined
      ? { version: backend.openshiftVersion, cpuArchitecture: backend.cpuArchitecture ?? '' }
      : undefined;
  const release = releaseFor(r, installed, persistedRelease);
  if ('error' in release) return { error: release.error };

  const kind: ClusterKind = existing
    ? ((backend?.kind as ClusterKind | undefined) ?? 'Cluster')
    : installed
      ? 'AddHostsCluster'
      : 'Cluster';
  const imported = existing ? backend?.imported === true : installed;
  const inputs = clusterSpecInputs({
    aci,
    clusterName: cd.spec.clusterName,
    baseDomain: cd.spec.baseDomain,
    clusterId: id,
    existing,
    imported,
    installed,
    kind,
    openshiftVersion: release.release.version,
    cpuArchitecture: release.release.cpuArchitecture,
    manifestConfigMaps: r.manifestConfigMaps ?? [],
    ...(r.memoryFacts?.vipVerifications ? { vipVerifications: r.memoryFacts.vipVerifications } : {}),
  });
  // A spec the backend refuses stops a new cluster from being registered; manifests are synced
  // after registration, so their problem is reported on the registered cluster.
  const specError = inputs.errors[0];
  if (specError && !existing) return { error: specError };
  const error = specError ?? inputs.manifestsError;

  const persisted = persistedFields(aci, existing, kind, r.now.toISOString());
  const cluster = dropUndefined<AgentCluster>({
    id,
    kind,
    openshift_version: release.release.version,
    ocp_release_image: existing ? backend?.releaseImage : release.release.image,
    cpu_architecture: release.release.cpuArchitecture || undefined,
    ...specFields(r, inputs, pullSecret.value),
    ...persisted,
    api_vip_dns_name:
      persisted.api_vip_dns_name ??
      (kind === 'AddHostsCluster' && !existing
        ? `api.${cd.spec.clusterName}.${cd.spec.baseDomain}`
        : undefined),
    openshift_cluster_id: persisted.openshift_cluster_id ?? aci.spec.clusterMetadata?.clusterID,
    ip_collisions: r.memoryFacts?.ip_collisions,
    imported: imported || undefined,
    hosts: clusterHosts(cd, id, r.agents, r.memoryFacts?.hosts),
  });
  const stack = computePrimaryIpStack(cluster);
  if (stack.stack !== undefined) cluster.primary_ip_stack = stack.stack;
  cluster.schedulable_masters_forced_true = schedulableMastersForcedTrue(cluster);
  return error ? { cluster, error } : { cluster };
}
