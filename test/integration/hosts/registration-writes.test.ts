// Issue 16: a new host costs two writes of its own — the Agent create (with everything known) and
// one status write — and a re-registering one a status write and its annotations; plus the
// registration Event and the cluster's status, counted on the operator's own client against the real API server, from the
// register call until the operator has settled: the caches have seen the last write of every
// object involved, no key waits or is being worked on, and every Event is written.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, AgentClusterInstall, InfraEnv } from '../../../src/api/index.ts';
import { connectivityReader } from '../../../src/core/network/connectivity-report.ts';
import { operatorEventsFor } from '../../../src/records/events.ts';
import { AGENT, AGENT_CLUSTER_INSTALL } from '../../../src/records/resources.ts';
import { isConflict, type KubeClient } from '../../../src/runtime/index.ts';
import { metricValue } from '../../../src/runtime/metrics.ts';
import { eventually, newNamespace, uniqueName } from '../../harness/env.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import { createRegisteredCluster, eventuallyAci } from '../cluster/harness.ts';
import { adminClient, call, inventory, waitForAgent } from './helpers.ts';

const WRITE_VERBS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Delayed keys due within this are not settled yet; later ones (resync timers) are. */
const SETTLE_HORIZON_MS = 2_000;
const client = adminClient();
let op: TestOperator;
let ns: string;
/** The operator's log lines (debug): which keys each controller reconciled. */
const logLines: string[] = [];

/**
 * Records every write the operator's client makes, as "VERB path". A write the API server refused
 * with 409 (a reconcile that ran on a cache one event behind its own last write) changed nothing
 * and is listed apart.
 */
function recordWrites(kube: KubeClient): { writes: string[]; conflicts: string[] } {
  const out = { writes: [] as string[], conflicts: [] as string[] };
  const target = kube as unknown as { send: (m: string, p: string, o: unknown) => Promise<unknown> };
  const send = target.send.bind(kube);
  target.send = async (method, path, opts) => {
    if (!WRITE_VERBS.has(method)) return send(method, path, opts);
    const what = `${method} ${path.split('?')[0]}`;
    try {
      const res = await send(method, path, opts);
      out.writes.push(what);
      return res;
    } catch (err) {
      (isConflict(err) ? out.conflicts : out.writes).push(what);
      throw err;
    }
  };
  return out;
}

/** True once the operator has nothing left to do about `aci` (and the Agent `agentName`). */
async function settled(aciName: string, agentName?: string): Promise<boolean> {
  const liveAci = await client.get<AgentClusterInstall>(AGENT_CLUSTER_INSTALL, aciName, ns);
  if (
    op.ctx.informers.agentClusterInstalls.get(ns, aciName)?.metadata.resourceVersion !==
    liveAci.metadata.resourceVersion
  )
    return false;
  if (agentName) {
    const live = await client.get<Agent>(AGENT, agentName, ns);
    if (
      op.ctx.informers.agents.get(ns, agentName)?.metadata.resourceVersion !== live.metadata.resourceVersion
    )
      return false;
  }
  // A retry due soon (a stale record is retried after 200 ms) is work still to come.
  if (op.ctx.mgr.busyControllers(SETTLE_HORIZON_MS).length > 0) return false;
  await operatorEventsFor(op.ctx).flush();
  // The flush awaited: look again, in one synchronous read.
  return op.ctx.mgr.busyControllers(SETTLE_HORIZON_MS).length === 0;
}

/** A cluster (SNO unless `spec` says otherwise) with its InfraEnv, registered, the operator settled. */
async function settledSnoCluster(
  spec: Partial<AgentClusterInstall['spec']> = {},
): Promise<{ name: string; ie: InfraEnv }> {
  const name = uniqueName('sno');
  const ie = await createRegisteredCluster(client, op.ctx, ns, name, spec);
  await eventually(async () => (await settled(name)) || undefined, { what: 'operator settled' });
  return { name, ie };
}

/** Registers one new host of `ie` and waits until the operator has settled; returns its id. */
async function registerAndSettle(name: string, ie: InfraEnv): Promise<string> {
  const hostId = randomUUID();
  const reply = await call(op.baseUrl, 'POST', `/v2/infra-envs/${ie.metadata.uid}/hosts`, {
    token: op.server.auth.issueAgentToken({ kind: 'infra-env', id: ie.metadata.uid ?? '' }),
    body: { host_id: hostId, discovery_agent_version: op.ctx.settings.agentImage },
  });
  expect(reply.status, reply.text).toBe(201);
  await waitForAgent(client, ns, hostId, (a) => !!a.status?.validationsInfo, 'Agent validated');
  await eventually(async () => (await settled(name, hostId)) || undefined, {
    what: 'operator settled after the registration',
    timeoutMs: 30_000,
  });
  return hostId;
}

