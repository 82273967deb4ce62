// Ironic agent settings for the converged flow (kubeapi.md §3.7.1, §5). The PreprovisioningImage
// controller marks an InfraEnv with `enable-ironic-agent=true`; the InfraEnv controller then puts
// the ironic agent into the discovery ignition (as the record's internal ignition override, so it
// is part of the image digest) through `ironicOverrideFor`.
//
// Ironic URLs: the hub ICC Secret's (icc.ts) when it exists, else the settings IRONIC_BASE_URL
// (required for the converged flow) and IRONIC_INSPECTOR_BASE_URL (optional). The Provisioning CR
// is not read. The ironic agent image, first match wins:
//   1. the InfraEnv annotation `ironic-agent-image-override`;
//   2. the ICC Secret's IRONIC_AGENT_IMAGE, if its manifest lists the infra-env's architecture
//      (icc.ts: registry lookup, cached; failures logged once and fall through);
//   3. the hub release's `ironic-agent` component for the infra-env's architecture, where the hub
//      serves config.openshift.io ClusterVersion (release-image.ts: registry lookup, cached; any
//      failure is logged once and falls through);
//   4. the `ironic-agent` of a cached ClusterImageSet whose release tag is the hub version
//      (ClusterVersion status.desired.version, exact) for the infra-env's arch or `multi`
//      (release-image.ts clusterImageSetsForHub; same lookup, cache and fall-through as 3);
//   5. IRONIC_AGENT_IMAGE / IRONIC_AGENT_IMAGE_ARM (defaults: upstream's last-resort images).
// A dual-stack hub lists two ironic URLs (one per family, primary first); each spoke gets the one
// of its family (ironicUrlForSpoke): ip-family annotation → bound cluster's networks → primary.
import type { InfraEnv } from '../../api/index.ts';
import {
  INFRAENV_ENABLE_IRONIC_AGENT_ANNOTATION,
  INFRAENV_IP_FAMILY_ANNOTATION,
  INFRAENV_IRONIC_AGENT_IMAGE_OVERRIDE_ANNOTATION,
} from '../../api/index.ts';
import {
  DEFAULT_IRONIC_AGENT_IMAGE,
  DEFAULT_IRONIC_AGENT_IMAGE_ARM,
  type IronicAgentOptions,
  ipFamiliesFromAnnotation,
  ironicAgentOverride,
  ironicUrlForSpoke,
} from '../../core/ignition/index.ts';
import type { InfraEnv as InfraEnvRecord } from '../../core/model.ts';
import { type IpFamily, ipFamily } from '../../core/network/cidr.ts';
import type { OperatorContext } from '../context.ts';
import { ironicAgentAwaited } from '../metal3.ts';
import { type IccConfig, iccSecretOf } from './icc.ts';
import { hubReleaseImagesOf } from './release-image.ts';

export interface IronicSettings {
  ironicBaseUrl: string;
  ironicInspectorBaseUrl: string;
  defaultImage: string;
  defaultImageArm: string;
}

/**
 * The ironic settings of an operator: the URLs of the ICC Secret when given (as a pair), else the
 * IRONIC_* settings (src/records/config.ts); the default images always from the settings.
 */
export function ironicSettingsOf(ctx: OperatorContext, icc?: IccConfig): IronicSettings {
  const s = ctx.settings;
  return {
    ironicBaseUrl: icc ? icc.ironicBaseUrl : s.ironicBaseUrl,
    ironicInspectorBaseUrl: icc ? icc.ironicInspectorBaseUrl : s.ironicInspectorBaseUrl,
    defaultImage: s.ironicAgentImage || DEFAULT_IRONIC_AGENT_IMAGE,
    defaultImageArm: s.ironicAgentImageArm || DEFAULT_IRONIC_AGENT_IMAGE_ARM,
  };
}

/**
 * The ironic agent options for an InfraEnv, or why there are none. The image: the override
 * annotation, else `hubImage` (the ICC Secret's, the hub release's or a hub-version
 * ClusterImageSet's ironic-agent for the infra-env's arch: hubIronicImage), else the settings' default for the arch (ironicAgentImageFor).
 */
