// Shared pieces for the runtime integration tests.
import { pino } from 'pino';
import { KubeClient } from '../../../src/runtime/client.ts';
import { Informer } from '../../../src/runtime/informer.ts';
import { Manager, type ManagerOptions } from '../../../src/runtime/manager.ts';
import { RuntimeMetrics } from '../../../src/runtime/metrics.ts';
import {
  type ApiResource,
  ConfigMapResource,
  CustomResourceDefinitionResource,
  type KubeObject,
} from '../../../src/runtime/types.ts';
import { adminKubeConfig, eventually } from '../../harness/env.ts';

/** Silent unless AIO_TEST_LOG=debug (or another level) is set. */
export const logger = pino({ level: process.env.AIO_TEST_LOG ?? 'silent' });

/** A manager for one namespace on the admin kubeconfig, without leader election; `extra` adds to it. */
export function namespaceManager(namespace: string, extra: Partial<ManagerOptions> = {}): Manager {
  return new Manager({
    kubeConfig: adminKubeConfig(),
    logger,
    metrics: new RuntimeMetrics(),
    leaderElection: false,
    namespace,
    ...extra,
  });
}

export function adminClient(): KubeClient {
  return new KubeClient({ kubeConfig: adminKubeConfig(), qps: 0 });
}

export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

export function configMap(namespace: string, name: string, data: Record<string, string> = {}): ConfigMap {
  return { metadata: { namespace, name }, data };
}

/** Records every notification an informer hands to its handlers, per object name. */
export function recordNotifications(inf: Informer) {
  const log: string[] = [];
  const perName = new Map<string, number>();
  const note = (kind: string, o: KubeObject) => {
    log.push(`${kind}:${o.metadata.name}`);
    perName.set(o.metadata.name!, (perName.get(o.metadata.name!) ?? 0) + 1);
  };
  inf.addHandler({
    onAdd: (o) => note('add', o),
    onUpdate: (_o, n) => note('update', n),
    onDelete: (o) => note('delete', o),
  });
  return { log, perName };
}

export function newInformer(
  client: KubeClient,
  namespace: string,
  opts: Partial<ConstructorParameters<typeof Informer>[0]> = {},
  resource: ApiResource = ConfigMapResource,
) {
  const metrics = new RuntimeMetrics();
  const informer = new Informer({
    client,
    resource,
    namespace,
    logger,
    metrics: metrics.watchSink('test'),
    backoff: { initialMs: 100, maxMs: 1000 },
    ...opts,
  });
  return { informer, metrics };
}

/** Waits until the informer's store holds exactly what the API server lists (names and versions). */
export async function converged(inf: Informer, admin: KubeClient, namespace: string, timeoutMs = 30_000) {
  await eventually(
    async () => {
      const live = await admin.list(inf.resource, { namespace });
      const want = live.items.map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`).sort();
      const have = inf.store
        .list()
        .map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`)
        .sort();
      return JSON.stringify(want) === JSON.stringify(have);
    },
    { timeoutMs, what: 'informer store to match the API server' },
  );
}

/**
 * Installs a namespaced test CRD `<plural>.<group>` (spec/status preserved as given, status
 * subresource on) and waits until it is served.
 */
export async function installTestCrd(admin: KubeClient, group: string, kind: string): Promise<ApiResource> {
  const plural = `${kind.toLowerCase()}s`;
  const schema = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  await admin.create(CustomResourceDefinitionResource, {
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec: schema, status: schema },
            },
          },
        },
      ],
    },
  } as KubeObject);
  const resource: ApiResource = { group, version: 'v1', kind, plural, namespaced: true };
  await eventually(
    async () => {
      const crd = await admin.get<
        KubeObject & { status?: { conditions?: { type: string; status: string }[] } }
      >(CustomResourceDefinitionResource, `${plural}.${group}`);
      const established = crd.status?.conditions?.some(
        (c) => c.type === 'Established' && c.status === 'True',
      );
      if (!established) return false;
      await admin.list(resource, { limit: 1 });
      return true;
    },
    { what: `CRD ${plural}.${group} served` },
  );
  return resource;
}

export async function deleteCrd(admin: KubeClient, resource: ApiResource): Promise<void> {
  await admin
    .delete(CustomResourceDefinitionResource, `${resource.plural}.${resource.group}`)
    .catch(() => undefined);
}
