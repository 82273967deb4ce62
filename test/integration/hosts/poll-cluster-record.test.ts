// Host polls reuse their cluster's record (issue 16 item 4; src/records/hosts/poll-records.ts):
// built from every host of the cluster, it cost each poll O(n) in a cluster of n hosts. Against
// the real API server: polls with nothing changed share one build per window, a poll after another
// host's inventory probes that host, and a record is rebuilt as soon as an Agent of the cluster
// changes in the cache, inside the window, and as soon as the cluster's pull Secret does (the
// window is as long as a host's poll interval: only identity keeps the record current). The
// infra-env record a poll reads is reused the same way, and rebuilt as soon as its InfraEnv or pull
// Secret changes.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, AgentClusterInstall, ClusterDeployment, InfraEnv } from '../../../src/api/index.ts';
import { clusterRecordForPoll, infraEnvRecordForPoll } from '../../../src/records/hosts/lookup.ts';
import { hostMemory } from '../../../src/records/hosts/memory.ts';
import { POLL_RECORD_MAX_AGE_MS } from '../../../src/records/hosts/poll-records.ts';
import type { AgentCluster } from '../../../src/records/index.ts';
import { AGENT, INFRA_ENV, SECRET } from '../../../src/records/resources.ts';
import { cachedClusterReferences, readClusterReferences } from '../../../src/records/views.ts';
import { eventually, newNamespace, uniqueName } from '../../harness/env.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import { createRegisteredCluster } from '../cluster/harness.ts';
import { adminClient, call, inventory } from './helpers.ts';

const client = adminClient();
let op: TestOperator;
let ns: string;
let cdName: string;
let ie: InfraEnv;
let token: string;
let base: string;
/** Calls of the build a poll could not avoid. */
let builds = 0;
const hosts: { a: string; b: string } = { a: '', b: '' };

beforeAll(async () => {
  ns = await newNamespace('pollrec');
  op = await startTestOperator({ namespace: ns });
  cdName = uniqueName('c');
  ie = await createRegisteredCluster(client, op.ctx, ns, cdName, {
    provisionRequirements: { controlPlaneAgents: 3 },
  });
  token = op.server.auth.issueAgentToken({ kind: 'infra-env', id: ie.metadata.uid ?? '' });
  base = `/v2/infra-envs/${ie.metadata.uid}/hosts`;
  const records = hostMemory(op.ctx).pollClusters;
  const record = records.record.bind(records);
  records.record = (key: string, parts: readonly unknown[], build: () => Promise<AgentCluster | undefined>) =>
    record(key, parts, () => {
      builds++;
      return build();
    });
});

afterAll(async () => {
  await op?.stop();
  await client.close();
});

async function register(): Promise<string> {
  const hostId = randomUUID();
  const body = { host_id: hostId, discovery_agent_version: op.ctx.settings.agentImage };
  expect((await call(op.baseUrl, 'POST', base, { token, body })).status).toBe(201);
  return hostId;
}

async function postInventory(hostId: string, hostname: string, mac: string): Promise<void> {
  const body = {
    step_type: 'inventory',
    step_id: 'inventory-1',
    exit_code: 0,
    output: inventory(hostname, mac),
  };
  const reply = await call(op.baseUrl, 'POST', `${base}/${hostId}/instructions`, { token, body });
  expect(reply.status, reply.text).toBeLessThan(300);
}

/** Waits until the operator's cache holds the Agent past discovery (its peers can probe it). */
async function discovered(hostId: string): Promise<Agent> {
  return eventually(
    async () => {
      const a = op.ctx.informers.agents.get(ns, hostId);
      const state = a?.status?.debugInfo?.state;
      return a?.status?.inventory && state && state !== 'discovering' ? a : undefined;
    },
    { what: `Agent ${hostId} discovered in the cache`, timeoutMs: 30_000 },
  );
}

async function poll(hostId: string): Promise<{ step_type: string; args?: string[] }[]> {
  const reply = await call(op.baseUrl, 'GET', `${base}/${hostId}/instructions`, { token });
  expect(reply.status, reply.text).toBe(200);
  return (reply.body as { instructions: { step_type: string; args?: string[] }[] }).instructions;
}

