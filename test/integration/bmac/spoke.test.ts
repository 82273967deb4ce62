// BMAC's spoke-side steps on the real API server, which also plays the spoke (its admin
// kubeconfig is the imported cluster's kubeconfig Secret): a day-2 host's BMH gets the spoke's
// machine-config-server CA merged into its ignition-config-overrides annotation (and so the Agent
// gets it), and a converged BMH deleted with remove-agent-and-node-on-delete drains its Node
// (cordon, evictions that skip DaemonSet pods) before metal3 deprovisions it and the Agent goes.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, BareMetalHost } from '../../../src/api/index.ts';
import { AGENT, BARE_METAL_HOST, CONFIG_MAP, NAMESPACE, NODE, POD } from '../../../src/records/resources.ts';
import { isAlreadyExists, type KubeObject, updateStatus } from '../../../src/runtime/index.ts';
import { selfSignedIngressCa } from '../../../src/sim/ingress-ca.ts';
import { eventually, kubeconfigPath, newNamespace } from '../../harness/env.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import { type ImportedCluster, importedCluster, registerDay2Host } from '../cluster/imported.ts';
import { adminClient, call, waitForAgent } from '../hosts/helpers.ts';

const MCS_NS = 'openshift-machine-config-operator';
const DRAIN_STATUS = 'bmac.agent-install.openshift.io/drain-status';
const DRAIN_STARTED = 'bmac.agent-install.openshift.io/drain-started-at';
const OVERRIDES = 'bmac.agent-install.openshift.io/ignition-config-overrides';

interface PodObject extends KubeObject {
  spec: { nodeName?: string; containers: { name: string; image: string }[] };
}

const client = adminClient();
let op: TestOperator;
let ns: string;
let ca: string;
let cluster: ImportedCluster;
const nodes: string[] = [];

/** A day-2 host registered through the REST API with `mac`; optionally already joined (stage Joined). */
async function registerHost(mac: string, joined: boolean): Promise<{ id: string; hostname: string }> {
  const { id, hostname, agent } = await registerDay2Host({ client, op, ns, cluster, mac });
  const base = `/v2/infra-envs/${cluster.ie.metadata.uid}/hosts`;
  const token = cluster.token;
  if (joined) {
    await updateStatus(client, AGENT, agent, (cur) => ({
      ...cur.status,
      role: 'worker',
      debugInfo: { ...cur.status?.debugInfo, state: 'installing', stateInfo: 'Installation is in progress' },
      backend: { ...cur.status?.backend, role: 'worker' },
    }));
    await eventually(
      async () => op.ctx.informers.agents.get(ns, id)?.status?.debugInfo?.state === 'installing',
      {
        what: 'installing in cache',
      },
    );
    for (const stage of ['Rebooting', 'Joined']) {
      const r = await call(op.baseUrl, 'PUT', `${base}/${id}/progress`, {
        token,
        body: { current_stage: stage },
      });
      expect(r.status, r.text).toBe(200);
    }
    await waitForAgent(client, ns, id, (a) => a.status?.progress?.currentStage === 'Joined', 'stage Joined');
  }
  return { id, hostname };
}

function bmhObject(name: string, mac: string, annotations: Record<string, string>): BareMetalHost {
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: {
      name,
      namespace: ns,
      labels: { 'infraenvs.agent-install.openshift.io': cluster.ie.metadata.name ?? '' },
      annotations,
    },
    spec: { online: true, bootMACAddress: mac },
  } as BareMetalHost;
}

