// BMAC step 10 on the real API server, which also plays the spoke (its admin kubeconfig is the
// imported cluster's kubeconfig Secret): with a master Machine in openshift-machine-api, a day-2 host
// that starts installing on a multi-node baremetal cluster gets its BareMetalHost and Machine
// created there, the hub BMH records spoke-bmh-machine-created, and later passes write nothing more.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BareMetalHost, Machine } from '../../../src/api/index.ts';
import { AGENT, BARE_METAL_HOST, MACHINE, NAMESPACE } from '../../../src/records/resources.ts';
import { type ApiResource, isAlreadyExists, updateStatus } from '../../../src/runtime/index.ts';
import { passOf } from '../../harness/barriers.ts';
import { eventually, kubeconfigPath, newNamespace, uniqueName } from '../../harness/env.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import { patchIfUnchanged } from '../../harness/unchanged.ts';
import { importedCluster } from '../cluster/imported.ts';
import { adminClient, call, inventory, waitForAgent } from '../hosts/helpers.ts';

const MAPI_NS = 'openshift-machine-api';
const CREATED = 'bmac.agent-install.openshift.io/spoke-bmh-machine-created';
const IMAGE = {
  checksum: 'http://172.22.0.3:6181/images/rhcos.qcow2.md5sum',
  url: 'http://172.22.0.3:6181/images/rhcos.qcow2',
};

const client = adminClient();
let op: TestOperator;
let ns: string;
let createdMapiNs = false;
const masterName = uniqueName('master');
const spokeObjects: { res: ApiResource; name: string }[] = [];

