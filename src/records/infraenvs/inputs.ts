// Everything that goes into one InfraEnv's discovery image, gathered from the caches (and the
// referenced Secret / ConfigMaps), checked the way upstream's backend checks an infra-env on
// create/update (kubeapi.md §2.3, §3.3), and hashed into the image digest that decides whether
// the image — and so its URLs and createdTime — changed. The InfraEnv controller, the REST
// backend (discovery.ign, iPXE, minimal-initrd) and the image routes all build from here, so the
// image that is served is the one the status describes.
import { createHash } from 'node:crypto';
import type { AgentClusterInstall, InfraEnv } from '../../api/index.ts';
import {
  canonicalJson,
  type MirrorRegistries,
  validateIgnitionOverride,
  validateStaticNetworkConfig,
} from '../../core/ignition/index.ts';
import type { InfraEnv as InfraEnvRecord } from '../../core/model.ts';
import { ntpSourcesError, proxyError, sshPublicKeyError } from '../../core/validations/user-input.ts';
import type { OsImage } from '../../images/base-images.ts';
import type { OperatorContext } from '../context.ts';
import { ironicOverrideFor } from '../hub/ironic.ts';
import { imageDigest, infraEnvToRecord, releaseFromImageTag } from '../index.ts';
import { readConfigMap, readSecret } from '../referenced.ts';
import { crossNamespaceRefusal } from '../references.ts';
import { normalizeArch } from '../serviceconfig/os-images.ts';
import type { ServiceConfig } from '../serviceconfig/service-config.ts';
import { aciFor, selectedNmStateConfigs } from '../views.ts';
import { tokenGenerationOf } from './services.ts';

/** The InfraEnv controller's default image type (ISO_IMAGE_TYPE, kubeapi.md §5). */
export const DEFAULT_IMAGE_TYPE = 'minimal-iso';

export type ImageType = 'full-iso' | 'minimal-iso';

export interface ImageInputs {
  infraEnv: InfraEnv;
  /** The core record; `openshift_version` is the OS image's when the spec and cluster give none. */
  record: InfraEnvRecord;
  imageType: ImageType;
  /** The OS image the InfraEnv boots; undefined when the image service is disabled. */
  osImage: OsImage | undefined;
  /** `spec.mirrorRegistryRef` (wins over the service-wide mirrors). */
  infraEnvMirrors: MirrorRegistries | undefined;
  config: ServiceConfig;
}

/** Why there is no image: the ImageCreated outcomes other than success (kubeapi.md §2.3). */
export type ImageProblem =
  | { kind: 'missing-cluster-deployment'; message: string }
  /** `retry`: a referenced object is missing; unlabelled ones are not watched until read, so look again. */
  | { kind: 'error'; clientError: boolean; message: string; retry?: boolean };

export type InputsResult = { ok: true; inputs: ImageInputs } | { ok: false; problem: ImageProblem };

const clientError = (message: string): InputsResult => ({
  ok: false,
  problem: { kind: 'error', clientError: true, message },
});
const internalError = (message: string): InputsResult => ({
  ok: false,
  problem: { kind: 'error', clientError: false, message },
});

interface ClusterBinding {
  clusterId: string;
  openshiftVersion?: string | undefined;
  cpuArchitecture?: string | undefined;
}

/**
 * Whether an AgentClusterInstall change can change what clusterBinding reads of it: its spec
 * (generation) or the cluster record's id, version and architecture. The rest of its status is
 * rewritten on every host change and install step, and is not an InfraEnv input.
 */
export function aciBindingChanged(o: AgentClusterInstall, n: AgentClusterInstall): boolean {
  const ob = o.status?.backend;
  const nb = n.status?.backend;
  return (
    o.metadata.generation !== n.metadata.generation ||
    ob?.clusterID !== nb?.clusterID ||
    ob?.openshiftVersion !== nb?.openshiftVersion ||
    ob?.cpuArchitecture !== nb?.cpuArchitecture
  );
}