beforeAll(async () => {
  ns = await newNamespace('bmac-spoke');
  op = await startTestOperator({
    namespace: ns,
    env: { BMAC_IMAGE_COOLDOWN_MS: '200', IRONIC_BASE_URL: 'https://10.0.0.5:6385' },
  });
  ca = await selfSignedIngressCa('machine-config-server-ca');
  try {
    await client.create(NAMESPACE, { metadata: { name: MCS_NS } });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  await client.create(CONFIG_MAP, {
    metadata: { name: 'machine-config-server-ca', namespace: MCS_NS },
    data: { 'ca-bundle.crt': ca },
  } as never);
  cluster = await importedCluster({ client, op, ns, kubeconfig: await readFile(kubeconfigPath(), 'utf8') });
}, 60_000);

afterAll(async () => {
  await op?.stop();
  for (const n of nodes) await client.delete(NODE, n).catch(() => {});
  await client.delete(NAMESPACE, MCS_NS).catch(() => {});
});

describe('BMAC on the spoke', () => {
  it('merges the spoke MCS CA into a day-2 host BMH overrides, and the Agent takes it', async () => {
    const mac = '52:54:00:aa:00:01';
    // Detached: image delivery is skipped (no OS image in this suite), the rest of the pass runs.
    await client.create(
      BARE_METAL_HOST,
      bmhObject('day2-host', mac, {
        'baremetalhost.metal3.io/detached': 'assisted-service-controller',
        [OVERRIDES]: JSON.stringify({
          ignition: { version: '3.1.0' },
          storage: { files: [{ path: '/etc/x' }] },
        }),
      }),
    );
    const { id } = await registerHost(mac, false);
    const source = `data:text/plain;base64,${Buffer.from(ca).toString('base64')}`;
    const bmh = await eventually(
      async () => {
        const b = await client.get<BareMetalHost>(BARE_METAL_HOST, 'day2-host', ns);
        return b.metadata.annotations?.[OVERRIDES]?.includes(source) ? b : undefined;
      },
      { timeoutMs: 30_000, what: 'MCS CA in the BMH overrides' },
    );
    const overrides = JSON.parse(bmh.metadata.annotations?.[OVERRIDES] ?? '{}');
    expect(overrides.ignition.security.tls.certificateAuthorities).toEqual([{ source }]);
    expect(overrides.storage.files).toEqual([{ path: '/etc/x' }]);
    await eventually(
      async () => (await client.get<Agent>(AGENT, id, ns)).spec.ignitionConfigOverrides?.includes(source),
      { timeoutMs: 30_000, what: 'Agent ignitionConfigOverrides with the CA' },
    );
  });

  it('drains the Node of a converged BMH deleted with remove-agent-and-node-on-delete', async () => {
    const mac = '52:54:00:aa:00:02';
    await client.create(
      BARE_METAL_HOST,
      bmhObject('joined-host', mac, {
        'bmac.agent-install.openshift.io/remove-agent-and-node-on-delete': '',
      }),
    );
    const { id, hostname } = await registerHost(mac, true);
    await client.create(NODE, { metadata: { name: hostname } });
    nodes.push(hostname);
    const pod = (name: string, owner?: string): PodObject =>
      ({
        metadata: {
          name,
          namespace: ns,
          ...(owner
            ? {
                ownerReferences: [
                  { apiVersion: 'apps/v1', kind: 'DaemonSet', name: owner, uid: randomUUID() },
                ],
              }
            : {}),
        },
        spec: { nodeName: hostname, containers: [{ name: 'c', image: 'registry.invalid/app:1' }] },
      }) as PodObject;
    await client.create(POD, pod('app'));
    await client.create(POD, pod('ds-pod', 'node-agent'));
    await eventually(
      async () =>
        (await client.get<BareMetalHost>(BARE_METAL_HOST, 'joined-host', ns)).metadata.finalizers?.includes(
          'bmac.agent-install.openshift.io/deprovision',
        ),
      { timeoutMs: 30_000, what: 'BMAC finalizer' },
    );

    await client.delete(BARE_METAL_HOST, 'joined-host', ns);
    const draining = await eventually(
      async () => {
        const b = await client.get<BareMetalHost>(BARE_METAL_HOST, 'joined-host', ns);
        return b.metadata.annotations?.[DRAIN_STATUS] === 'draining in progress' ? b : undefined;
      },
      { timeoutMs: 30_000, what: 'drain in progress' },
    );
    expect(Date.parse(draining.metadata.annotations?.[DRAIN_STARTED] ?? '')).not.toBeNaN();
    expect(
      (await client.get<KubeObject & { spec?: { unschedulable?: boolean } }>(NODE, hostname)).spec
        ?.unschedulable,
    ).toBe(true);
    // The app pod was evicted (no kubelet here to finish it), the DaemonSet pod was left alone.
    const app = await eventually(async () => {
      const p = await client.get<PodObject>(POD, 'app', ns);
      return p.metadata.deletionTimestamp ? p : undefined;
    });
    expect(app.metadata.deletionTimestamp).toBeTruthy();
    expect((await client.get<PodObject>(POD, 'ds-pod', ns)).metadata.deletionTimestamp).toBeUndefined();
    // Play the kubelet: the evicted pod is gone; the next attempt (20 s later) finds the node drained.
    await client.delete(POD, 'app', ns, { gracePeriodSeconds: 0 });
    await eventually(
      async () =>
        (await client.get<BareMetalHost>(BARE_METAL_HOST, 'joined-host', ns)).metadata.annotations?.[
          DRAIN_STATUS
        ] === 'drain succeeded',
      { timeoutMs: 45_000, what: 'drain succeeded' },
    );
    const bmh = await client.get<BareMetalHost>(BARE_METAL_HOST, 'joined-host', ns);
    expect(bmh.spec.automatedCleaningMode).toBe('metadata');
    expect(await client.getIfExists(AGENT, id, ns)).toBeDefined();
    // Play metal3: deprovisioning reached `deleting`; the Agent goes, then the BMH.
    await client.patch(
      BARE_METAL_HOST,
      'joined-host',
      ns,
      'merge',
      { status: { provisioning: { state: 'deleting' } } },
      { subresource: 'status' },
    );
    await eventually(async () => !(await client.getIfExists(BARE_METAL_HOST, 'joined-host', ns)), {
      timeoutMs: 30_000,
      what: 'BMH released',
    });
    await eventually(
      async () => {
        const a = await client.getIfExists<Agent>(AGENT, id, ns);
        return !a || a.metadata.deletionTimestamp !== undefined;
      },
      { what: 'Agent deleted' },
    );
  }, 120_000);
});
