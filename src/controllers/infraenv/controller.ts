// InfraEnvReconciler (kubeapi.md §3.3): keeps an InfraEnv's status describing its discovery
// image — ImageCreated, isoDownloadURL, createdTime, bootArtifacts, agentLabelSelector and
// debugInfo — and holds the ai-deprovision finalizer. There is no backend infra-env to create or
// deregister: the CR is the record, and the image is streamed on request, so deletion only
// forgets the in-memory agent token and removes the finalizer (Agents go by ownerReference GC).
//
// Watches: the InfraEnv (changes of spec, deletion or the annotations the image depends on), the
// NMStateConfigs its selector picks, its pull Secret and mirror ConfigMap (watch-labelled ones),
// the ClusterDeployment and AgentClusterInstall it is bound to (of the latter, only changes to
// what it reads: spec, cluster record id, version, architecture), the AgentServiceConfig (through
// the service config store), the moment local authentication becomes available, and a change of
// the base URLs (ctx.onUrlsChange).
import type { AgentClusterInstall, ClusterDeployment, InfraEnv, NMStateConfig } from '../../api/index.ts';
import {
  INFRAENV_ENABLE_IRONIC_AGENT_ANNOTATION,
  INFRAENV_FINALIZER,
  INFRAENV_IP_FAMILY_ANNOTATION,
  INFRAENV_IRONIC_AGENT_IMAGE_OVERRIDE_ANNOTATION,
  INFRAENV_TOKEN_GENERATION_ANNOTATION,
} from '../../api/index.ts';
import type { OperatorContext } from '../../records/context.ts';
import { operatorEventsFor } from '../../records/events.ts';
import { ironicAgentMarkDue } from '../../records/hub/ironic.ts';
import { discoveryIgnition, staticNetworkFiles } from '../../records/infraenvs/discovery.ts';
import {
  aciBindingChanged,
  gatherImageInputs,
  type ImageInputs,
  type ImageProblem,
  imageDigestOf,
} from '../../records/infraenvs/inputs.ts';
import { type ImageServices, imageServicesOf } from '../../records/infraenvs/services.ts';
import {
  AGENT_CLUSTER_INSTALL,
  CLUSTER_DEPLOYMENT,
  CONFIG_MAP,
  INFRA_ENV,
  NMSTATE_CONFIG,
  SECRET,
} from '../../records/resources.ts';
import { type ServiceConfig, serviceConfigOf } from '../../records/serviceconfig/service-config.ts';
import { infraEnvsSelecting } from '../../records/views.ts';
import {
  addFinalizer,
  type Controller,
  hasFinalizer,
  type IndexFunc,
  isBeingDeleted,
  type KubeObject,
  keyOf,
  objectKey,
  type ReconcileOutcome,
  type ReconcileRequest,
  removeFinalizer,
  updateStatus,
  updateWhen,
} from '../../runtime/index.ts';
import { desiredInfraEnvStatus, type ImageOutcome } from './status.ts';

/** kubeapi.md §3.10: recoverable errors are retried after 20 s, deletion failures after 60 s. */
export const INFRAENV_ERROR_REQUEUE_MS = 20_000;
export const INFRAENV_DELETION_REQUEUE_MS = 60_000;

const INFRAENV_BY_PULL_SECRET = 'infraenv-by-pull-secret';
const INFRAENV_BY_MIRROR_CONFIGMAP = 'infraenv-by-mirror-configmap';

const byPullSecret: IndexFunc<InfraEnv> = (ie) => {
  const name = ie.spec?.pullSecretRef?.name;
  return name ? [keyOf(ie.metadata.namespace, name)] : [];
};

const byMirrorConfigMap: IndexFunc<InfraEnv> = (ie) => {
  const ref = ie.spec?.mirrorRegistryRef;
  return ref?.name ? [keyOf(ref.namespace || ie.metadata.namespace, ref.name)] : [];
};

/**
 * NMStateConfig → InfraEnvs of its namespace whose selector matches it now or matched it at the
 * previous event (so removing a label re-reconciles the InfraEnv that loses the config).
 */
function nmStateMapper(ctx: OperatorContext): (nm: NMStateConfig) => string[] {
  const last = new Map<string, string[]>();
  return (nm) => {
    const key = objectKey(nm);
    const ns = nm.metadata.namespace ?? '';
    const now = infraEnvsSelecting(ctx, ns, nm.metadata.labels).map(objectKey);
    const before = last.get(key) ?? [];
    if (ctx.informers.nmStateConfigs.get(ns, nm.metadata.name ?? '')) last.set(key, now);
    else last.delete(key);
    return [...new Set([...now, ...before])];
  };
}