/** The bound cluster, or the MissingClusterDeployment problem (kubeapi.md §2.3 examples). */
function clusterBinding(ctx: OperatorContext, ie: InfraEnv): ClusterBinding | ImageProblem | undefined {
  const ref = ie.spec.clusterRef;
  if (!ref?.name) return undefined;
  const ns = ref.namespace || ie.metadata.namespace || '';
  const refused = crossNamespaceRefusal(ctx.settings, 'InfraEnv', ie.metadata.namespace ?? '', {
    namespace: ns,
    name: ref.name,
  });
  if (refused) return { kind: 'error', clientError: true, message: refused };
  const cd = ctx.informers.clusterDeployments.get(ns, ref.name);
  if (!cd) {
    return {
      kind: 'missing-cluster-deployment',
      message: `failed to get clusterDeployment with name ${ref.name} in namespace ${ns}: clusterdeployments.hive.openshift.io "${ref.name}" not found`,
    };
  }
  const aci = aciFor(ctx, cd);
  if (!aci) {
    return {
      kind: 'missing-cluster-deployment',
      message: `cluster does not exist: ${ref.name}, AgentClusterInstall is not defined in ClusterDeployment`,
    };
  }
  const backend = aci.status?.backend;
  // The cluster record exists once the ClusterDeployment controller registered it for this CD.
  if (!cd.metadata.uid || backend?.clusterID !== cd.metadata.uid) {
    return {
      kind: 'missing-cluster-deployment',
      message: `cluster does not exist: ${ref.name}, check AgentClusterInstall conditions: name ${aci.metadata.name} in namespace ${aci.metadata.namespace}`,
    };
  }
  const imageSet = aci.spec.imageSetRef?.name
    ? ctx.informers.clusterImageSets.get(undefined, aci.spec.imageSetRef.name)
    : undefined;
  const fromTag = imageSet ? releaseFromImageTag(imageSet.spec.releaseImage) : undefined;
  return {
    clusterId: cd.metadata.uid,
    openshiftVersion: backend.openshiftVersion || fromTag?.version,
    cpuArchitecture: backend.cpuArchitecture || fromTag?.cpuArchitecture,
  };
}

/** Pull secret text, or why it cannot be used. */
async function pullSecret(
  ctx: OperatorContext,
  ie: InfraEnv,
): Promise<{ value: string } | { problem: InputsResult }> {
  const ns = ie.metadata.namespace ?? '';
  const name = ie.spec.pullSecretRef?.name;
  if (!name) return { problem: clientError('pullSecretRef is required') };
  const data = await readSecret(ctx, ns, name);
  if (!data) {
    return { problem: internalError(`failed to get pull secret: secrets "${name}" not found`) };
  }
  const text = data['.dockerconfigjson'];
  if (!text) return { problem: clientError(`pull secret ${ns}/${name} has no .dockerconfigjson key`) };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { problem: clientError('the pull secret must be a well-formed JSON') };
  }
  const auths = (parsed as { auths?: unknown } | null)?.auths;
  if (typeof auths !== 'object' || auths === null || Array.isArray(auths)) {
    return { problem: clientError("the pull secret must contain an 'auths' JSON-object field") };
  }
  return { value: text };
}

/** `spec.mirrorRegistryRef`: registries.conf (required) and ca-bundle.crt. */
async function infraEnvMirrors(
  ctx: OperatorContext,
  ie: InfraEnv,
): Promise<{ value: MirrorRegistries | undefined } | { problem: InputsResult }> {
  const ref = ie.spec.mirrorRegistryRef;
  if (!ref?.name) return { value: undefined };
  const ns = ref.namespace || ie.metadata.namespace || '';
  const data = await readConfigMap(ctx, ns, ref.name);
  if (!data) {
    const message = `failed to get mirror registry configmap ${ns}/${ref.name}: not found`;
    return { problem: { ok: false, problem: { kind: 'error', clientError: true, message, retry: true } } };
  }
  const registriesConf = data['registries.conf'];
  if (!registriesConf) {
    return {
      problem: clientError(`mirror registry configmap ${ns}/${ref.name} has no registries.conf key`),
    };
  }
  const caBundle = data['ca-bundle.crt'];
  return { value: { registriesConf, ...(caBundle ? { caBundle } : {}) } };
}

