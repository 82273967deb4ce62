// The service-wide settings the AgentServiceConfig named `agent` carries (kubeapi.md §1.6),
// held in memory per operator process and read by the InfraEnv controller, the image service
// routes and the cluster controller (mirror registries for install manifests). Upstream writes
// these into the assisted-service ConfigMap and restarts the service; here the operator IS the
// service, so a change is published to subscribers, which re-reconcile what depends on it.
//
// `loaded` stays false until the AgentServiceConfig controller has looked at the cache once, so
// nothing computes image URLs from an empty catalog right after a restart (which would flap
// every InfraEnv's status to an error and back).
import { isDeepStrictEqual } from 'node:util';
import type { MirrorRegistries } from '../../core/ignition/index.ts';
import { perObject } from '../../util/per-object.ts';
import type { OperatorContext } from '../context.ts';
import { OsImageCatalog } from './os-images.ts';

export interface ServiceConfig {
  /** The controller has read the AgentServiceConfig (or found none) since the process started. */
  loaded: boolean;
  /** An AgentServiceConfig named `agent` exists and is not being deleted. */
  present: boolean;
  /** `agent-install.openshift.io/enable-image-service` is not "false". */
  imageServiceEnabled: boolean;
  osImages: OsImageCatalog;
  /** From `spec.mirrorRegistryRef` (ConfigMap in the operator namespace). */
  mirrorRegistries?: MirrorRegistries | undefined;
  unauthenticatedRegistries: readonly string[];
  /** `spec.iPXEHTTPRoute: enabled`: iPXE, kernel, rootfs and initrd URLs use http (kubeapi.md §5). */
  insecureIpxeUrls: boolean;
}

export const INITIAL_SERVICE_CONFIG: ServiceConfig = {
  loaded: false,
  present: false,
  imageServiceEnabled: true,
  osImages: new OsImageCatalog(),
  unauthenticatedRegistries: [],
  insecureIpxeUrls: false,
};

function comparable(c: ServiceConfig) {
  return { ...c, osImages: c.osImages.images };
}

export class ServiceConfigStore {
  private value: ServiceConfig = INITIAL_SERVICE_CONFIG;
  private readonly listeners: ((config: ServiceConfig) => void)[] = [];

  get current(): ServiceConfig {
    return this.value;
  }

  /** Replaces the config; subscribers hear about it only when something changed. */
  set(next: ServiceConfig): boolean {
    if (isDeepStrictEqual(comparable(next), comparable(this.value))) return false;
    this.value = next;
    for (const listener of this.listeners) {
      try {
        listener(next);
      } catch {
        // A failing subscriber must not keep the others from hearing about the change.
      }
    }
    return true;
  }

  onChange(listener: (config: ServiceConfig) => void): void {
    this.listeners.push(listener);
  }
}

const stores = perObject((_: OperatorContext) => new ServiceConfigStore());

/** The process-wide service config of an operator context. */
export function serviceConfigOf(ctx: OperatorContext): ServiceConfigStore {
  return stores.of(ctx);
}

/**
 * Service-wide mirror registries (registries.conf + CA bundle) for install manifests and the
 * discovery ignition; undefined when the AgentServiceConfig names none.
 */
export function mirrorRegistriesOf(ctx: OperatorContext): MirrorRegistries | undefined {
  return serviceConfigOf(ctx).current.mirrorRegistries;
}
