// Which NMStateConfigs an InfraEnv selects and which InfraEnvs an NMStateConfig's event wakes, both
// through indexes: the same answers as testing every InfraEnv of the namespace against every
// config, and an empty selector (`matchLabels: {}` included) selects nothing (kubeapi.md §7.20).
import { describe, expect, it } from 'vitest';
import type { InfraEnv, NMStateConfig } from '../../../src/api/index.ts';
import type { OperatorContext } from '../../../src/records/context.ts';
import {
  INFRAENV_BY_NMSTATE_SELECTOR_INDEX,
  infraEnvByNmStateSelector,
  nmStateSelectorOf,
} from '../../../src/records/indexes.ts';
import { infraEnvsSelecting, infraEnvView, selectedNmStateConfigs } from '../../../src/records/views.ts';
import {
  indexByLabelPairs,
  LABEL_PAIRS_INDEX,
  type LabelSelector,
  matchesLabelSelector,
  Store,
} from '../../../src/runtime/index.ts';

function infraEnv(ns: string, name: string, selector?: LabelSelector): InfraEnv {
  return {
    metadata: { namespace: ns, name, uid: `${ns}-${name}` },
    spec: { ...(selector ? { nmStateConfigLabelSelector: selector } : {}) },
  } as unknown as InfraEnv;
}

function nmState(ns: string, name: string, labels: Record<string, string>, mac = '52:54:00:00:00:01') {
  return {
    metadata: { namespace: ns, name, labels },
    spec: {
      interfaces: [{ name: 'eth0', macAddress: mac }],
      config: { interfaces: [{ name: 'eth0', type: 'ethernet', state: 'up' }] },
    },
  } as unknown as NMStateConfig;
}

function world(infraEnvs: InfraEnv[], configs: NMStateConfig[]) {
  const ies = new Store<InfraEnv>();
  ies.addIndex(INFRAENV_BY_NMSTATE_SELECTOR_INDEX, infraEnvByNmStateSelector);
  const nms = new Store<NMStateConfig>();
  nms.addIndex(LABEL_PAIRS_INDEX, indexByLabelPairs);
  for (const ie of infraEnvs) ies.upsert(ie);
  for (const nm of configs) nms.upsert(nm);
  const ctx = {
    informers: {
      infraEnvs: { store: ies },
      nmStateConfigs: { store: nms },
      clusterDeployments: { get: () => undefined },
    },
  } as unknown as OperatorContext;
  return { ctx, ies, nms };
}

/** What the indexes must answer: every InfraEnv of the namespace tested against the labels. */
function bruteForce(ies: InfraEnv[], ns: string, labels: Record<string, string>): string[] {
  return ies
    .filter((ie) => {
      const sel = nmStateSelectorOf(ie);
      return ie.metadata.namespace === ns && sel !== undefined && matchesLabelSelector(labels, sel);
    })
    .map((ie) => ie.metadata.name ?? '')
    .sort();
}

/** A small deterministic generator, so a failure names its seed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function randomSelector(r: () => number): LabelSelector | undefined {
  const kind = Math.floor(r() * 5);
  const pick = (keys: string[]) => keys.filter(() => r() < 0.5);
  if (kind === 0) return undefined;
  if (kind === 1) return { matchLabels: {} };
  const matchLabels = Object.fromEntries(pick(['a', 'b', 'c']).map((k) => [k, String(Math.floor(r() * 2))]));
  const matchExpressions =
    kind === 4 ? [{ key: pick(['a', 'b', 'c'])[0] ?? 'd', operator: 'Exists' as const }] : undefined;
  return { matchLabels, ...(matchExpressions ? { matchExpressions } : {}) };
}

describe('NMStateConfig selection', () => {
  it('an empty selector, matchLabels: {} included, selects no config for the infra-env record', async () => {
    const ie = infraEnv('ns', 'empty', { matchLabels: {} });
    const { ctx } = world([ie], [nmState('ns', 'cfg', { set: 'x' })]);
    expect(selectedNmStateConfigs(ctx, ie)).toEqual([]);
    // The record hosts' steps read (installer arguments, discovery): no static network either.
    expect((await infraEnvView(ctx, ie)).static_network_config ?? []).toEqual([]);
    expect(infraEnvsSelecting(ctx, 'ns', { set: 'x' })).toEqual([]);
  });

  it('a selector picks the configs of its own namespace that carry its labels', async () => {
    const ie = infraEnv('ns', 'pair', { matchLabels: { set: 'pair' } });
    const { ctx } = world(
      [ie],
      [
        nmState('ns', 'in', { set: 'pair', extra: 'y' }),
        nmState('ns', 'other', { set: 'nope' }),
        nmState('elsewhere', 'in', { set: 'pair' }),
      ],
    );
    expect(selectedNmStateConfigs(ctx, ie).map((n) => `${n.metadata.namespace}/${n.metadata.name}`)).toEqual([
      'ns/in',
    ]);
    expect((await infraEnvView(ctx, ie)).static_network_config).toHaveLength(1);
  });

  it('infraEnvsSelecting answers as testing every InfraEnv would (seeded, 400 worlds)', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const r = rng(seed);
      const ies = Array.from({ length: 12 }, (_, i) =>
        infraEnv(r() < 0.8 ? 'ns' : 'other', `ie-${i}`, randomSelector(r)),
      );
      const { ctx } = world(ies, []);
      const labels = Object.fromEntries(
        ['a', 'b', 'c', 'd'].filter(() => r() < 0.6).map((k) => [k, String(Math.floor(r() * 2))]),
      );
      const got = infraEnvsSelecting(ctx, 'ns', labels)
        .map((ie) => ie.metadata.name ?? '')
        .sort();
      expect(got, `seed ${seed}, labels ${JSON.stringify(labels)}`).toEqual(bruteForce(ies, 'ns', labels));
    }
  });

  it('follows an InfraEnv whose selector changes', () => {
    const before = infraEnv('ns', 'ie', { matchLabels: { set: 'a' } });
    const { ctx, ies } = world([before], []);
    expect(infraEnvsSelecting(ctx, 'ns', { set: 'a' })).toHaveLength(1);
    ies.upsert(infraEnv('ns', 'ie', { matchLabels: { set: 'b' } }));
    expect(infraEnvsSelecting(ctx, 'ns', { set: 'a' })).toEqual([]);
    expect(infraEnvsSelecting(ctx, 'ns', { set: 'b' })).toHaveLength(1);
  });
});