/** Posts one step reply of host `id` and waits until the operator has settled. */
async function postReply(
  name: string,
  ie: InfraEnv,
  id: string,
  step: string,
  output: string,
): Promise<void> {
  const reply = await call(op.baseUrl, 'POST', `/v2/infra-envs/${ie.metadata.uid}/hosts/${id}/instructions`, {
    token: op.server.auth.issueAgentToken({ kind: 'infra-env', id: ie.metadata.uid ?? '' }),
    body: { step_type: step, step_id: `${step}-${randomUUID().slice(0, 8)}`, output },
  });
  expect(reply.status, reply.text).toBe(204);
  await eventually(async () => (await settled(name, id)) || undefined, {
    what: 'settled',
    timeoutMs: 30_000,
  });
}

/** Posts an inventory of host `id` (its CPU frequency `mhz` tells versions apart). */
function postInventory(name: string, ie: InfraEnv, id: string, hostname: string, mac: string, mhz = 2400) {
  const cpu = { architecture: 'x86_64', count: 8, flags: ['vmx'], frequency: mhz, model_name: 'Xeon' };
  return postReply(name, ie, id, 'inventory', inventory(hostname, mac, { cpu }));
}

/** The keys `controller` reconciled in the log lines from `from` on. */
function reconciledKeys(controller: string, from: number): string[] {
  const keys: string[] = [];
  for (const line of logLines.slice(from)) {
    const entry = JSON.parse(line) as { msg?: string; controller?: string; key?: string };
    if (entry.msg === 'reconciled' && entry.controller === controller && entry.key) keys.push(entry.key);
  }
  return keys;
}

/** The operator's log from line `from` on: what a failed wake count shows. */
function logSince(from: number): string {
  return logLines
    .slice(from)
    .map((l) => l.slice(0, 600))
    .join('\n');
}

/** Reconciles run so far by each of `controllers`. */
async function reconcilesOf(controllers: readonly string[]): Promise<Map<string, number>> {
  const total = op.ctx.mgr.metrics.reconcileTotal;
  return new Map(
    await Promise.all(
      controllers.map(async (c) => [c, await metricValue(total, { controller: c })] as const),
    ),
  );
}

beforeAll(async () => {
  ns = await newNamespace('regw');
  op = await startTestOperator({
    namespace: ns,
    logLevel: 'debug',
    logDestination: { write: (line: string) => logLines.push(line) },
  });
});

afterAll(async () => {
  await op?.stop();
  await client.close();
});

