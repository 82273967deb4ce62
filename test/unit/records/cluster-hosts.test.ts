// A cluster's hosts, kept between builds per ClusterDeployment object (src/records/cluster-hosts.ts):
// whatever changes between two builds, the list is the one a plain build gives.
import { describe, expect, it } from 'vitest';
import type { Agent, ClusterDeployment } from '../../../src/api/index.ts';
import { hostnameIdsOf } from '../../../src/core/validations/index.ts';
import { clusterHosts } from '../../../src/records/cluster-hosts.ts';
import { HostFactsStore } from '../../../src/records/facts.ts';
import { type AgentHost, agentToHost, type HostRuntimeFacts } from '../../../src/records/index.ts';
import { seededUint32 } from '../../../src/sim/prng.ts';
import { agent, CLUSTER_ID, clusterDeployment } from './fixtures.ts';

const OTHER = '2b0c1a3e-0000-4000-8000-00000000000f';

/**
 * An Agent `name`, bound to `cluster` (or not), with a requested hostname to tell versions apart
 * and, when `inventoryHostname` is given, an inventory.
 */
function bound(
  name: string,
  cluster: string | undefined,
  hostname = `${name}-0`,
  inventoryHostname?: string,
): Agent {
  const a = agent({ metadata: { name, namespace: 'spoke' } });
  return {
    ...a,
    status: {
      backend: {
        requestedHostname: hostname,
        ...(cluster ? { clusterID: cluster } : {}),
        ...(inventoryHostname !== undefined ? { inventoryExtra: {} } : {}),
      },
      ...(inventoryHostname !== undefined ? { inventory: { hostname: inventoryHostname } } : {}),
    },
  } as Agent;
}

/** Each counted hostname's ids, as sets: what hostname-unique reads of a list. */
function namesOf(hosts: readonly AgentHost[]): Record<string, string[]> {
  const ids = hostnameIdsOf(hosts);
  return Object.fromEntries([...ids].map(([n, list]) => [n, [...new Set(list)].sort()]));
}

