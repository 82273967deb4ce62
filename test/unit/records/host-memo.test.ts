// A cluster pass reads every host of the cluster; the records are shared between passes as long as
// the Agent object and the host's facts object are the same, and rebuilt when either changes.
import { describe, expect, it } from 'vitest';
import {
  CompactConnectivityReport,
  connectivityReader,
} from '../../../src/core/network/connectivity-report.ts';
import {
  cachedAgentToHost,
  type HostRuntimeFacts,
  memoisedHost,
  NO_FACTS,
} from '../../../src/records/agent.ts';
import { HostFactsStore } from '../../../src/records/facts.ts';
import { boundAgent } from './fixtures.ts';

describe('host records shared between cluster passes', () => {
  it('facts are replaced on a change, never edited in place, and kept on a no-op', () => {
    const store = new HostFactsStore();
    expect(store.update('h', { checked_in_at: '2026-11-27T10:00:00Z' })).toBe(true);
    const first = store.get('h');
    expect(store.update('h', { checked_in_at: '2026-11-27T10:00:00Z' })).toBe(false);
    expect(store.get('h')).toBe(first);
    expect(store.update('h', { timestamp: 5 })).toBe(true);
    const second = store.get('h');
    expect(second).not.toBe(first);
    expect(first).toEqual({ checked_in_at: '2026-11-27T10:00:00Z' });
    expect(second).toEqual({ checked_in_at: '2026-11-27T10:00:00Z', timestamp: 5 });
  });

  it('a poll moves the clock in place; get() shows it, the same object until the next change', () => {
    const store = new HostFactsStore();
    const at = Date.parse('2026-11-27T10:00:00.123Z');
    store.update('h', { ignition_endpoint_token_set: true });
    const steady = store.steady('h');
    expect(store.knowsHostClock('h')).toBe(false);
    store.checkIn('h', at, 1_795_000_000);
    const first = store.get('h');
    expect(first).toEqual({
      ignition_endpoint_token_set: true,
      checked_in_at: '2026-11-27T10:00:00.123Z',
      timestamp: 1_795_000_000,
    });
    expect(store.get('h')).toBe(first);
    expect(store.knowsHostClock('h')).toBe(true);
    const mark = store.changeMark;
    // A poll without the host's clock keeps the one it told before.
    store.checkIn('h', at + 10_000);
    const second = store.get('h');
    expect(second).not.toBe(first);
    expect(second).toEqual({
      ignition_endpoint_token_set: true,
      checked_in_at: '2026-11-27T10:00:10.123Z',
      timestamp: 1_795_000_000,
    });
    expect(first?.checked_in_at).toBe('2026-11-27T10:00:00.123Z');
    expect(store.changedSince(mark)).toEqual(['h']);
    // The same instant again is no change.
    store.checkIn('h', at + 10_000);
    expect(store.get('h')).toBe(second);
    expect(store.changedSince(mark)).toEqual(['h']);
    expect(store.steady('h')).toBe(steady);
    // A step result after polls keeps the clock; a cleared clock is gone.
    store.update('h', { ignition_endpoint_token_set: false });
    expect(store.get('h')).toMatchObject({
      checked_in_at: '2026-11-27T10:00:10.123Z',
      timestamp: 1_795_000_000,
    });
    store.update('h', { timestamp: undefined });
    expect(store.knowsHostClock('h')).toBe(false);
    store.checkIn('h', at + 20_000);
    expect(store.get('h')?.timestamp).toBeUndefined();
    expect(store.has('h')).toBe(true);
    store.delete('h');
    expect(store.has('h')).toBe(false);
    expect(store.get('h')).toBeUndefined();
  });

  // name, updates after a first { checked_in_at, ignition_endpoint_token_set }, whether steady() is a new object
  it.each<[string, HostRuntimeFacts[], boolean]>([
    ['polls move only the clock', [{ checked_in_at: 't2' }, { checked_in_at: 't3', timestamp: 9 }], false],
    ['a step result changes', [{ checked_in_at: 't2', ignition_endpoint_token_set: true }], true],
    ['a fact is cleared', [{ ignition_endpoint_token_set: undefined }], true],
  ])(
    'the facts less the clock stay the same object while only the clock moves: %s',
    (_n, updates, renewed) => {
      const store = new HostFactsStore();
      store.update('h', { checked_in_at: 't1', ignition_endpoint_token_set: false });
      const first = store.steady('h');
      expect(first).toEqual({ ignition_endpoint_token_set: false });
      for (const u of updates) store.update('h', u);
      const after = store.steady('h');
      expect(after === first).toBe(!renewed);
      const { checked_in_at: _c, timestamp: _t, ...rest } = store.get('h') ?? {};
      expect(after).toEqual(rest);
    },
  );

  it('a poll record of the same Agent is the same object while only the clock moves', () => {
    const store = new HostFactsStore();
    const agent = boundAgent('h', 'master');
    store.update('h', { checked_in_at: 't1' });
    const before = cachedAgentToHost(agent, store.steady('h'));
    store.update('h', { checked_in_at: 't2', timestamp: 7 });
    expect(cachedAgentToHost(agent, store.steady('h'))).toBe(before);
  });

  it('a new but equal report is no change; one differing deep inside is', () => {
    const store = new HostFactsStore();
    const report = (rtt: number) => ({
      remote_hosts: [
        {
          host_id: 'b',
          l3_connectivity: [{ remote_ip_address: '10.0.0.2', successful: true, average_rtt_ms: rtt }],
        },
      ],
    });
    expect(store.update('a', { connectivity: report(0.5) })).toBe(true);
    const kept = store.get('a');
    // Stored compact, with its strings shared with other reports', and serialising as sent.
    expect(kept?.connectivity).toBeInstanceOf(CompactConnectivityReport);
    expect(JSON.stringify(kept?.connectivity)).toBe(JSON.stringify(report(0.5)));
    expect(store.update('a', { connectivity: report(0.5) })).toBe(false);
    expect(store.get('a')).toBe(kept);
    expect(store.update('a', { connectivity: report(0.6) })).toBe(true);
    expect(connectivityReader(store.get('a')?.connectivity ?? {}).l3AverageRttMs(0, 0)).toBe(0.6);
    expect(store.update('a', { connectivity: undefined })).toBe(true);
    expect(store.update('a', { connectivity: undefined })).toBe(false);
  });

  it('knows the hosts whose connectivity report names a host: set, emptied, cleared, deleted', () => {
    const store = new HostFactsStore();
    const report = (ids: string[]) => ({
      connectivity: { remote_hosts: ids.map((host_id) => ({ host_id })) },
    });
    store.update('a', report(['b']));
    store.update('b', report([]));
    store.update('c', { timestamp: 1 });
    expect([...store.reporters]).toEqual(['a']);
    store.update('b', report(['a']));
    store.update('a', report([]));
    expect([...store.reporters]).toEqual(['b']);
    store.update('b', { connectivity: undefined });
    expect([...store.reporters]).toEqual([]);
    store.update('c', report(['a']));
    store.delete('c');
    expect([...store.reporters]).toEqual([]);
  });

  it('tells which hosts changed since a mark, until too many changes have passed', () => {
    const store = new HostFactsStore();
    const mark = store.changeMark;
    store.update('a', { timestamp: 1 });
    store.update('a', { timestamp: 1 }); // no change
    store.update('b', { timestamp: 1 });
    store.delete('a');
    store.delete('never-seen');
    expect(store.changedSince(mark)).toEqual(['a', 'b', 'a']);
    expect(store.changedSince(store.changeMark)).toEqual([]);
    expect(store.changedSince(store.changeMark + 1)).toBeUndefined();
    const before = store.changeMark;
    for (let i = 0; i < 4096; i++) store.update('c', { timestamp: i + 10 });
    expect(store.changedSince(before)).toHaveLength(4096);
    store.update('d', { timestamp: 1 });
    expect(store.changedSince(before)).toBeUndefined();
  });

  it('one record per Agent and facts object, rebuilt when the facts change', () => {
    const store = new HostFactsStore();
    const agent = boundAgent('h', 'master');
    store.update('h', { checked_in_at: '2026-11-27T10:00:00Z' });
    const a = cachedAgentToHost(agent, store.get('h'));
    expect(cachedAgentToHost(agent, store.get('h'))).toBe(a);
    expect(a.checked_in_at).toBe('2026-11-27T10:00:00Z');
    store.update('h', { checked_in_at: '2026-11-27T10:01:00Z' });
    const b = cachedAgentToHost(agent, store.get('h'));
    expect(b).not.toBe(a);
    expect(b.checked_in_at).toBe('2026-11-27T10:01:00Z');
    expect(a.checked_in_at).toBe('2026-11-27T10:00:00Z');
  });

  it('a shared record cannot be changed by a reader', () => {
    const host = cachedAgentToHost(boundAgent('h', 'master'), NO_FACTS);
    expect(Object.isFrozen(host)).toBe(true);
    expect(() => {
      (host as { status?: string }).status = 'known';
    }).toThrow(TypeError);
  });

  it('a new Agent object gets a new record', () => {
    const agent = boundAgent('h', 'master');
    const copy = structuredClone(agent);
    expect(cachedAgentToHost(copy)).not.toBe(cachedAgentToHost(agent));
    expect(memoisedHost(agent)).toBe(memoisedHost(agent));
  });

  // As a WeakMap entry the record was an ephemeron, left to the full collection's pause (bench/memo-gc.ts).
  it('the record is held by the Agent object itself, unseen by its JSON and keys', () => {
    const agent = boundAgent('h', 'master');
    const json = JSON.stringify(agent);
    const keys = Object.keys(agent);
    const host = cachedAgentToHost(agent);
    expect(Object.getOwnPropertySymbols(agent)).toHaveLength(1);
    expect(JSON.stringify(agent)).toBe(json);
    expect(Object.keys(agent)).toEqual(keys);
    expect(cachedAgentToHost(agent)).toBe(host);
  });
});