describe('API writes of one registration', () => {
  it('registers a new host of an SNO cluster with two Agent writes: the create and its status', async () => {
    const { name, ie } = await settledSnoCluster();
    const recorded = recordWrites(op.ctx.client);
    const hostId = await registerAndSettle(name, ie);

    const { writes, conflicts } = recorded;
    const list = `${writes.join('\n')}\nrefused with 409:\n${conflicts.join('\n')}`;
    const agentWrites = writes.filter((w) => w.includes('/agents'));
    expect(agentWrites, list).toEqual([
      `POST /apis/agent-install.openshift.io/v1beta1/namespaces/${ns}/agents`,
      `PUT /apis/agent-install.openshift.io/v1beta1/namespaces/${ns}/agents/${hostId}/status`,
    ]);
    // The registration's Event (host_registration_succeeded, in the events URL): written off the
    // request path by the Event writer, one Event for what one registration records.
    expect(writes.filter((w) => w.includes('/events')).length, list).toBeLessThanOrEqual(1);
    // The cluster's own status now counts the host (controlPlaneAgentsDiscovered): one write.
    expect(writes.filter((w) => w.includes('/agentclusterinstalls')).length, list).toBeLessThanOrEqual(1);
    expect(writes.length, list).toBeLessThanOrEqual(4);
  }, 120_000);

  it('re-registers a known host with one status write and its annotations', async () => {
    const { name, ie } = await settledSnoCluster();
    const hostId = await registerAndSettle(name, ie);
    await postInventory(name, ie, hostId, 'rereg-0', '52:54:00:0e:0e:01');
    const recorded = recordWrites(op.ctx.client);
    const reply = await call(op.baseUrl, 'POST', `/v2/infra-envs/${ie.metadata.uid}/hosts`, {
      token: op.server.auth.issueAgentToken({ kind: 'infra-env', id: ie.metadata.uid ?? '' }),
      body: { host_id: hostId, discovery_agent_version: op.ctx.settings.agentImage },
    });
    expect(reply.status, reply.text).toBe(201);
    await eventually(async () => (await settled(name, hostId)) || undefined, {
      what: 'operator settled after the re-registration',
      timeoutMs: 30_000,
    });
    const { writes, conflicts } = recorded;
    const list = `${writes.join('\n')}\nrefused with 409:\n${conflicts.join('\n')}`;
    // The registration writes the status its reconciler would (validations and conditions
    // included); the reconciler is left with the backup annotations, and nothing else.
    const agentPath = `/apis/agent-install.openshift.io/v1beta1/namespaces/${ns}/agents/${hostId}`;
    expect(
      writes.filter((w) => w.includes('/agents')),
      list,
    ).toEqual([`PUT ${agentPath}/status`, `PATCH ${agentPath}`]);
    const agent = await client.get<Agent>(AGENT, hostId, ns);
    expect(agent.metadata.annotations?.['agent.agent-install.openshift.io/state']).toBe(
      agent.status?.debugInfo?.state,
    );
  }, 120_000);

  it('does not wake the InfraEnv controller: the cluster status write changes nothing it reads', async () => {
    const { name, ie } = await settledSnoCluster();
    const controllers = ['clusterdeployment', 'agent', 'infraenv'];
    const before = await reconcilesOf(controllers);
    await registerAndSettle(name, ie);
    const after = await reconcilesOf(controllers);
    const ran = (c: string) => (after.get(c) ?? 0) - (before.get(c) ?? 0);
    // The registration did wake the cluster's controllers (the check can see reconciles)...
    expect(ran('clusterdeployment')).toBeGreaterThan(0);
    expect(ran('agent')).toBeGreaterThan(0);
    // ...but not the InfraEnv's: its image depends on the cluster's spec and record id, not on
    // the host count and conditions the cluster's status write changed.
    expect(ran('infraenv')).toBe(0);
  }, 120_000);

  it('does not wake the other Agents of the cluster: their reconcile reads nothing the write changed', async () => {
    // Each host of an SNO cluster registers as a control-plane host, so each changes its counts.
    const { name, ie } = await settledSnoCluster();
    const earlier: string[] = [];
    for (let i = 0; i < 4; i++) earlier.push(await registerAndSettle(name, ie));
    const aciBefore = await client.get<AgentClusterInstall>(AGENT_CLUSTER_INSTALL, name, ns);
    const from = logLines.length;
    const added = await registerAndSettle(name, ie);
    const aciAfter = await client.get<AgentClusterInstall>(AGENT_CLUSTER_INSTALL, name, ns);
    const reconciled = reconciledKeys('agent', from);
    // The cluster's status was rewritten for the new host (its validations and conditions), and
    // the new Agent's reconciles are in the log...
    expect(aciAfter.metadata.resourceVersion).not.toBe(aciBefore.metadata.resourceVersion);
    expect(aciAfter.status?.controlPlaneAgentsDiscovered).toBe(5);
    expect(reconciled).toContain(`${ns}/${added}`);
    // ...but none of the four Agents registered before: in a cluster of n hosts, every
    // registration used to cost n Agent reconciles, each building the record from all n Agents.
    expect(reconciled.filter((k) => earlier.some((id) => k === `${ns}/${id}`))).toEqual([]);
  }, 120_000);

  it('wakes the other Agents when a host joins a cluster of up to 3: their validations count it', async () => {
    const { name, ie } = await settledSnoCluster();
    const first = await registerAndSettle(name, ie);
    let from = logLines.length;
    await registerAndSettle(name, ie);
    expect(reconciledKeys('agent', from)).toContain(`${ns}/${first}`);
    const third = await registerAndSettle(name, ie);
    from = logLines.length;
    // A fourth host: no count a validation tells apart changes (HOST_COUNT_READ_UP_TO).
    await registerAndSettle(name, ie);
    expect(
      reconciledKeys('agent', from).filter((k) => k === `${ns}/${first}` || k === `${ns}/${third}`),
    ).toEqual([]);
  }, 120_000);

  it('a hostname wakes only the hosts whose validations read it: uniqueness found and cleared', async () => {
    const { name, ie } = await settledSnoCluster();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await registerAndSettle(name, ie));
    const [a, b, ...rest] = ids as [string, string, ...string[]];
    const sendInventory = (id: string, hostname: string, mac: string, mhz: number) =>
      postInventory(name, ie, id, hostname, mac, mhz);
    const uniqueness = async (id: string) =>
      (await client.get<Agent>(AGENT, id, ns)).status?.validationsInfo?.hardware?.find(
        (v) => v.id === 'hostname-unique',
      )?.status;

    await sendInventory(a, 'dup', '52:54:00:aa:00:01', 2400);
    expect(await uniqueness(a)).toBe('success');
    let from = logLines.length;
    await sendInventory(b, 'dup', '52:54:00:aa:00:02', 2400);
    let woken = reconciledKeys('agent', from);
    // The host with the same name re-validates (and now clashes); the other three are not woken.
    expect(woken).toContain(`${ns}/${a}`);
    expect(woken.filter((k) => rest.some((id) => k === `${ns}/${id}`))).toEqual([]);
    await eventually(async () => ((await uniqueness(a)) === 'failure' ? true : undefined), {
      what: 'hostname clash seen by the first host',
    });
    expect(await uniqueness(b)).toBe('failure');

    from = logLines.length;
    await sendInventory(b, 'b-renamed', '52:54:00:aa:00:02', 2500);
    woken = reconciledKeys('agent', from);
    expect(woken).toContain(`${ns}/${a}`);
    expect(woken.filter((k) => rest.some((id) => k === `${ns}/${id}`))).toEqual([]);
    await eventually(async () => ((await uniqueness(a)) === 'success' ? true : undefined), {
      what: 'hostname clash cleared for the first host',
    });
  }, 120_000);

  it('a hostname wakes the hosts whose connectivity report names it, and no other', async () => {
    const { name, ie } = await settledSnoCluster();
    const ids: string[] = [];
    // Five hosts, as above: in a cluster of up to 3 a first inventory wakes every host for others.
    for (let i = 0; i < 5; i++) ids.push(await registerAndSettle(name, ie));
    const [a, b, ...rest] = ids as [string, string, ...string[]];
    const report = {
      remote_hosts: [{ host_id: a, l3_connectivity: [{ remote_ip_address: '10.0.0.9', successful: true }] }],
    };
    // The cluster's first inventory changes what every host reads of the cluster: not that one.
    await postInventory(name, ie, b, 'host-b', '52:54:00:ab:00:02');
    await postReply(name, ie, b, 'connectivity-check', JSON.stringify(report));
    expect(connectivityReader(op.ctx.facts.get(b)?.connectivity ?? {}).hostId(0)).toBe(a);

    const from = logLines.length;
    await postInventory(name, ie, a, 'host-a', '52:54:00:ab:00:01');
    const woken = reconciledKeys('agent', from);
    expect(woken, logSince(from)).toContain(`${ns}/${b}`);
    expect(woken.filter((k) => rest.some((id) => k === `${ns}/${id}`))).toEqual([]);
  }, 120_000);

  it('new majority groups wake the hosts that joined or left, not the whole cluster', async () => {
    const { name, ie } = await settledSnoCluster();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await registerAndSettle(name, ie));
    const [a, b, c, d, e] = ids as [string, string, string, string, string];
    const ip = (id: string) => `192.168.122.${11 + ids.indexOf(id)}`;
    for (const id of ids) {
      const mac = `52:54:00:ac:00:0${ids.indexOf(id) + 1}`;
      const inv = JSON.parse(inventory(`host-${ids.indexOf(id)}`, mac)) as {
        interfaces: { ipv4_addresses: string[] }[];
      };
      inv.interfaces[0]!.ipv4_addresses = [`${ip(id)}/24`];
      await postReply(name, ie, id, 'inventory', JSON.stringify(inv));
    }
    const reaches = (to: string[]) =>
      JSON.stringify({
        remote_hosts: to.map((id) => ({
          host_id: id,
          l3_connectivity: [{ remote_ip_address: ip(id), successful: true }],
        })),
      });
    const ipv4Group = async () => {
      const aci = await client.get<AgentClusterInstall>(AGENT_CLUSTER_INSTALL, name, ns);
      const groups = JSON.parse(aci.status?.connectivityMajorityGroups ?? '{}') as {
        majority_groups?: Record<string, string[]>;
      };
      return groups.majority_groups?.IPv4 ?? [];
    };
    // a, b and c reach each other; d reaches them, but c does not reach d; e has no report. The
    // largest full mesh is {a, b, c} or {a, b, d}, as ids fall; once c reaches d, all four.
    await postReply(name, ie, a, 'connectivity-check', reaches([b, c, d]));
    await postReply(name, ie, b, 'connectivity-check', reaches([a, c, d]));
    await postReply(name, ie, c, 'connectivity-check', reaches([a, b]));
    await postReply(name, ie, d, 'connectivity-check', reaches([a, b, c]));
    const before = await ipv4Group();
    expect(before).toHaveLength(3);

    const from = logLines.length;
    await postReply(name, ie, c, 'connectivity-check', reaches([a, b, d]));
    expect(await ipv4Group()).toEqual([a, b, c, d].sort());
    const woken = new Set(reconciledKeys('agent', from));
    const joined = [c, d].filter((id) => !before.includes(id));
    // c for its own reply and whoever joined; a, b and e read the same as before.
    expect(
      joined.filter((id) => !woken.has(`${ns}/${id}`)),
      logSince(from),
    ).toEqual([]);
    const unchanged = [a, b, c, d, e].filter((id) => id !== c && !joined.includes(id));
    expect(
      unchanged.filter((id) => woken.has(`${ns}/${id}`)),
      logSince(from),
    ).toEqual([]);
  }, 120_000);

  it('wakes the other Agents when a host leaves: their validations count the cluster hosts', async () => {
    const { name, ie } = await settledSnoCluster();
    const hosts: string[] = [];
    for (let i = 0; i < 3; i++) hosts.push(await registerAndSettle(name, ie));
    const [leaving, ...staying] = hosts as [string, ...string[]];
    const from = logLines.length;
    await client.delete(AGENT, leaving, ns);
    await eventually(async () => !(await client.getIfExists(AGENT, leaving, ns)) || undefined, {
      what: 'Agent deleted',
    });
    await eventually(async () => (await settled(name)) || undefined, { what: 'operator settled' });
    const reconciled = new Set(reconciledKeys('agent', from));
    expect([...reconciled].filter((k) => staying.some((id) => k === `${ns}/${id}`)).sort()).toEqual(
      staying.map((id) => `${ns}/${id}`).sort(),
    );
  }, 120_000);

  it('wakes the cluster for an Agent spec change, not for its annotations and inventory labels', async () => {
    const { name, ie } = await settledSnoCluster();
    const hostId = await registerAndSettle(name, ie);
    const clusterKey = `${ns}/${name}`;
    const settle = () =>
      eventually(async () => (await settled(name, hostId)) || undefined, { what: 'settled' });

    // What the Agent reconciler patches before each status write (upstream's backup annotations and
    // the inventory labels), and a user's annotation: nothing the cluster reconcile reads.
    let from = logLines.length;
    await client.patch(AGENT, hostId, ns, 'merge', {
      metadata: {
        annotations: { poke: '1' },
        labels: { 'inventory.agent-install.openshift.io/cpu-architecture': 'x86_64' },
      },
    });
    await settle();
    expect(reconciledKeys('agent', from)).toContain(`${ns}/${hostId}`);
    expect(reconciledKeys('clusterdeployment', from), logSince(from)).not.toContain(clusterKey);

    // A spec change (the hostname it asks for, which the host's record takes) does: the check
    // can see a wake.
    from = logLines.length;
    await client.patch(AGENT, hostId, ns, 'merge', { spec: { hostname: 'renamed-0' } });
    await settle();
    expect(reconciledKeys('clusterdeployment', from)).toContain(clusterKey);
  }, 120_000);

  it('does not reconcile the cluster again for its own status write when the record stays', async () => {
    const { name, ie } = await settledSnoCluster();
    const hostId = await registerAndSettle(name, ie);
    const clusterKey = `${ns}/${name}`;
    // Someone else's status write: a host count the cluster pass corrects, leaving its backend
    // record (state, timestamps) as it was.
    const from = logLines.length;
    const before = await metricValue(op.ctx.mgr.metrics.reconcileTotal, { controller: 'clusterdeployment' });
    await client.patch(
      AGENT_CLUSTER_INSTALL,
      name,
      ns,
      'merge',
      { status: { controlPlaneAgentsDiscovered: 7 } },
      { subresource: 'status' },
    );
    await eventuallyAci(client, ns, name, (a) => a.status?.controlPlaneAgentsDiscovered === 1, 'count fixed');
    await eventually(async () => (await settled(name, hostId)) || undefined, { what: 'settled' });
    // One pass for the foreign write, which wrote the status back; none for the echo of that
    // write, which held nothing the pass had not decided (it used to cost a second full pass).
    const passes = reconciledKeys('clusterdeployment', from).filter((k) => k === clusterKey);
    const after = await metricValue(op.ctx.mgr.metrics.reconcileTotal, { controller: 'clusterdeployment' });
    expect(passes, logSince(from)).toEqual([clusterKey]);
    expect(after - before).toBe(1);
  }, 120_000);
});
