// AgentServiceConfig controller (kubeapi.md §1.6, §2.7, §3.9). The cluster-scoped singleton named
// `agent` configures the service this operator runs: its osImages feed the image service's base
// image cache (downloaded in the background, as the image service does at start-up), its
// mirrorRegistryRef ConfigMap (in the operator namespace) goes into every discovery ignition and
// the install manifests (mirrorRegistriesOf), iPXEHTTPRoute switches iPXE URLs to http, and the
// enable-image-service annotation turns the image service off. Base URLs come from the
// operator's configuration (SERVICE_BASE_URL / IMAGE_SERVICE_BASE_URL), not from this object.
//
// Any other name is not served: a Warning event "Invalid name (<name>)" (upstream) and
// ReconcileCompleted False/InvalidName on that object. The ai-deprovision finalizer is held so
// deletion is seen: the service config is then emptied (no OS images → InfraEnvs report it).
// Cached base images stay in the data directory for a later AgentServiceConfig.
import type { AgentServiceConfig } from '../../api/index.ts';
import { AGENTSERVICECONFIG_FINALIZER, AGENTSERVICECONFIG_NAME } from '../../api/index.ts';
import type { OperatorContext } from '../../records/context.ts';
import { type ConditionValue, setConditionsNoHeartbeat } from '../../records/index.ts';
import { BASE_IMAGE_RETRY_MS, imageServicesOf } from '../../records/infraenvs/services.ts';
import { readConfigMap } from '../../records/referenced.ts';
import { AGENT_SERVICE_CONFIG, CONFIG_MAP } from '../../records/resources.ts';
import {
  INITIAL_SERVICE_CONFIG,
  type ServiceConfigStore,
  serviceConfigOf,
} from '../../records/serviceconfig/service-config.ts';
import {
  addFinalizer,
  hasFinalizer,
  isBeingDeleted,
  type KubeObject,
  type ReconcileOutcome,
  type ReconcileRequest,
  removeFinalizer,
  updateStatus,
  updateWhen,
} from '../../runtime/index.ts';
import {
  deploymentsHealthy,
  evaluateAgentServiceConfig,
  INVALID_NAME_MESSAGE,
  invalidNameCondition,
  invalidNameEventReason,
  isServedName,
  type MirrorConfigMap,
} from './status.ts';

export { OsImageCatalog } from '../../records/serviceconfig/os-images.ts';
export {
  mirrorRegistriesOf,
  type ServiceConfig,
  serviceConfigOf,
} from '../../records/serviceconfig/service-config.ts';

/** No AgentServiceConfig: nothing to serve images from. */
const ABSENT = { ...INITIAL_SERVICE_CONFIG, loaded: true };

const specAnnotationsOrDeletion = updateWhen<KubeObject>(
  (o, n) =>
    o.metadata.generation !== n.metadata.generation ||
    (o.metadata.deletionTimestamp ?? '') !== (n.metadata.deletionTimestamp ?? '') ||
    JSON.stringify(o.metadata.annotations ?? {}) !== JSON.stringify(n.metadata.annotations ?? {}),
);

export function register(ctx: OperatorContext): void {
  const store = serviceConfigOf(ctx);
  const services = imageServicesOf(ctx);
  const ascs = ctx.informers.agentServiceConfigs;
  const controller = ctx.mgr
    .controller('agentserviceconfig')
    .for(AGENT_SERVICE_CONFIG, { predicates: [specAnnotationsOrDeletion] })
    .watches(CONFIG_MAP, (cm: KubeObject) => {
      const asc = ascs.get(undefined, AGENTSERVICECONFIG_NAME);
      const ref = asc?.spec?.mirrorRegistryRef?.name;
      return ref && cm.metadata.namespace === ctx.namespace && cm.metadata.name === ref
        ? [AGENTSERVICECONFIG_NAME]
        : [];
    })
    .complete((req) => reconcileAgentServiceConfig(ctx, store, req));
  const enqueue = () => controller.enqueue(AGENTSERVICECONFIG_NAME);
  services.onAuth(enqueue);
  services.onBaseImage(enqueue);
  // Without an AgentServiceConfig the controller never runs; say so once the cache has looked.
  ascs.waitForSync().then(
    () => {
      if (!ascs.get(undefined, AGENTSERVICECONFIG_NAME)) store.set(ABSENT);
    },
    () => {},
  );
}

async function writeConditions(ctx: OperatorContext, asc: AgentServiceConfig, values: ConditionValue[]) {
  await updateStatus(ctx.client, AGENT_SERVICE_CONFIG, asc, (obj) => ({
    ...obj.status,
    conditions: setConditionsNoHeartbeat(obj.status?.conditions, values, ctx.now()),
  }));
}

export async function reconcileAgentServiceConfig(
  ctx: OperatorContext,
  store: ServiceConfigStore,
  req: ReconcileRequest,
): Promise<ReconcileOutcome> {
  const asc = ctx.informers.agentServiceConfigs.get(undefined, req.name);
  if (!asc) {
    if (req.name === AGENTSERVICECONFIG_NAME) store.set(ABSENT);
    return;
  }
  if (!isServedName(asc)) {
    ctx.mgr.events.event(asc, 'Warning', invalidNameEventReason(req.name), INVALID_NAME_MESSAGE);
    await writeConditions(ctx, asc, [invalidNameCondition()]);
    return;
  }
  if (isBeingDeleted(asc)) {
    store.set(ABSENT);
    if (hasFinalizer(asc, AGENTSERVICECONFIG_FINALIZER)) {
      await removeFinalizer(ctx.client, AGENT_SERVICE_CONFIG, asc, AGENTSERVICECONFIG_FINALIZER);
    }
    return;
  }
  const current = hasFinalizer(asc, AGENTSERVICECONFIG_FINALIZER)
    ? asc
    : await addFinalizer(ctx.client, AGENT_SERVICE_CONFIG, asc, AGENTSERVICECONFIG_FINALIZER);
  if (!current) return;

  const ref = current.spec?.mirrorRegistryRef?.name;
  const mirror: MirrorConfigMap | undefined = ref
    ? { namespace: ctx.namespace, name: ref, data: await readConfigMap(ctx, ctx.namespace, ref) }
    : undefined;
  const { config, reconcileCompleted } = evaluateAgentServiceConfig(current, mirror);
  store.set(config);
  const services = imageServicesOf(ctx);
  services.prefetch(config.osImages.images);
  const health = deploymentsHealthy(
    services.auth !== undefined,
    config.osImages.images.map((os) => ({ os, state: services.baseImageState(os) })),
  );
  await writeConditions(ctx, current, [reconcileCompleted, health]);
  const failed = config.osImages.images.some((os) => services.baseImageState(os)?.state === 'failed');
  return failed ? { requeueAfter: BASE_IMAGE_RETRY_MS } : undefined;
}