/** Writes `value` as the pull Secret's `.dockerconfigjson` and waits until the cache holds it. */
async function setPullSecret(name: string, value: string): Promise<void> {
  await client.patch(SECRET, name, ns, 'merge', {
    data: { '.dockerconfigjson': Buffer.from(value).toString('base64') },
  });
  await eventually(
    async () => {
      const data = op.ctx.informers.secrets.get(ns, name)?.data?.['.dockerconfigjson'];
      return data && Buffer.from(data, 'base64').toString() === value ? true : undefined;
    },
    { what: 'the pull Secret change in the cache' },
  );
}

/** The cluster's record as a poll reads it, once the operator has nothing left to do. */
async function settledRecord() {
  const cd = op.ctx.informers.clusterDeployments.get(ns, cdName) as ClusterDeployment;
  const clusterId = cd.metadata.uid ?? '';
  const memory = hostMemory(op.ctx);
  await eventually(async () => op.ctx.mgr.busyControllers(2_000).length === 0 || undefined, {
    what: 'operator settled',
  });
  return { cd, clusterId, memory, first: await clusterRecordForPoll(op.ctx, memory, clusterId) };
}

describe('host polls and their cluster record', () => {
  it('polls with nothing changed share a build; after another host has an inventory they probe it', async () => {
    hosts.a = await register();
    hosts.b = await register();
    await postInventory(hosts.a, 'host-a', '52:54:00:00:0a:01');
    await discovered(hosts.a);
    // The inventory's own writes (the Agent's, the cluster's) may still be landing; each is a
    // change the record must be rebuilt for, so count only once they have.
    await eventually(async () => op.ctx.mgr.busyControllers(2_000).length === 0 || undefined, {
      what: 'operator settled',
    });

    const polls = 30;
    const before = builds;
    const started = performance.now();
    for (let i = 0; i < polls; i++) {
      // B has no inventory yet: nobody to probe.
      expect((await poll(hosts.a)).map((s) => s.step_type)).not.toContain('connectivity-check');
    }
    const windows = Math.ceil((performance.now() - started) / POLL_RECORD_MAX_AGE_MS);
    expect(builds - before).toBeGreaterThanOrEqual(1);
    expect(builds - before).toBeLessThanOrEqual(windows + 1);
    expect(builds - before).toBeLessThan(polls);

    await postInventory(hosts.b, 'host-b', '52:54:00:00:0b:01');
    await discovered(hosts.b);
    const steps = await poll(hosts.a);
    const check = steps.find((s) => s.step_type === 'connectivity-check');
    expect(check, JSON.stringify(steps.map((s) => s.step_type))).toBeDefined();
    expect(JSON.stringify(check?.args)).toContain(hosts.b);
  });

  it('a record is rebuilt as soon as an Agent of the cluster changes in the cache, inside the window', async () => {
    // A trial shows it only if the ACI stayed the same object (else the ACI forced the rebuild);
    // on a loaded box a late cluster status write can land inside one, so up to three trials.
    let conclusive = false;
    for (let trial = 1; trial <= 3 && !conclusive; trial++) {
      const { clusterId, memory, first } = await settledRecord();
      const hostname = `renamed-b-${trial}`;
      expect(first?.hosts.find((h) => h.id === hosts.b)?.requested_hostname).not.toBe(hostname);

      // A user renames B: B's Agent changes; the cluster's status need not.
      const aci = op.ctx.aciOfCluster(`${ns}/${cdName}`);
      const renamedAt = performance.now();
      await client.patch(AGENT, hosts.b, ns, 'merge', { spec: { hostname } });
      await eventually(
        async () => op.ctx.informers.agents.get(ns, hosts.b)?.spec.hostname === hostname || undefined,
        { what: 'the rename in the cache' },
      );
      const second = await clusterRecordForPoll(op.ctx, memory, clusterId);
      expect(second?.hosts.find((h) => h.id === hosts.b)?.requested_hostname).toBe(hostname);
      conclusive =
        performance.now() - renamedAt < POLL_RECORD_MAX_AGE_MS &&
        op.ctx.aciOfCluster(`${ns}/${cdName}`) === aci;
    }
    expect(conclusive, 'every trial saw the ACI change or the window run out').toBe(true);
  });

  it('a record is rebuilt as soon as the pull Secret changes in the cache, whatever the window', async () => {
    const { cd, clusterId, memory, first } = await settledRecord();
    const old = JSON.parse(first?.pull_secret ?? '{}') as { auths: Record<string, unknown> };
    expect(Object.keys(old.auths ?? {}).length).toBeGreaterThan(0);
    // Another registry's credentials added to the same pull Secret.
    const value = JSON.stringify({ auths: { ...old.auths, 'mirror.example.org:5000': { auth: 'dTpw' } } });
    await setPullSecret(cd.spec.pullSecretRef?.name ?? '', value);
    const second = await clusterRecordForPoll(op.ctx, memory, clusterId);
    expect(second?.pull_secret).toBe(value);
  });
});

