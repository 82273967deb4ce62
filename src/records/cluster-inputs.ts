// The parts of the ACI spec the backend validates when it registers or updates a cluster
// (kubeapi.md §3.1.3, §3.1.4, §3.1.6, §3.1.7): platform and user-managed networking, networks,
// VIPs, annotations and manifests. Each part that the backend would reject yields an input error
// (a missing manifests ConfigMap or a duplicate manifest name a backend error). A rejected update
// leaves upstream's backend unchanged; here the parts stored in the ACI status (platform, UMN,
// VIPs, machine networks) keep their stored values, and rejected annotations or manifests are
// left out.

import {
  type AgentClusterInstall,
  type AgentClusterInstallStatus,
  IGNORED_CLUSTER_VALIDATIONS_ANNOTATION,
  IGNORED_HOST_VALIDATIONS_ANNOTATION,
} from '../api/index.ts';
import { userManifestProblem } from '../core/artifacts/user-manifest.ts';
import type { CidrEntry, Cluster, ClusterNetwork, PlatformType } from '../core/model.ts';
import { isDualStack } from '../core/network/dual-stack.ts';
import { validateNetworksInput } from '../core/network/network-input.ts';
import { resolvePlatform, resolvePlatformUpdate, validateSingleNode } from '../core/network/platform.ts';
import { validateVipsInput } from '../core/network/vips.ts';
import {
  baseDomainError,
  clusterNameError,
  ntpSourcesError,
  proxyError,
  sshPublicKeyError,
} from '../core/validations/user-input.ts';
import type { SpecSyncError } from './agent-conditions.ts';
import {
  ignoredValidationsFromAnnotation,
  installConfigOverridesFromAnnotation,
} from './cluster-annotations.ts';
import {
  autoNetworkType,
  clusterNetworks,
  corePlatform,
  effectiveUserManagedNetworking,
  isSingleNodeRequest,
  type ManifestsConfigMap,
  manifestsFromConfigMaps,
  provisionCounts,
  serviceNetworks,
  specVips,
} from './cluster-spec.ts';

export interface SpecInputContext {
  aci: AgentClusterInstall;
  /** The ClusterDeployment's cluster name and base domain. */
  clusterName?: string;
  baseDomain?: string;
  /** The cluster's id (the ClusterDeployment's uid), as the backend names it in messages. */
  clusterId: string;
  /** The cluster exists already (its facts in the ACI status belong to it). */
  existing: boolean;
  /** An installed cluster imported for day 2 rather than installed here. */
  imported: boolean;
  /** The cluster is installed (no network type is chosen for it). */
  installed: boolean;
  kind: Cluster['kind'];
  openshiftVersion: string;
  cpuArchitecture: string;
  manifestConfigMaps: readonly ManifestsConfigMap[];
  vipVerifications?: Readonly<Record<string, 'unverified' | 'succeeded' | 'failed' | undefined>>;
}

export interface ClusterSpecInputs {
  platform: PlatformType;
  userManagedNetworking: boolean;
  networkType: string | undefined;
  clusterNetworks: ClusterNetwork[];
  serviceNetworks: CidrEntry[];
  machineNetworks: CidrEntry[];
  apiVips: string[];
  ingressVips: string[];
  installConfigOverrides: string | undefined;
  ignoredClusterValidations: string | undefined;
  ignoredHostValidations: string | undefined;
  customManifests: Cluster['custom_manifests'];
  /** Spec fields the backend refused (left out of the record). */
  rejectedFields: ReadonlySet<UserField>;
  /** Rejections, in the order they were found. */
  errors: SpecSyncError[];
  /** Why the user manifests could not be synced: reported, but it does not stop registration. */
  manifestsError?: SpecSyncError;
}

type UserField = 'sshPublicKey' | 'proxy' | 'ntpSources';

const inputError = (message: string): SpecSyncError => ({ kind: 'input', message });

function previousStatus(ctx: SpecInputContext): AgentClusterInstallStatus | undefined {
  return ctx.existing ? ctx.aci.status : undefined;
}

/** The VIPs an update leaves the cluster with: the spec's when they are sent (any, and changed). */
function vipsAfterUpdate(ctx: SpecInputContext): { api: string[]; ingress: string[] } {
  const status = previousStatus(ctx);
  const stored = {
    api: status?.apiVIPs ?? (status?.apiVIP ? [status.apiVIP] : []),
    ingress: status?.ingressVIPs ?? (status?.ingressVIP ? [status.ingressVIP] : []),
  };
  const wanted = specVips(ctx.aci.spec);
  const sent =
    (wanted.api.length > 0 || wanted.ingress.length > 0) &&
    (!sameList(wanted.api, stored.api) || !sameList(wanted.ingress, stored.ingress));
  return sent ? wanted : stored;
}

/**
 * An update that turns user-managed networking on is refused while the cluster keeps VIPs. The
 * backend checks this with the request's addresses, before the platform (kubeapi.md §3.1.4).
 */