/** Reads and checks every input of the InfraEnv's image. */
export async function gatherImageInputs(
  ctx: OperatorContext,
  ie: InfraEnv,
  config: ServiceConfig,
): Promise<InputsResult> {
  const binding = clusterBinding(ctx, ie);
  if (binding && 'kind' in binding) return { ok: false, problem: binding };
  const secret = await pullSecret(ctx, ie);
  if ('problem' in secret) return secret.problem;
  const mirrors = await infraEnvMirrors(ctx, ie);
  if ('problem' in mirrors) return mirrors.problem;
  const record = infraEnvToRecord(ie, {
    pullSecret: secret.value,
    nmStateConfigs: selectedNmStateConfigs(ctx, ie),
    clusterId: binding?.clusterId,
    clusterOpenshiftVersion: binding?.openshiftVersion,
    defaultImageType: DEFAULT_IMAGE_TYPE,
  });
  // Converged flow: the ironic agent rides in the internal override, so it is in the image digest.
  const ironic = await ironicOverrideFor(ctx, ie, record);
  if (ironic) record.internal_ignition_config_override = ironic;
  const arch = record.cpu_architecture ?? 'x86_64';
  const clusterArch = binding?.cpuArchitecture;
  if (clusterArch && clusterArch !== 'multi' && normalizeArch(clusterArch) !== normalizeArch(arch)) {
    return clientError(`Specified CPU architecture (${arch}) doesn't match the cluster (${clusterArch})`);
  }
  const type = record.type as string;
  if (type !== 'full-iso' && type !== 'minimal-iso') {
    return clientError(`image type ${type} is not supported; use full-iso or minimal-iso`);
  }
  let osImage: OsImage | undefined;
  if (config.imageServiceEnabled) {
    const selected = config.osImages.forInfraEnv(arch, ie.spec.osImageVersion, binding?.openshiftVersion);
    if (!selected.ok) {
      return selected.clientError ? clientError(selected.message) : internalError(selected.message);
    }
    osImage = selected.image;
    if (!record.openshift_version) record.openshift_version = osImage.openshiftVersion;
  }
  const inputs: ImageInputs = {
    infraEnv: ie,
    record,
    imageType: type,
    osImage,
    infraEnvMirrors: mirrors.value,
    config,
  };
  const problem = checkImageInputs(inputs);
  return problem ? { ok: false, problem } : { ok: true, inputs };
}

/**
 * Upstream's create/update checks on the record, in its order: proxy, NTP sources, SSH key,
 * static network and ignition override.
 */
export function checkImageInputs(inputs: ImageInputs): ImageProblem | undefined {
  const spec = inputs.infraEnv.spec;
  const fieldError =
    proxyError(spec.proxy) ??
    ntpSourcesError(spec.additionalNTPSources ?? []) ??
    ntpSourcesError(spec.ntpSources ?? []) ??
    (spec.sshAuthorizedKey ? sshPublicKeyError(spec.sshAuthorizedKey) : undefined);
  if (fieldError) return { kind: 'error', clientError: true, message: fieldError };
  const staticNetwork = inputs.record.static_network_config ?? [];
  if (staticNetwork.length > 0) {
    const errors = validateStaticNetworkConfig(staticNetwork);
    if (errors.length > 0) return { kind: 'error', clientError: true, message: errors.join('; ') };
  }
  const override = validateIgnitionOverride(inputs.record.ignition_config_override);
  if (override) return { kind: 'error', clientError: true, message: override.error };
  return undefined;
}

/**
 * Hash of everything in the image: the record (records.imageDigest), the image type, the OS
 * image, the mirror configuration and the service settings written into the ignition. The agent
 * token is left out (it is re-signed per process but opens the same infra-env); its generation is
 * in, so revoking the tokens rebuilds the image.
 */
export function imageDigestOf(
  inputs: ImageInputs,
  service: { serviceBaseUrl: string; imageServiceBaseUrl: string; agentImage: string },
): string {
  const os = inputs.osImage;
  const material = {
    record: imageDigest(inputs.record),
    imageType: inputs.imageType,
    osImage: os
      ? { url: os.url, version: os.version, openshiftVersion: os.openshiftVersion, arch: os.cpuArchitecture }
      : null,
    infraEnvMirrors: inputs.infraEnvMirrors ?? null,
    serviceMirrors: inputs.config.mirrorRegistries ?? null,
    ...service,
  };
  // A new token generation (revocation) is a new image; absent, digests stay as they were.
  const generation = tokenGenerationOf(inputs.infraEnv);
  if (generation !== undefined) Object.assign(material, { tokenGeneration: generation });
  return createHash('sha256').update(canonicalJson(material)).digest('hex');
}
