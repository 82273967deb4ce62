// Watch mappers in a hub that keeps every cluster in one namespace: each NMStateConfig event finds
// the InfraEnvs that select it, each Agent event the BMHs booting from its MACs. A start-up maps
// every object once, so a mapper that walks the namespace makes that quadratic. Printed beside the
// walk the indexes replaced, over the same objects.
import { performance } from 'node:perf_hooks';
import type { BareMetalHost, InfraEnv } from '../src/api/index.ts';
import type { OperatorContext } from '../src/records/context.ts';
import {
  INFRAENV_BY_NMSTATE_SELECTOR_INDEX,
  infraEnvByNmStateSelector,
  nmStateSelectorOf,
} from '../src/records/indexes.ts';
import { bmhsBootingFrom } from '../src/records/metal3.ts';
import { infraEnvsSelecting } from '../src/records/views.ts';
import { matchesLabelSelector, Store } from '../src/runtime/index.ts';
import { macOf } from './fleet.ts';

const NS = 'hub';

function timed(events: number, each: (i: number) => number): { ms: number; found: number } {
  const t0 = performance.now();
  let found = 0;
  for (let i = 0; i < events; i++) found += each(i);
  return { ms: performance.now() - t0, found };
}

function figure(events: number, indexed: { ms: number; found: number }, walk: { ms: number }): string {
  const us = (ms: number) => ((ms * 1000) / events).toFixed(1);
  return `${us(indexed.ms)} µs per event indexed (${indexed.ms.toFixed(0)} ms for all), ${us(walk.ms)} µs walking the namespace (${(walk.ms / 1000).toFixed(1)} s), ${indexed.found} found`;
}

export function benchOneNamespace(line: (name: string, value: string) => void, clusters = 10_000): void {
  const infraEnvs = new Store<InfraEnv>();
  infraEnvs.addIndex(INFRAENV_BY_NMSTATE_SELECTOR_INDEX, infraEnvByNmStateSelector);
  const bmhs = new Store<BareMetalHost>();
  for (let i = 0; i < clusters; i++) {
    infraEnvs.upsert({
      metadata: { namespace: NS, name: `ie-${i}` },
      spec: { nmStateConfigLabelSelector: { matchLabels: { cluster: `sno-${i}` } } },
    } as unknown as InfraEnv);
    bmhs.upsert({
      metadata: { namespace: NS, name: `bmh-${i}` },
      spec: { bootMACAddress: macOf(i) },
    } as BareMetalHost);
  }
  const ctx = {
    informers: { infraEnvs: { store: infraEnvs } },
    mgr: { informer: () => ({ store: bmhs }) },
  } as unknown as OperatorContext;

  const labels = (i: number) => ({ cluster: `sno-${i}`, 'nmstate-label': 'static' });
  const nmIndexed = timed(clusters, (i) => infraEnvsSelecting(ctx, NS, labels(i)).length);
  const nmWalk = timed(clusters, (i) => {
    const l = labels(i);
    return infraEnvs.byNamespace(NS).filter((ie) => {
      const sel = nmStateSelectorOf(ie);
      return sel !== undefined && matchesLabelSelector(l, sel);
    }).length;
  });
  line(
    `NMStateConfig → InfraEnvs, ${clusters} of each in one namespace`,
    figure(clusters, nmIndexed, nmWalk),
  );

  const bmhIndexed = timed(clusters, (i) => bmhsBootingFrom(ctx, NS, [macOf(i).toUpperCase()]).length);
  const bmhWalk = timed(clusters, (i) => {
    const macs = new Set([macOf(i)]);
    return bmhs.byNamespace(NS).filter((b) => macs.has((b.spec.bootMACAddress ?? '').toLowerCase())).length;
  });
  line(`Agent → BareMetalHosts, ${clusters} of each in one namespace`, figure(clusters, bmhIndexed, bmhWalk));
}
