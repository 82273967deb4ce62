// The references a host poll reads from the cache alone (views.ts): the cached objects when every
// one is there with both labels, else undefined so the caller reads (and labels) them the slow way.
import { describe, expect, it } from 'vitest';
import type { AgentClusterInstall, ClusterDeployment, InfraEnv } from '../../../src/api/index.ts';
import { BACKUP_LABEL, WATCH_LABEL } from '../../../src/api/index.ts';
import type { OperatorContext } from '../../../src/records/context.ts';
import { cachedClusterReferences, cachedInfraEnvReferences } from '../../../src/records/views.ts';

const BOTH = { [WATCH_LABEL]: 'true', [BACKUP_LABEL]: 'true' };
const object = (name: string, labels: Record<string, string> | undefined) => ({
  metadata: { namespace: 'ns', name, ...(labels ? { labels } : {}) },
  data: {},
});

function ctxWith(secrets: ReturnType<typeof object>[], configMaps: ReturnType<typeof object>[]) {
  const getter = (list: ReturnType<typeof object>[]) => ({
    get: (ns: string, name: string) =>
      list.find((o) => o.metadata.namespace === ns && o.metadata.name === name),
  });
  return {
    informers: {
      secrets: getter(secrets),
      configMaps: getter(configMaps),
      clusterDeployments: { get: () => undefined },
      nmStateConfigs: { store: { hasIndex: () => false, byNamespace: () => [], list: () => [] } },
    },
  } as unknown as OperatorContext;
}

const cd = (pullSecret?: string) =>
  ({
    metadata: { namespace: 'ns', name: 'cd' },
    spec: pullSecret ? { pullSecretRef: { name: pullSecret } } : {},
  }) as unknown as ClusterDeployment;
const aci = (...manifests: string[]) =>
  ({
    metadata: { namespace: 'ns', name: 'aci' },
    spec: manifests.length ? { manifestsConfigMapRefs: manifests.map((name) => ({ name })) } : {},
  }) as unknown as AgentClusterInstall;

describe('cachedClusterReferences', () => {
  const labelled = object('ps', BOTH);
  const manifests = object('m1', BOTH);
  it.each([
    ['pull Secret cached with both labels', [labelled], [], cd('ps'), aci(), 'ps'],
    [
      'pull Secret without the backup label',
      [object('ps', { [WATCH_LABEL]: 'true' })],
      [],
      cd('ps'),
      aci(),
      undefined,
    ],
    ['pull Secret without labels', [object('ps', undefined)], [], cd('ps'), aci(), undefined],
    ['pull Secret not cached', [], [], cd('ps'), aci(), undefined],
    ['no pull Secret named', [], [], cd(), aci(), 'none'],
    ['manifests ConfigMap cached, labelled', [labelled], [manifests], cd('ps'), aci('m1'), 'ps+m1'],
    ['manifests ConfigMap not cached', [labelled], [], cd('ps'), aci('m1'), undefined],
  ] as const)('%s', (_name, secrets, configMaps, theCd, theAci, expected) => {
    const got = cachedClusterReferences(ctxWith([...secrets], [...configMaps]), theCd, theAci);
    if (expected === undefined) return expect(got).toBeUndefined();
    expect(got?.pullSecret?.metadata.name ?? 'none').toBe(expected.split('+')[0]);
    expect(got?.manifests.map((m) => m.name)).toEqual(expected.includes('+') ? ['m1'] : []);
    if (got?.pullSecret) expect(got.pullSecret).toBe(secrets[0]);
  });
});

describe('cachedInfraEnvReferences', () => {
  const ie = (pullSecret?: string) =>
    ({
      metadata: { namespace: 'ns', name: 'ie' },
      spec: pullSecret ? { pullSecretRef: { name: pullSecret } } : {},
    }) as unknown as InfraEnv;
  it('answers with the labelled cached Secret, and not for one without the labels', () => {
    const labelled = object('ps', BOTH);
    expect(cachedInfraEnvReferences(ctxWith([labelled], []), ie('ps'))?.pullSecret).toBe(labelled);
    expect(cachedInfraEnvReferences(ctxWith([object('ps', undefined)], []), ie('ps'))).toBeUndefined();
    expect(cachedInfraEnvReferences(ctxWith([], []), ie())).toEqual({
      cd: undefined,
      pullSecret: undefined,
      nmStateConfigs: [],
    });
  });
});
