// An Event write whose answer is lost after the API server stored it is sent again under the same
// name, and the real API server's AlreadyExists then counts as stored: one Event, nothing dropped,
// no warning. Both writers (the controllers' recorder and the installer events' writer), through an
// HTTP/2 proxy that resets the stream where the answer would be.
import { afterEach, describe, expect, it } from 'vitest';
import type { InfraEnv } from '../../../src/api/index.ts';
import type { OperatorContext } from '../../../src/records/context.ts';
import { OperatorEvents } from '../../../src/records/events.ts';
import { KubeClient } from '../../../src/runtime/client.ts';
import { EventRecorder } from '../../../src/runtime/events.ts';
import { RuntimeMetrics } from '../../../src/runtime/metrics.ts';
import { ConfigMapResource, EventResource, type KubeObject } from '../../../src/runtime/types.ts';
import { adminKubeConfig, newNamespace } from '../../harness/env.ts';
import { capturingLogger } from '../../harness/log-capture.ts';
import { H2FaultProxy } from './h2-fault-proxy.ts';
import { adminClient, configMap } from './helpers.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c().catch(() => undefined);
});

interface StoredEvent extends KubeObject {
  message?: string;
  count?: number;
}

async function setup() {
  const proxy = await H2FaultProxy.start(adminKubeConfig());
  const metrics = new RuntimeMetrics();
  const client = new KubeClient({ kubeConfig: proxy.kubeConfig(), metrics: metrics.clientSink() });
  const admin = adminClient();
  const namespace = await newNamespace('rt-evretry');
  const { logger, lines } = capturingLogger();
  cleanups.push(
    () => client.close(),
    () => admin.close(),
    () => proxy.close(),
  );
  return { proxy, metrics, client, admin, namespace, lines, logger };
}

async function droppedBy(metrics: RuntimeMetrics): Promise<Record<string, number>> {
  const { values } = await metrics.eventsDropped.get();
  return Object.fromEntries(values.map((v) => [String(v.labels.reason), v.value]));
}

async function eventsAbout(admin: KubeClient, namespace: string, name: string): Promise<StoredEvent[]> {
  const list = await admin.list<StoredEvent>(EventResource, {
    namespace,
    fieldSelector: `involvedObject.name=${name}`,
  });
  return list.items;
}

/** The proxy's log of Event creates: the status the API server gave each. */
function eventPosts(proxy: H2FaultProxy): number[] {
  return proxy.requests.filter((r) => r.method === 'POST' && r.path.includes('/events')).map((r) => r.status);
}

describe('an Event write whose answer was lost', () => {
  it('the recorder sends it again and takes AlreadyExists as stored; a repeat aggregates', async () => {
    const s = await setup();
    const cm = await s.admin.create(ConfigMapResource, configMap(s.namespace, 'involved'));
    const recorder = new EventRecorder({
      client: s.client,
      component: 'test',
      logger: s.logger,
      metrics: s.metrics,
      retryDelaysMs: [100, 200],
    });
    s.proxy.loseAnswers(1, 'POST', '/events');
    recorder.event(cm, 'Normal', 'Tested', 'the first answer is lost');
    await recorder.flush();
    expect(eventPosts(s.proxy)).toEqual([201, 409]);
    let stored = await eventsAbout(s.admin, s.namespace, 'involved');
    expect(stored.map((e) => [e.message, e.count])).toEqual([['the first answer is lost', 1]]);
    expect(await droppedBy(s.metrics)).toEqual({});
    expect(s.lines.filter((l) => l.msg === 'could not record event')).toEqual([]);
    // Recorded under its name: the same event again bumps that Event's count.
    recorder.event(cm, 'Normal', 'Tested', 'the first answer is lost');
    await recorder.flush();
    stored = await eventsAbout(s.admin, s.namespace, 'involved');
    expect(stored.map((e) => e.count)).toEqual([2]);
  });

  it('the installer events writer sends it again and takes AlreadyExists as stored', async () => {
    const s = await setup();
    const ieId = '22222222-0000-4000-8000-0000000000e1';
    const infraEnv = {
      apiVersion: 'agent-install.openshift.io/v1beta1',
      kind: 'InfraEnv',
      metadata: { name: 'site', namespace: s.namespace, uid: ieId },
    } as InfraEnv;
    const ctx = {
      logger: s.logger,
      client: s.client,
      mgr: { metrics: s.metrics },
      infraEnvById: (id: string) => (id === ieId ? infraEnv : undefined),
      clusterDeploymentById: () => undefined,
    } as unknown as OperatorContext;
    const events = new OperatorEvents(ctx, { retryDelaysMs: [100, 200] });
    s.proxy.loseAnswers(1, 'POST', '/events');
    events.record({
      name: 'image_info_updated',
      severity: 'info',
      category: 'user',
      message: 'Updated image information',
      event_time: new Date().toISOString(),
      infra_env_id: ieId,
    });
    await events.flush();
    expect(eventPosts(s.proxy)).toEqual([201, 409]);
    const stored = await eventsAbout(s.admin, s.namespace, 'site');
    expect(stored.map((e) => e.message)).toEqual(['Updated image information']);
    expect(events.dropped).toBe(0);
    expect(await droppedBy(s.metrics)).toEqual({});
    expect(s.lines.filter((l) => l.msg === 'could not record event')).toEqual([]);
  });
});
