// Installer events as core/v1 Events: labels and annotations that round-trip the REST model, the
// label selector for the id filters, and the remaining filters, counts and paging.
import { describe, expect, it } from 'vitest';
import {
  apiEventOf,
  EVENT_LABEL,
  eventReason,
  eventSelector,
  fromCoreEvent,
  selectEvents,
  toCoreEvent,
} from '../../../src/records/events.ts';
import type { ApiEvent } from '../../../src/server/api/index.ts';

const HOST = '11111111-0000-4000-8000-000000000001';
const IE = '22222222-0000-4000-8000-000000000002';
const CLUSTER = '33333333-0000-4000-8000-000000000003';
const agent = {
  apiVersion: 'agent-install.openshift.io/v1beta1',
  kind: 'Agent',
  metadata: { name: HOST, namespace: 'ns', uid: 'u-1' },
};

function ev(overrides: Partial<ApiEvent> = {}): ApiEvent {
  return {
    name: 'host_status_updated',
    severity: 'info',
    category: 'user',
    message: 'Host h: updated status from discovering to known (ok)',
    event_time: '2025-06-01T12:00:00.123Z',
    host_id: HOST,
    infra_env_id: IE,
    cluster_id: CLUSTER,
    ...overrides,
  };
}

describe('core/v1 Event form', () => {
  it('round-trips the REST model through labels and annotations', () => {
    const e = ev({ request_id: 'req-1', props: '{"a":1}' });
    const core = toCoreEvent(e, agent, 'test');
    expect(core.metadata.namespace).toBe('ns');
    expect(core.metadata.labels).toMatchObject({
      [EVENT_LABEL.hostId]: HOST,
      [EVENT_LABEL.infraEnvId]: IE,
      [EVENT_LABEL.clusterId]: CLUSTER,
      [EVENT_LABEL.severity]: 'info',
    });
    expect(core.involvedObject).toMatchObject({ kind: 'Agent', name: HOST, uid: 'u-1' });
    expect(core.type).toBe('Normal');
    expect(core.reason).toBe('HostStatusUpdated');
    expect(fromCoreEvent(core)).toEqual(e);
  });

  it('marks non-info severities as Warning and ignores foreign Events', () => {
    expect(toCoreEvent(ev({ severity: 'error' }), agent, 't').type).toBe('Warning');
    expect(fromCoreEvent({ metadata: { name: 'x', labels: {} } })).toBeUndefined();
  });

  it('names reasons in CamelCase', () => {
    expect(eventReason('cluster_installation_completed')).toBe('ClusterInstallationCompleted');
    expect(eventReason(undefined)).toBe('Event');
  });

  it('turns core events into the REST model', () => {
    const api = apiEventOf(
      { name: 'n', severity: 'warning', message: 'm', host_id: HOST, infra_env_id: IE },
      new Date('2025-01-01T00:00:00Z'),
    );
    expect(api).toEqual({
      name: 'n',
      severity: 'warning',
      category: 'user',
      message: 'm',
      event_time: '2025-01-01T00:00:00.000Z',
      host_id: HOST,
      infra_env_id: IE,
    });
  });
});

describe('listing', () => {
  it('selects by ids with labels (AND), host_ids with `in`, cluster-level with `!`', () => {
    expect(eventSelector({ clusterId: CLUSTER, hostId: HOST })).toBe(
      `${EVENT_LABEL.managed}=true,${EVENT_LABEL.clusterId}=${CLUSTER},${EVENT_LABEL.hostId}=${HOST}`,
    );
    expect(eventSelector({ hostIds: [HOST, IE], clusterLevel: true })).toBe(
      `${EVENT_LABEL.managed}=true,${EVENT_LABEL.hostId} in (${HOST},${IE}),!${EVENT_LABEL.hostId}`,
    );
  });

  it('filters by category, message and severity, counts severities, orders and pages', () => {
    const all = [
      ev({ event_time: '2025-01-01T00:00:03Z', severity: 'warning', message: 'third' }),
      ev({ event_time: '2025-01-01T00:00:01Z', message: 'first' }),
      ev({ event_time: '2025-01-01T00:00:02Z', message: 'second' }),
      ev({ event_time: '2025-01-01T00:00:04Z', category: 'metrics', message: 'metric' }),
    ];
    const list = selectEvents(all, {});
    expect(list.events.map((e) => e.message)).toEqual(['first', 'second', 'third']);
    expect(list.total).toBe(3);
    expect(list.severityCounts).toEqual({ info: 2, warning: 1, error: 0, critical: 0 });
    expect(selectEvents(all, { severities: ['warning'] }).events.map((e) => e.message)).toEqual(['third']);
    expect(selectEvents(all, { order: 'descending', limit: 1 }).events.map((e) => e.message)).toEqual([
      'third',
    ]);
    expect(selectEvents(all, { offset: 1, limit: 1 }).events.map((e) => e.message)).toEqual(['second']);
    expect(selectEvents(all, { message: 'SEC' }).events.map((e) => e.message)).toEqual(['second']);
    expect(selectEvents(all, { categories: ['metrics'] }).events.map((e) => e.message)).toEqual(['metric']);
  });
});