beforeAll(async () => {
  ns = await newNamespace('bmac-spoke-machine');
  op = await startTestOperator({
    namespace: ns,
    env: { BMAC_IMAGE_COOLDOWN_MS: '200', IRONIC_BASE_URL: 'https://10.0.0.5:6385' },
  });
  try {
    await client.create(NAMESPACE, { metadata: { name: MAPI_NS } });
    createdMapiNs = true;
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  await client.create(MACHINE, {
    metadata: {
      name: masterName,
      namespace: MAPI_NS,
      labels: { 'machine.openshift.io/cluster-api-machine-type': 'master' },
    },
    spec: {
      providerSpec: {
        value: {
          apiVersion: 'baremetal.cluster.k8s.io/v1alpha1',
          kind: 'BareMetalMachineProviderSpec',
          image: IMAGE,
        },
      },
    },
  } as Machine);
  spokeObjects.push({ res: MACHINE, name: masterName });
}, 60_000);

afterAll(async () => {
  await op?.stop();
  for (const o of spokeObjects) await client.delete(o.res, o.name, MAPI_NS).catch(() => {});
  if (createdMapiNs) await client.delete(NAMESPACE, MAPI_NS).catch(() => {});
});

describe('BMAC day-2 spoke BareMetalHost and Machine', () => {
  it('creates them on the spoke while the host installs, records it on the hub BMH, once', async () => {
    const cluster = await importedCluster({
      client,
      op,
      ns,
      kubeconfig: await readFile(kubeconfigPath(), 'utf8'),
      prefix: 'day2m',
      aciSpec: {
        platformType: 'BareMetal',
        apiVIPs: ['192.168.111.5'],
        ingressVIPs: ['192.168.111.4'],
        provisionRequirements: { controlPlaneAgents: 3 },
        networking: {
          clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
          serviceNetwork: ['172.30.0.0/16'],
          machineNetwork: [{ cidr: '192.168.111.0/24' }],
          userManagedNetworking: false,
        },
      },
    });
    const mac = '52:54:00:bb:00:01';
    const bmhName = uniqueName('day2-host');
    const machineName = `${cluster.name}-${bmhName}`;
    spokeObjects.push({ res: BARE_METAL_HOST, name: bmhName }, { res: MACHINE, name: machineName });
    // Detached: image delivery is skipped (no OS image in this suite), the rest of the pass runs.
    await client.create(BARE_METAL_HOST, {
      apiVersion: 'metal3.io/v1alpha1',
      kind: 'BareMetalHost',
      metadata: {
        name: bmhName,
        namespace: ns,
        labels: { 'infraenvs.agent-install.openshift.io': cluster.ie.metadata.name ?? '' },
        annotations: { 'baremetalhost.metal3.io/detached': 'assisted-service-controller' },
      },
      spec: {
        online: true,
        bootMACAddress: mac,
        bmc: { address: 'redfish://10.0.0.9/redfish/v1/Systems/1', credentialsName: 'bmc-secret' },
      },
    } as BareMetalHost);

    const id = randomUUID();
    const hostname = uniqueName('worker');
    const base = `/v2/infra-envs/${cluster.ie.metadata.uid}/hosts`;
    expect(
      (await call(op.baseUrl, 'POST', base, { token: cluster.token, body: { host_id: id } })).status,
    ).toBe(201);
    await call(op.baseUrl, 'POST', `${base}/${id}/instructions`, {
      token: cluster.token,
      body: { step_type: 'inventory', output: inventory(hostname, mac) },
    });
    const agent = await waitForAgent(
      client,
      ns,
      id,
      (a) =>
        a.status?.inventory?.hostname === hostname &&
        a.metadata.labels?.['agent-install.openshift.io/bmh'] === bmhName,
      'inventory and BMH label',
    );
    // Not installing yet: nothing on the spoke.
    expect(await client.getIfExists(MACHINE, machineName, MAPI_NS)).toBeUndefined();
    expect(
      (await client.get<BareMetalHost>(BARE_METAL_HOST, bmhName, ns)).metadata.annotations?.[CREATED],
    ).toBeUndefined();

    await updateStatus(client, AGENT, agent, (cur) => ({
      ...cur.status,
      role: 'worker',
      debugInfo: { ...cur.status?.debugInfo, state: 'installing', stateInfo: 'Installation is in progress' },
      backend: { ...cur.status?.backend, role: 'worker' },
    }));

    const hub = await eventually(
      async () => {
        const b = await client.get<BareMetalHost>(BARE_METAL_HOST, bmhName, ns);
        return b.metadata.annotations?.[CREATED] ? b : undefined;
      },
      { timeoutMs: 30_000, what: 'spoke-bmh-machine-created on the hub BMH' },
    );
    expect(Date.parse(hub.metadata.annotations?.[CREATED] ?? '')).not.toBeNaN();

    const spokeBmh = await client.get<BareMetalHost>(BARE_METAL_HOST, bmhName, MAPI_NS);
    expect(spokeBmh.metadata.annotations?.['inspect.metal3.io']).toBe('disabled');
    const details = JSON.parse(spokeBmh.metadata.annotations?.['inspect.metal3.io/hardwaredetails'] ?? '{}');
    expect(details.hostname).toBe(hostname);
    expect(details.nics.some((n: { mac: string }) => n.mac === mac)).toBe(true);
    expect(spokeBmh.spec.bootMACAddress).toBe(mac);
    expect(spokeBmh.spec.bmc).toEqual({ address: '', credentialsName: '' });
    expect(spokeBmh.spec.consumerRef).toEqual({
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'Machine',
      name: machineName,
      namespace: MAPI_NS,
    });

    const machine = await client.get<Machine>(MACHINE, machineName, MAPI_NS);
    expect(machine.metadata.annotations?.['metal3.io/BareMetalHost']).toBe(`${MAPI_NS}/${bmhName}`);
    expect(machine.metadata.labels).toEqual({
      'machine.openshift.io/cluster-api-cluster': cluster.name,
      'machine.openshift.io/cluster-api-machine-role': 'worker',
      'machine.openshift.io/cluster-api-machine-type': 'worker',
    });
    expect(machine.spec?.providerSpec?.value).toEqual({
      apiVersion: 'baremetal.cluster.k8s.io/v1alpha1',
      kind: 'BareMetalMachineProviderSpec',
      image: IMAGE,
    });

    // Another pass (an unrelated hub BMH change) writes nothing more. (The Agent's state is not
    // touched here: the Agent reconciler rewrites it from the host record, so a test write races.)
    // The barrier: a BMAC pass of the hub BMH that started after the label was in place is over;
    // then empty resourceVersion-guarded patches fail if the spoke objects moved.
    await client.patch(BARE_METAL_HOST, bmhName, ns, 'merge', { metadata: { labels: { touched: 'yes' } } });
    await eventually(
      async () =>
        op.ctx.mgr.informer<BareMetalHost>(BARE_METAL_HOST).get(ns, bmhName)?.metadata.labels?.touched,
      { what: 'second pass input in the operator cache' },
    );
    await passOf(op.ctx.mgr, 'bmac', `${ns}/${bmhName}`);
    const after = await client.get<BareMetalHost>(BARE_METAL_HOST, bmhName, ns);
    expect(after.metadata.annotations?.[CREATED]).toBe(hub.metadata.annotations?.[CREATED]);
    await patchIfUnchanged(client, BARE_METAL_HOST, spokeBmh, {});
    await patchIfUnchanged(client, MACHINE, machine, {});
  }, 90_000);
});