describe('the references a poll reads from the cache alone', () => {
  it('are the very objects read otherwise', async () => {
    const { cd } = await settledRecord();
    const aci = op.ctx.aciOfCluster(`${ns}/${cdName}`) as AgentClusterInstall;
    const cached = cachedClusterReferences(op.ctx, cd, aci);
    expect(cached?.pullSecret).toBeDefined();
    expect(cached?.pullSecret).toBe((await readClusterReferences(op.ctx, cd, aci)).pullSecret);
  });
});

describe('host polls and their infra-env record', () => {
  const cachedInfraEnv = () => op.ctx.infraEnvById(ie.metadata.uid ?? '') as InfraEnv;

  it('is reused while nothing it reads changed, and rebuilt as soon as the InfraEnv or its pull Secret does', async () => {
    const memory = hostMemory(op.ctx);
    await eventually(async () => op.ctx.mgr.busyControllers(2_000).length === 0 || undefined, {
      what: 'operator settled',
    });
    const first = await infraEnvRecordForPoll(op.ctx, memory, cachedInfraEnv());
    expect(first.id).toBe(ie.metadata.uid);
    // The same InfraEnv, Secret and cluster: the very record, not another build of it.
    expect(await infraEnvRecordForPoll(op.ctx, memory, cachedInfraEnv())).toBe(first);

    const ntp = `ntp-${randomUUID().slice(0, 8)}.example.org`;
    await client.patch(INFRA_ENV, ie.metadata.name ?? '', ns, 'merge', {
      spec: { additionalNTPSources: [ntp] },
    });
    await eventually(async () => cachedInfraEnv().spec.additionalNTPSources?.includes(ntp) || undefined, {
      what: 'the InfraEnv change in the cache',
    });
    const second = await infraEnvRecordForPoll(op.ctx, memory, cachedInfraEnv());
    expect(second.additional_ntp_sources).toBe(ntp);

    const value = JSON.stringify({
      auths: { [`${randomUUID().slice(0, 8)}.example.org`]: { auth: 'dTpw' } },
    });
    await setPullSecret(ie.spec.pullSecretRef?.name ?? '', value);
    expect((await infraEnvRecordForPoll(op.ctx, memory, cachedInfraEnv())).pull_secret).toBe(value);
  });
});

describe("a host's steps answer", () => {
  const argsOf = (steps: { step_type: string; args?: string[] }[], type: string) =>
    steps.find((s) => s.step_type === type)?.args;

  it('is kept while its records are, with fresh step ids, and follows a change at once', async () => {
    await eventually(async () => op.ctx.mgr.busyControllers(2_000).length === 0 || undefined, {
      what: 'operator settled',
    });
    const first = await poll(hosts.a);
    const second = await poll(hosts.a);
    expect(second.map((s) => s.step_type)).toEqual(first.map((s) => s.step_type));
    expect(second.map((s) => s.args)).toEqual(first.map((s) => s.args));
    const ids = (steps: typeof first) => steps.map((s) => (s as { step_id?: string }).step_id);
    expect(ids(second).every((id, i) => id !== ids(first)[i])).toBe(true);

    // The cluster names no NTP source: the step's come from the InfraEnv.
    const ntp = `ntp-${randomUUID().slice(0, 8)}.example.org`;
    expect(JSON.stringify(argsOf(second, 'ntp-synchronizer'))).not.toContain(ntp);
    await client.patch(INFRA_ENV, ie.metadata.name ?? '', ns, 'merge', {
      spec: { additionalNTPSources: [ntp] },
    });
    await eventually(
      async () =>
        op.ctx.infraEnvById(ie.metadata.uid ?? '')?.spec.additionalNTPSources?.includes(ntp) || undefined,
      { what: 'the InfraEnv change in the cache' },
    );
    expect(JSON.stringify(argsOf(await poll(hosts.a), 'ntp-synchronizer'))).toContain(ntp);
  });
});