/** What the record's hosts are, built from nothing: bound Agents as hosts, ordered by id. */
function plain(agents: readonly Agent[], facts: Map<string, HostRuntimeFacts>): AgentHost[] {
  return agents
    .map((a) => agentToHost(a, facts.get(a.metadata.name ?? '') ?? {}))
    .filter((h) => h.cluster_id === CLUSTER_ID)
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

describe('clusterHosts', () => {
  it('lists the bound Agents as hosts ordered by id, the same frozen array until one changes', () => {
    const cd = clusterDeployment() as ClusterDeployment;
    const agents = [bound('c', CLUSTER_ID), bound('a', CLUSTER_ID), bound('b', OTHER), bound('d', undefined)];
    const first = clusterHosts(cd, CLUSTER_ID, agents, undefined);
    expect(first.map((h) => h.id)).toEqual(['a', 'c']);
    expect(Object.isFrozen(first)).toBe(true);
    expect(clusterHosts(cd, CLUSTER_ID, [...agents], undefined)).toBe(first);
    const facts = new Map([['a', { checked_in_at: '2026-01-01T00:00:00Z' }]]);
    const changed = clusterHosts(cd, CLUSTER_ID, agents, facts);
    expect(changed).not.toBe(first);
    expect(changed).toEqual(plain(agents, facts));
    // The caller's array is copied, not kept: changing it does not change the next list.
    const mine = [...agents];
    expect(clusterHosts(cd, CLUSTER_ID, mine, facts)).toBe(changed);
    mine[0] = bound('e', CLUSTER_ID);
    expect(clusterHosts(cd, CLUSTER_ID, agents, facts)).toBe(changed);
  });

  it('redoes only the host whose Agent or facts changed', () => {
    const cd = clusterDeployment() as ClusterDeployment;
    const agents = ['a', 'b', 'c'].map((n) => bound(n, CLUSTER_ID));
    const facts = new Map<string, HostRuntimeFacts>();
    const before = clusterHosts(cd, CLUSTER_ID, agents, facts);
    agents[1] = bound('b', CLUSTER_ID, 'renamed');
    facts.set('c', { checked_in_at: '2025-03-01T09:59:00.000Z' });
    const after = clusterHosts(cd, CLUSTER_ID, agents, facts);
    expect(after[0]).toBe(before[0]);
    expect(after[1]?.requested_hostname).toBe('renamed');
    expect(after[2]?.checked_in_at).toBe('2025-03-01T09:59:00.000Z');
  });

  it("reads a small cluster's facts directly once the fleet changed more facts than it has hosts", () => {
    const cd = clusterDeployment() as ClusterDeployment;
    const store = new HostFactsStore();
    const agents = [bound('a', CLUSTER_ID)];
    clusterHosts(cd, CLUSTER_ID, agents, store);
    let asked = 0;
    const reader = Object.assign(Object.create(store) as HostFactsStore, {
      changedSince: (mark: number) => {
        asked++;
        return store.changedSince(mark);
      },
    });
    clusterHosts(cd, CLUSTER_ID, agents, reader); // another reader: read directly, kept from now on
    store.update('a', { timestamp: 1 });
    expect(clusterHosts(cd, CLUSTER_ID, agents, reader)[0]?.timestamp).toBe(1);
    expect(asked).toBe(1);
    for (let i = 0; i < 100; i++) store.update(`other-${i}`, { timestamp: i });
    store.update('a', { timestamp: 2 });
    expect(clusterHosts(cd, CLUSTER_ID, agents, reader)[0]?.timestamp).toBe(2);
    expect(asked).toBe(1);
  });

  it.each([
    ['a map', () => new Map<string, HostRuntimeFacts>()],
    ['the facts store, which tells what changed', () => new HostFactsStore()],
  ] as const)(
    'property: a seeded run of joins, leaves, renames, rebinds and fact changes, facts from %s, matches a plain build',
    (_what, newFacts) => {
      const seed = 20261127;
      const next = seededUint32(seed);
      const cd = clusterDeployment() as ClusterDeployment;
      let agents: Agent[] = [];
      const facts = newFacts();
      const plainFacts = new Map<string, HostRuntimeFacts>();
      const setFacts = (name: string, value: HostRuntimeFacts | undefined) => {
        if (facts instanceof HostFactsStore) {
          if (value) facts.update(name, value);
          else facts.delete(name);
        } else if (value) facts.set(name, { ...facts.get(name), ...value });
        else facts.delete(name);
        if (value) plainFacts.set(name, { ...plainFacts.get(name), ...value });
        else plainFacts.delete(name);
      };
      let counted = 0;
      for (let step = 0; step < 1500; step++) {
        const name = `h${next() % 40}`;
        const at = agents.findIndex((a) => a.metadata.name === name);
        const cluster = next() % 4 === 0 ? OTHER : next() % 6 === 0 ? undefined : CLUSTER_ID;
        switch (next() % 10) {
          case 0: // join at the end or leave
            if (at < 0) agents.push(bound(name, cluster));
            else agents = agents.filter((_, i) => i !== at);
            break;
          case 1: // a new version of the Agent, maybe bound elsewhere
            if (at >= 0) agents[at] = bound(name, cluster, `${name}-${step}`);
            break;
          case 2: // facts changed or forgotten
            setFacts(
              name,
              next() % 5 === 0
                ? undefined
                : { checked_in_at: new Date(Date.UTC(2025, 2, 1, 0, 0, step)).toISOString() },
            );
            break;
          case 3: // the list in another order
            agents = agents.reverse();
            break;
          case 4: // another Agent in the same place
            if (at >= 0) {
              const other = `h${40 + (next() % 40)}`;
              agents[at] =
                next() % 2 === 0 ? bound(other, cluster) : bound(other, cluster, '', `dup-${next() % 5}`);
            }
            break;
          case 8: // an inventory arrives or its hostname changes; requested hostnames often clash
            if (at >= 0) {
              const requested = next() % 2 === 0 ? `dup-${next() % 5}` : '';
              agents[at] = bound(name, cluster, requested, `dup-${next() % 5}`);
            }
            break;
          case 5: // several join at once
            for (let k = next() % 4; k > 0; k--) {
              const n = `h${next() % 80}`;
              if (!agents.some((a) => a.metadata.name === n)) agents.push(bound(n, cluster));
            }
            break;
          case 6: // many facts change between two builds
            for (let k = next() % 50; k > 0; k--) setFacts(`h${next() % 80}`, { timestamp: step * 100 + k });
            break;
          case 7: // a wave of new Agents at once, or the wave gone again
            if (agents.some((a) => a.metadata.name?.startsWith('w'))) {
              agents = agents.filter((a) => !a.metadata.name?.startsWith('w'));
            } else {
              for (let k = 60 + (next() % 20); k > 0; k--) agents.push(bound(`w${step}-${k}`, cluster));
            }
            break;
          default: // nothing changed
            break;
        }
        const list = clusterHosts(cd, CLUSTER_ID, agents, facts);
        counted += Object.keys(namesOf(list)).length;
        const expected = plain(agents, plainFacts);
        expect(list, `seed ${seed} step ${step}`).toEqual(expected);
        // The hostname index kept with the list (remembered for this very array) is the one a
        // build from the plain list gives.
        expect(namesOf(list), `seed ${seed} step ${step}`).toEqual(namesOf(expected));
      }
      // The run did count hostnames (about 3 of 5 names in use at each step).
      expect(counted).toBeGreaterThan(1500);
    },
  );
});
