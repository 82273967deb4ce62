// Host → Agent status with signed URLs: bound hosts get events/logs URLs signed for their kind,
// stored URLs are kept until their token is due, and other writers keep the SpecSynced verdict.
import { describe, expect, it } from 'vitest';
import { LocalAuth, MemoryKeyStore } from '../../../../src/auth/index.ts';
import {
  currentSpecSyncError,
  projectAgentStatus,
  urlReissueAt,
} from '../../../../src/records/agents/project.ts';
import type { AgentHost } from '../../../../src/records/index.ts';
import { agent, CLUSTER_ID, HOST_ID, INFRA_ENV_ID, NOW } from '../../controllers/agent/fixtures.ts';

async function auth(now = NOW) {
  return LocalAuth.create({
    keyStore: new MemoryKeyStore(),
    resolver: { exists: async () => true, covers: async () => true },
    events: { authFailure: () => {} },
    now: () => now,
  });
}

const bound: AgentHost = {
  id: HOST_ID,
  infra_env_id: INFRA_ENV_ID,
  cluster_id: CLUSTER_ID,
  kind: 'Host',
  status: 'known',
  status_info: 'Host is ready to be installed',
  role: 'auto-assign',
  approved: true,
  logs_collected_at: NOW.toISOString(),
};

describe('projectAgentStatus', () => {
  it('signs the events and logs URLs of a bound host with tokens of their kind', async () => {
    const a = await auth();
    const status = projectAgentStatus(agent(), bound, {
      now: NOW,
      serviceBaseUrl: 'http://svc:8090',
      auth: a,
      specSyncError: undefined,
    });
    const events = new URL(status.debugInfo?.eventsURL ?? '');
    expect(events.pathname).toBe('/api/assisted-install/v2/events');
    expect(events.searchParams.get('host_id')).toBe(HOST_ID);
    const logs = new URL(status.debugInfo?.logsURL ?? '');
    expect(logs.pathname).toBe(`/api/assisted-install/v2/clusters/${CLUSTER_ID}/logs`);
    const token = events.searchParams.get('api_key') ?? '';
    const ok = await a.authenticate({
      method: 'GET',
      path: events.pathname,
      urlToken: token,
      accepts: { url: ['events'] },
      target: { hostId: HOST_ID },
    });
    expect(ok.ok).toBe(true);
    const wrongKind = await a.authenticate({
      method: 'GET',
      path: logs.pathname,
      urlToken: token,
      accepts: { url: ['cluster-logs'] },
      target: { clusterId: CLUSTER_ID },
    });
    expect(wrongKind.ok).toBe(false);
  });

  it('keeps stored URLs until their token is due for re-issue', async () => {
    const a = await auth();
    const ctx = { now: NOW, serviceBaseUrl: 'http://svc:8090', auth: a, specSyncError: undefined };
    const first = projectAgentStatus(agent(), bound, ctx);
    const stored = { ...agent(), status: first };
    expect(projectAgentStatus(stored, bound, ctx).debugInfo).toEqual(first.debugInfo);
    const due = urlReissueAt(a, first.debugInfo?.eventsURL);
    expect(due).toBeInstanceOf(Date);
    const later = new Date((due as Date).getTime() + 1000);
    const reissued = projectAgentStatus(stored, bound, { ...ctx, now: later });
    expect(reissued.debugInfo?.eventsURL).not.toBe(first.debugInfo?.eventsURL);
  });

  it('signs no logs URL before logs were collected, and nothing again for a stored events URL', async () => {
    const a = await auth();
    const kinds: string[] = [];
    const issue = a.issueUrlToken.bind(a);
    a.issueUrlToken = (kind, ...rest) => {
      kinds.push(kind);
      return issue(kind, ...rest);
    };
    const ctx = { now: NOW, serviceBaseUrl: 'http://svc:8090', auth: a, specSyncError: undefined };
    const { logs_collected_at: _none, ...noLogs } = bound;
    const first = projectAgentStatus(agent(), noLogs, ctx);
    expect(first.debugInfo?.logsURL).toBeUndefined();
    expect(kinds).toEqual(['events']);
    projectAgentStatus({ ...agent(), status: first }, noLogs, ctx);
    expect(kinds).toEqual(['events']);
  });

  it('writes no URLs for an unbound host', async () => {
    const status = projectAgentStatus(
      agent(),
      { ...bound, cluster_id: null },
      {
        now: NOW,
        serviceBaseUrl: 'http://svc:8090',
        auth: await auth(),
        specSyncError: undefined,
      },
    );
    expect(status.debugInfo?.eventsURL).toBeUndefined();
  });
});

describe('currentSpecSyncError', () => {
  it('reads the error back from the SpecSynced condition', () => {
    const a = agent();
    const status = projectAgentStatus(a, bound, {
      now: NOW,
      serviceBaseUrl: 'http://svc',
      auth: undefined,
      specSyncError: { kind: 'input', message: 'bad args' },
    });
    expect(currentSpecSyncError({ ...a, status })).toEqual({ kind: 'input', message: 'bad args' });
    expect(currentSpecSyncError(a)).toBeUndefined();
  });
});