/** Annotations the image depends on: the ironic agent (converged flow) and token revocation. */
const IMAGE_ANNOTATIONS = [
  INFRAENV_ENABLE_IRONIC_AGENT_ANNOTATION,
  INFRAENV_IRONIC_AGENT_IMAGE_OVERRIDE_ANNOTATION,
  INFRAENV_IP_FAMILY_ANNOTATION,
  INFRAENV_TOKEN_GENERATION_ANNOTATION,
];

const specOrDeletionChanged = updateWhen<KubeObject>(
  (o, n) =>
    o.metadata.generation !== n.metadata.generation ||
    (o.metadata.deletionTimestamp ?? '') !== (n.metadata.deletionTimestamp ?? '') ||
    IMAGE_ANNOTATIONS.some((a) => o.metadata.annotations?.[a] !== n.metadata.annotations?.[a]),
);

export function register(ctx: OperatorContext): void {
  const services = imageServicesOf(ctx);
  const config = serviceConfigOf(ctx);
  const infraEnvs = ctx.informers.infraEnvs;
  infraEnvs.store.addIndex(INFRAENV_BY_PULL_SECRET, byPullSecret);
  infraEnvs.store.addIndex(INFRAENV_BY_MIRROR_CONFIGMAP, byMirrorConfigMap);
  const keys = (list: InfraEnv[]) => list.map(objectKey);

  const controller: Controller = ctx.mgr
    .controller('infraenv')
    .for(INFRA_ENV, { predicates: [specOrDeletionChanged] })
    .watches(NMSTATE_CONFIG, nmStateMapper(ctx))
    .watches(SECRET, (s: KubeObject) => keys(infraEnvs.store.byIndex(INFRAENV_BY_PULL_SECRET, objectKey(s))))
    .watches(CONFIG_MAP, (cm: KubeObject) =>
      keys(infraEnvs.store.byIndex(INFRAENV_BY_MIRROR_CONFIGMAP, objectKey(cm))),
    )
    .watches(CLUSTER_DEPLOYMENT, (cd: ClusterDeployment) => keys(ctx.infraEnvsOfCluster(objectKey(cd))))
    .watches(
      AGENT_CLUSTER_INSTALL,
      (aci: AgentClusterInstall) => {
        const cd = aci.spec?.clusterDeploymentRef?.name;
        return cd ? keys(ctx.infraEnvsOfCluster(keyOf(aci.metadata.namespace, cd))) : [];
      },
      // Not the cluster's own status writes (one per registration and install step).
      { predicates: [updateWhen(aciBindingChanged)] },
    )
    .complete((req) => reconcileInfraEnv(ctx, services, config.current, req));

  const enqueueAll = () => controller.resync(infraEnvs.store.list());
  services.onAuth(enqueueAll);
  config.onChange(enqueueAll);
  // isoDownloadURL, bootArtifacts, debugInfo and the image digest name the base URLs.
  ctx.onUrlsChange(enqueueAll);
}

/**
 * Builds the static network files and the ignition once, so their errors reach the condition. The
 * ignition embeds the files built here rather than generating them again (issue 16).
 */
function buildProblem(
  ctx: OperatorContext,
  services: ImageServices,
  inputs: ImageInputs,
): ImageProblem | undefined {
  const network = staticNetworkFiles(inputs.record);
  if (network && 'error' in network) return { kind: 'error', clientError: true, message: network.error };
  const id = inputs.infraEnv.metadata.uid ?? '';
  const settings = {
    serviceBaseUrl: ctx.urls.serviceBaseUrl,
    agentImage: ctx.settings.agentImage,
    agentToken: services.agentToken(id),
  };
  const built = discoveryIgnition(inputs, settings, inputs.imageType, network);
  return built.ok ? undefined : { kind: 'error', clientError: true, message: built.error };
}

async function imageOutcome(
  ctx: OperatorContext,
  services: ImageServices,
  config: ServiceConfig,
  ie: InfraEnv,
): Promise<ImageOutcome> {
  const gathered = await gatherImageInputs(ctx, ie, config);
  const problem = gathered.ok ? buildProblem(ctx, services, gathered.inputs) : gathered.problem;
  if (!config.imageServiceEnabled) return { kind: 'disabled', problem };
  if (problem || !gathered.ok) return { kind: 'problem', problem: problem! };
  const { inputs } = gathered;
  const os = inputs.osImage!;
  return {
    kind: 'image',
    image: {
      digest: imageDigestOf(inputs, {
        serviceBaseUrl: ctx.urls.serviceBaseUrl,
        imageServiceBaseUrl: ctx.urls.imageServiceBaseUrl,
        agentImage: ctx.settings.agentImage,
      }),
      openshiftVersion: os.openshiftVersion,
      cpuArchitecture: os.cpuArchitecture,
      imageType: inputs.imageType,
      hasStaticNetwork: (inputs.record.static_network_config ?? []).length > 0,
      bootOrderControl: ie.spec.ipxeScriptType === 'BootOrderControl',
      insecureHttp: config.insecureIpxeUrls,
    },
  };
}