function umnVipConflict(ctx: SpecInputContext): string | undefined {
  const status = previousStatus(ctx);
  if (status?.userManagedNetworking === undefined) return undefined;
  const umn = effectiveUserManagedNetworking(ctx.aci.spec);
  if (!umn || status.userManagedNetworking === umn) return undefined;
  const vips = vipsAfterUpdate(ctx);
  if (vips.api.length > 0) return 'User Managed Networking cannot be set with API VIPs';
  if (vips.ingress.length > 0) return 'User Managed Networking cannot be set with Ingress VIPs';
  return undefined;
}

/** Platform and UMN, resolved as the backend registers (new) or updates (existing) a cluster. */
function platformInputs(ctx: SpecInputContext, errors: SpecSyncError[]) {
  const spec = ctx.aci.spec;
  const counts = provisionCounts(spec);
  const umn = effectiveUserManagedNetworking(spec);
  const requested = corePlatform(spec.platformType);
  const status = previousStatus(ctx);
  const stored =
    status?.platformType && status.userManagedNetworking !== undefined
      ? { platform: corePlatform(status.platformType) as PlatformType, umn: status.userManagedNetworking }
      : undefined;
  const fallback = {
    platform: stored?.platform ?? requested ?? (umn ? 'none' : 'baremetal'),
    userManagedNetworking: stored?.umn ?? umn,
  };
  if (requested === 'external' && !spec.external) {
    errors.push(inputError('For external platform, the external platform spec must be set'));
    return fallback;
  }
  const vipConflict = umnVipConflict(ctx);
  if (vipConflict !== undefined) {
    errors.push(inputError(vipConflict));
    return fallback;
  }
  // An import registers the cluster as it is; the backend does not apply its topology rules.
  if (ctx.imported && !stored)
    return { platform: requested ?? fallback.platform, userManagedNetworking: umn };
  const resolved = stored
    ? resolvePlatformUpdate(
        {
          platform: stored.platform,
          user_managed_networking: stored.umn,
          control_plane_count: counts.controlPlane,
        },
        {
          ...(requested && requested !== stored.platform ? { platform: requested } : {}),
          user_managed_networking: umn,
        },
      )
    : resolvePlatform({
        control_plane_count: counts.controlPlane,
        ...(requested ? { platform: requested } : {}),
        user_managed_networking: umn,
        cpu_architecture: ctx.cpuArchitecture,
      });
  if (resolved.error !== undefined) {
    errors.push(inputError(resolved.error));
    return fallback;
  }
  return { platform: resolved.platform, userManagedNetworking: resolved.user_managed_networking };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** Builds and validates the spec-derived inputs of the cluster record. */
export function clusterSpecInputs(ctx: SpecInputContext): ClusterSpecInputs {
  const errors: SpecSyncError[] = [];
  const spec = ctx.aci.spec;
  const status = previousStatus(ctx);
  const singleNode = isSingleNodeRequest(provisionCounts(spec));
  const userManagedLoadBalancer = spec.loadBalancer?.type === 'UserManaged';
  const { platform, userManagedNetworking } = platformInputs(ctx, errors);
  const rejectedFields = new Set<UserField>();
  errors.unshift(...userFieldErrors(ctx, platform, rejectedFields));

  const networkType =
    spec.networking.networkType || (ctx.installed ? undefined : autoNetworkType(spec, ctx.openshiftVersion));
  if (singleNode && ctx.kind === 'Cluster' && ctx.openshiftVersion) {
    const error = validateSingleNode({
      openshift_version: ctx.openshiftVersion,
      vip_dhcp_allocation: false,
      ...(networkType ? { network_type: networkType } : {}),
      user_managed_networking: userManagedNetworking,
      platform,
    });
    if (error) errors.push(inputError(error));
  }

  // Networks: the spec's lists; the defaults when empty, except machine networks, which keep what
  // the cluster has (the backend may have calculated them).
  const specMachineNetworks = (spec.networking.machineNetwork ?? []).map((n) => ({ cidr: n.cidr }));
  const networkError = validateNetworksInput(
    {
      cluster_networks: spec.networking.clusterNetwork?.map((n) => ({
        cidr: n.cidr,
        host_prefix: n.hostPrefix ?? 0,
      })),
      service_networks: spec.networking.serviceNetwork?.map((cidr) => ({ cidr })),
      machine_networks: specMachineNetworks,
    },
    {
      userManagedNetworking,
      singleNode,
      userManagedLoadBalancer,
      vipDhcpAllocation: false,
      // The pod network size is checked against the hosts present when the request is made; the
      // spec is revalidated on every build here, so only the request-independent part counts.
      hostCount: 0,
      openshiftVersion: ctx.openshiftVersion,
      ipv6Supported: true,
    },
  );
  if (networkError) errors.push(inputError(networkError));
  const storedMachineNetworks = (status?.machineNetwork ?? []).map((n) => ({ cidr: n.cidr }));
  const machineNetworks =
    specMachineNetworks.length > 0 && !networkError
      ? specMachineNetworks
      : ctx.existing
        ? storedMachineNetworks
        : [];
  const clusterNets = clusterNetworks(spec);
  const serviceNets = serviceNetworks(spec);

  // VIPs: the spec's when it has any (validated when they differ from the cluster's), else the
  // cluster's own (e.g. the SNO VIPs set at installation).
  const wanted = specVips(spec);
  const storedApi = status?.apiVIPs ?? (status?.apiVIP ? [status.apiVIP] : []);
  const storedIngress = status?.ingressVIPs ?? (status?.ingressVIP ? [status.ingressVIP] : []);
  let apiVips = storedApi;
  let ingressVips = storedIngress;
  const specHasVips = wanted.api.length > 0 || wanted.ingress.length > 0;
  if (specHasVips && (!sameList(wanted.api, storedApi) || !sameList(wanted.ingress, storedIngress))) {
    const vipError = validateVipsInput(
      { api_vips: wanted.api, ingress_vips: wanted.ingress },
      {
        openshiftVersion: ctx.openshiftVersion,
        userManagedNetworking,
        vipDhcpAllocation: false,
        userManagedLoadBalancer,
        ...(spec.external?.platformName ? { externalPlatformName: spec.external.platformName } : {}),
        machineNetworks: machineNetworks.map((n) => n.cidr),
        dualStack: isDualStack({
          machine_networks: machineNetworks,
          service_networks: serviceNets,
          cluster_networks: clusterNets,
        }),
        hosts: [],
        ...(ctx.vipVerifications ? { verifications: ctx.vipVerifications } : {}),
      },
    );
    if (vipError) errors.push(inputError(vipError));
    else {
      apiVips = wanted.api;
      ingressVips = wanted.ingress;
    }
  }

  // Annotations (install-config overrides for day-1 clusters only).
  const overrides =
    ctx.kind === 'Cluster' ? installConfigOverridesFromAnnotation(ctx.aci) : { value: undefined };
  const ignoredCluster = ignoredValidationsFromAnnotation(ctx.aci, IGNORED_CLUSTER_VALIDATIONS_ANNOTATION);
  const ignoredHost = ignoredValidationsFromAnnotation(ctx.aci, IGNORED_HOST_VALIDATIONS_ANNOTATION);
  for (const a of [overrides, ignoredCluster, ignoredHost])
    if (a.error !== undefined) errors.push(inputError(a.error));

  const manifests = ctx.kind === 'Cluster' ? userManifests(ctx) : {};
  return {
    platform,
    userManagedNetworking,
    networkType,
    clusterNetworks: clusterNets,
    serviceNetworks: serviceNets,
    machineNetworks,
    apiVips,
    ingressVips,
    installConfigOverrides: overrides.value,
    ignoredClusterValidations: ignoredCluster.value,
    ignoredHostValidations: ignoredHost.value,
    customManifests: manifests.customManifests,
    rejectedFields,
    errors,
    ...(manifests.error ? { manifestsError: manifests.error } : {}),
  };
}

/** The fields the backend checks by format on register and update: name, domain, key, proxy, NTP. */
function userFieldErrors(ctx: SpecInputContext, platform: string, rejected: Set<UserField>): SpecSyncError[] {
  const spec = ctx.aci.spec;
  const errors: SpecSyncError[] = [];
  const add = (message: string | undefined, field?: UserField) => {
    if (message === undefined) return;
    errors.push(inputError(message));
    if (field) rejected.add(field);
  };
  // An imported cluster is registered as it is; its name and domain are not checked.
  if (!ctx.imported) {
    if (ctx.clusterName !== undefined) add(clusterNameError(ctx.clusterName, platform));
    if (ctx.baseDomain) add(baseDomainError(ctx.baseDomain));
  }
  const sshKey = spec.sshPublicKey?.trim();
  if (sshKey) add(sshPublicKeyError(sshKey), 'sshPublicKey');
  add(proxyError(spec.proxy), 'proxy');
  add(ntpSourcesError(spec.ntpSources ?? []), 'ntpSources');
  return errors;
}

/**
 * The user manifests of a day-1 cluster (kubeapi.md §3.1.7): a missing ConfigMap or a name used
 * twice is a backend error, a file the backend refuses an input error. Either way none are kept
 * (upstream deletes what it synced when a sync fails).
 */
function userManifests(ctx: SpecInputContext): {
  customManifests?: Cluster['custom_manifests'];
  error?: SpecSyncError;
} {
  const result = manifestsFromConfigMaps(ctx.aci, ctx.manifestConfigMaps);
  if ('error' in result) return { error: { kind: 'backend', message: result.error } };
  const names = Object.keys(result.manifests).sort();
  for (const name of names) {
    const problem = userManifestProblem(ctx.clusterId, 'openshift', name, result.manifests[name] ?? '');
    if (problem) return { error: inputError(problem) };
  }
  return names.length > 0
    ? { customManifests: names.map((file_name) => ({ folder: 'openshift', file_name })) }
    : {};
}