export function ironicAgentOptions(
  settings: IronicSettings,
  ie: InfraEnv,
  spokeFamilies?: ReadonlySet<IpFamily>,
  hubImage?: string,
): { ok: true; options: IronicAgentOptions } | { ok: false; error: string } {
  if (!settings.ironicBaseUrl) {
    return { ok: false, error: 'no ironic URL is configured (set IRONIC_BASE_URL)' };
  }
  const image = ironicImageOverride(ie) || hubImage;
  const families =
    ipFamiliesFromAnnotation(ie.metadata.annotations?.[INFRAENV_IP_FAMILY_ANNOTATION]) ?? spokeFamilies;
  return {
    ok: true,
    options: {
      ironicBaseUrl: ironicUrlForSpoke(settings.ironicBaseUrl, families),
      ...(settings.ironicInspectorBaseUrl
        ? { ironicInspectorBaseUrl: ironicUrlForSpoke(settings.ironicInspectorBaseUrl, families) }
        : {}),
      ...(image ? { ironicAgentImage: image } : {}),
      defaultImage: settings.defaultImage,
      defaultImageArm: settings.defaultImageArm,
    },
  };
}

function ironicImageOverride(ie: InfraEnv): string | undefined {
  return ie.metadata.annotations?.[INFRAENV_IRONIC_AGENT_IMAGE_OVERRIDE_ANNOTATION] || undefined;
}

/**
 * Image sources 2–4: the ICC Secret's image for the arch, else the hub release's, else that of a
 * ClusterImageSet of the hub version.
 */
export async function hubIronicImage(
  ctx: OperatorContext,
  icc: IccConfig | undefined,
  cpuArchitecture: string | undefined,
): Promise<string | undefined> {
  return (
    (await iccSecretOf(ctx).agentImageFor(icc, cpuArchitecture)) ??
    (await hubReleaseImagesOf(ctx).ironicAgentImage(cpuArchitecture)) ??
    (await hubReleaseImagesOf(ctx).clusterImageSetIronicAgentImage(cpuArchitecture))
  );
}

export function ironicAgentEnabled(ie: InfraEnv): boolean {
  return ie.metadata.annotations?.[INFRAENV_ENABLE_IRONIC_AGENT_ANNOTATION] === 'true';
}

/**
 * The internal ignition override carrying the ironic agent, for an InfraEnv the PPI controller
 * enabled it on or is about to (ironicAgentAwaited); undefined otherwise (or when no ironic URL is
 * configured — the PPI controller reports that in its conditions).
 */
export async function ironicOverrideFor(
  ctx: OperatorContext,
  ie: InfraEnv,
  record: InfraEnvRecord,
): Promise<string | undefined> {
  if (!ironicAgentEnabled(ie) && !ironicAgentAwaited(ctx, ie)) return undefined;
  const icc = await iccSecretOf(ctx).current();
  const settings = ironicSettingsOf(ctx, icc);
  if (!settings.ironicBaseUrl) return undefined;
  const hubImage = ironicImageOverride(ie)
    ? undefined
    : await hubIronicImage(ctx, icc, record.cpu_architecture);
  const opts = ironicAgentOptions(settings, ie, boundClusterFamilies(ctx, ie), hubImage);
  return opts.ok ? ironicAgentOverride(record, opts.options) : undefined;
}

/**
 * Whether the InfraEnv controller sets `enable-ironic-agent` itself, in the patch that adds its
 * finalizer: the PPI controller would set it on its next pass (a PreprovisioningImage it serves is
 * in the cache, an ironic URL is configured), so one metadata write does for two.
 */
export async function ironicAgentMarkDue(ctx: OperatorContext, ie: InfraEnv): Promise<boolean> {
  if (ironicAgentEnabled(ie) || !ironicAgentAwaited(ctx, ie)) return false;
  const icc = await iccSecretOf(ctx).current();
  return ironicSettingsOf(ctx, icc).ironicBaseUrl !== '';
}

/** IP families of the networks of the cluster the InfraEnv is bound to (from the caches). */
export function boundClusterFamilies(ctx: OperatorContext, ie: InfraEnv): Set<IpFamily> | undefined {
  const ref = ie.spec.clusterRef;
  if (!ref?.name) return undefined;
  const ns = ref.namespace || ie.metadata.namespace || '';
  const cd = ctx.informers.clusterDeployments.get(ns, ref.name);
  const aciName = cd?.spec.clusterInstallRef?.name;
  const aci = aciName ? ctx.informers.agentClusterInstalls.get(ns, aciName) : undefined;
  const net = aci?.spec.networking;
  if (!net) return undefined;
  const cidrs = [
    ...(net.clusterNetwork ?? []).map((n) => n.cidr),
    ...(net.serviceNetwork ?? []),
    ...(net.machineNetwork ?? []).map((n) => n.cidr),
  ];
  const out = new Set<IpFamily>();
  for (const c of cidrs) {
    const f = c ? ipFamily(c) : undefined;
    if (f) out.add(f);
  }
  return out.size > 0 ? out : undefined;
}