function unboundPort(url: string): boolean {
  try {
    return new URL(url).port === '0';
  } catch {
    return false;
  }
}

/** The infra-env event upstream emits for each new image (listed by GET /v2/events). */
function recordImageGenerated(ctx: OperatorContext, ie: InfraEnv, imageType: string): void {
  const ssh = ie.spec.sshAuthorizedKey ? 'is set' : 'is not set';
  operatorEventsFor(ctx).record({
    name: 'ignition_config_image_generated',
    infra_env_id: ie.metadata.uid ?? '',
    severity: 'info',
    category: 'user',
    message: `Generated image (Image type is "${imageType}", SSH public key ${ssh})`,
    event_time: ctx.now().toISOString(),
  });
}

/**
 * Adds the finalizer, and with it the ironic-agent mark when the PPI controller would add it next
 * (ironicAgentMarkDue): one write instead of two.
 */
async function addFinalizerAndMark(ctx: OperatorContext, ie: InfraEnv): Promise<InfraEnv | undefined> {
  const mark = (await ironicAgentMarkDue(ctx, ie))
    ? { [INFRAENV_ENABLE_IRONIC_AGENT_ANNOTATION]: 'true' }
    : undefined;
  return addFinalizer(ctx.client, INFRA_ENV, ie, INFRAENV_FINALIZER, mark);
}

export async function reconcileInfraEnv(
  ctx: OperatorContext,
  services: ImageServices,
  config: ServiceConfig,
  req: ReconcileRequest,
): Promise<ReconcileOutcome> {
  const ie = ctx.informers.infraEnvs.get(req.namespace, req.name);
  if (!ie) return;
  if (isBeingDeleted(ie)) {
    if (!hasFinalizer(ie, INFRAENV_FINALIZER)) return;
    // Nothing lives outside the CR: the ISO is streamed, never written to disk.
    if (ie.metadata.uid) services.forgetInfraEnv(ie.metadata.uid);
    try {
      await removeFinalizer(ctx.client, INFRA_ENV, ie, INFRAENV_FINALIZER);
    } catch (err) {
      ctx.logger.warn({ err, infraEnv: req.key }, 'removing the InfraEnv finalizer failed');
      return { requeueAfter: INFRAENV_DELETION_REQUEUE_MS };
    }
    return;
  }
  const auth = services.auth;
  // Both arrive shortly after start-up; their listeners enqueue every InfraEnv.
  if (!auth || !config.loaded) return;
  // API_PORT=0: the base URLs name the real port only once the server listens.
  if (unboundPort(ctx.urls.serviceBaseUrl) || unboundPort(ctx.urls.imageServiceBaseUrl)) {
    return { requeueAfter: 1000 };
  }
  const current = hasFinalizer(ie, INFRAENV_FINALIZER) ? ie : await addFinalizerAndMark(ctx, ie);
  if (!current) return;

  const outcome = await imageOutcome(ctx, services, config, current);
  let reissueInMs: number | undefined;
  const update = await updateStatus(ctx.client, INFRA_ENV, current, (obj) => {
    const desired = desiredInfraEnvStatus(obj, outcome, { now: ctx.now(), urls: ctx.urls, issuer: auth });
    reissueInMs = desired.reissueInMs;
    return desired.status;
  });
  if (
    update.written &&
    outcome.kind === 'image' &&
    current.status?.backend?.imageDigest !== outcome.image.digest
  ) {
    recordImageGenerated(ctx, current, outcome.image.imageType);
  }
  const problem = outcome.kind === 'image' ? undefined : outcome.problem;
  const retryInternal =
    outcome.kind === 'problem' && problem?.kind === 'error' && (!problem.clientError || problem.retry)
      ? INFRAENV_ERROR_REQUEUE_MS
      : undefined;
  const delays = [reissueInMs, retryInternal].filter((d): d is number => d !== undefined);
  return delays.length > 0 ? { requeueAfter: Math.min(...delays) } : undefined;
}
