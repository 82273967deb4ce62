// AgentServiceConfig → service config and conditions (kubeapi.md §1.6, §2.7), pure.
//
// Upstream's operator deploys assisted-service, the image service, a database and webhooks, and
// its conditions report on those deployments. This operator IS the service, so:
// * ReconcileCompleted says whether the spec could be applied (ConfigFailure for a missing or
//   incomplete mirror-registry ConfigMap, OSImagesShouldBeEmptyFailure when the image service is
//   disabled but osImages are listed, InvalidName for any AgentServiceConfig not named `agent`).
// * DeploymentsHealthy says whether what upstream's deployments would provide is up here: the
//   REST API / image service is serving and every OS image's base ISO is in the cache (what the
//   image service's /health waits for).
// * LocalClusterManaged is not written: local-cluster import is not implemented.
import type { AgentServiceConfig } from '../../api/index.ts';
import { AGENTSERVICECONFIG_NAME, ENABLE_IMAGE_SERVICE_ANNOTATION } from '../../api/index.ts';
import type { MirrorRegistries } from '../../core/ignition/index.ts';
import type { OsImage } from '../../images/base-images.ts';
import type { ConditionValue } from '../../records/index.ts';
import type { BaseImageState } from '../../records/infraenvs/services.ts';
import { OsImageCatalog, osImagesFromSpec } from '../../records/serviceconfig/os-images.ts';
import type { ServiceConfig } from '../../records/serviceconfig/service-config.ts';

export const RECONCILE_COMPLETED = 'ReconcileCompleted';
export const DEPLOYMENTS_HEALTHY = 'DeploymentsHealthy';

export const INVALID_NAME_MESSAGE =
  "Only one AgentServiceConfig supported per cluster and must be named 'agent'";

export function invalidNameCondition(): ConditionValue {
  return { type: RECONCILE_COMPLETED, status: 'False', reason: 'InvalidName', message: INVALID_NAME_MESSAGE };
}

/** The Warning event reason upstream records for another name. */
export function invalidNameEventReason(name: string): string {
  return `Invalid name (${name})`;
}

export function isServedName(asc: AgentServiceConfig): boolean {
  return asc.metadata.name === AGENTSERVICECONFIG_NAME;
}

/** The mirror-registry ConfigMap as read: its data, or undefined when it does not exist. */
export interface MirrorConfigMap {
  namespace: string;
  name: string;
  data: Record<string, string> | undefined;
}

export interface AscEvaluation {
  config: ServiceConfig;
  reconcileCompleted: ConditionValue;
}

export function evaluateAgentServiceConfig(
  asc: AgentServiceConfig,
  mirror: MirrorConfigMap | undefined,
): AscEvaluation {
  const imageServiceEnabled = asc.metadata.annotations?.[ENABLE_IMAGE_SERVICE_ANNOTATION] !== 'false';
  const osImages = osImagesFromSpec(asc.spec?.osImages);
  const failures: { reason: string; message: string }[] = [];
  if (!imageServiceEnabled && osImages.length > 0) {
    failures.push({
      reason: 'OSImagesShouldBeEmptyFailure',
      message: `spec.osImages must be empty when the image service is disabled (${ENABLE_IMAGE_SERVICE_ANNOTATION}: "false")`,
    });
  }
  let mirrorRegistries: MirrorRegistries | undefined;
  if (mirror) {
    const key = `${mirror.namespace}/${mirror.name}`;
    const conf = mirror.data?.['registries.conf'];
    if (!mirror.data) {
      failures.push({ reason: 'ConfigFailure', message: `mirror registry ConfigMap ${key} not found` });
    } else if (!conf) {
      failures.push({
        reason: 'ConfigFailure',
        message: `mirror registry ConfigMap ${key} has no registries.conf key`,
      });
    } else {
      const caBundle = mirror.data['ca-bundle.crt'];
      mirrorRegistries = { registriesConf: conf, ...(caBundle ? { caBundle } : {}) };
    }
  }
  const config: ServiceConfig = {
    loaded: true,
    present: true,
    imageServiceEnabled,
    osImages: new OsImageCatalog(imageServiceEnabled ? osImages : []),
    ...(mirrorRegistries ? { mirrorRegistries } : {}),
    unauthenticatedRegistries: [...(asc.spec?.unauthenticatedRegistries ?? [])],
    insecureIpxeUrls: asc.spec?.iPXEHTTPRoute === 'enabled',
  };
  const first = failures[0];
  const reconcileCompleted: ConditionValue = first
    ? {
        type: RECONCILE_COMPLETED,
        status: 'False',
        reason: first.reason,
        message: failures.map((f) => f.message).join('; '),
      }
    : {
        type: RECONCILE_COMPLETED,
        status: 'True',
        reason: 'ReconcileSucceeded',
        message: 'AgentServiceConfig reconcile completed without error.',
      };
  return { config, reconcileCompleted };
}

function imageName(os: OsImage): string {
  return `${os.openshiftVersion}/${os.cpuArchitecture}`;
}

/** DeploymentsHealthy from the server's and the base images' state. */
export function deploymentsHealthy(
  serving: boolean,
  images: readonly { os: OsImage; state: BaseImageState | undefined }[],
): ConditionValue {
  const type = DEPLOYMENTS_HEALTHY;
  const unhealthy = (message: string): ConditionValue => ({
    type,
    status: 'False',
    reason: 'DeploymentFailure',
    message,
  });
  if (!serving) return unhealthy('The assisted-service REST API and image service are not serving yet');
  const failed = images.filter((i) => i.state?.state === 'failed');
  if (failed.length > 0) {
    return unhealthy(
      `The image service cannot serve OS images: ${failed
        .map((i) => `${imageName(i.os)}: ${i.state?.state === 'failed' ? i.state.error : ''}`)
        .join('; ')}`,
    );
  }
  const pending = images.filter((i) => i.state?.state !== 'ready');
  if (pending.length > 0) {
    return unhealthy(
      `The image service is downloading OS images: ${pending.map((i) => imageName(i.os)).join(', ')}`,
    );
  }
  return {
    type,
    status: 'True',
    reason: 'DeploymentSucceeded',
    message: 'All the deployments managed by Infrastructure-operator are healthy.',
  };
}
