// User input the backend refuses, on the real API server with the operator in-process (issue 14
// item 5): each bad value reaches the condition upstream reports it in, with upstream's message,
// and oversized values are refused by the CRD schema before anything stores them.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InfraEnv } from '../../../src/api/index.ts';
import { AGENT, INFRA_ENV } from '../../../src/records/resources.ts';
import { ApiError } from '../../../src/runtime/index.ts';
import { eventually, newNamespace } from '../../harness/env.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import {
  clusterDeploymentObject,
  createCluster,
  createImageSet,
  createPullSecret,
  eventuallySpecSynced,
  snoAciObject,
} from '../cluster/harness.ts';
import { adminClient, call, condition, createInfraEnv, waitForAgent } from '../hosts/helpers.ts';
import { setTestOsImage } from '../infraenv/fixtures.ts';

// An OS image entry no other suite uses (the URL is never fetched to write status).
const OS_IMAGE = { cpuArchitecture: 'ppc64le', openshiftVersion: '4.14', version: '414.92.202401010000-0' };
const OS_URL = 'http://127.0.0.1:9/rhcos-ppc64le-4.14.iso';

const client = adminClient();
let op: TestOperator;
let ns: string;

beforeAll(async () => {
  ns = await newNamespace('input');
  op = await startTestOperator({ namespace: ns });
  await setTestOsImage(client, OS_URL, true, OS_IMAGE);
});

afterAll(async () => {
  await setTestOsImage(client, OS_URL, false, OS_IMAGE).catch(() => {});
  await op?.stop();
  await client.close();
});

async function imageCreated(name: string, spec: Partial<InfraEnv['spec']>) {
  await createInfraEnv(client, ns, name, {
    cpuArchitecture: 'ppc64le',
    osImageVersion: OS_IMAGE.openshiftVersion,
    ...spec,
  });
  return eventually(
    async () => {
      const ie = await client.get<InfraEnv>(INFRA_ENV, name, ns);
      const c = ie.status?.conditions?.find((x) => x.type === 'ImageCreated');
      return c?.reason === 'ImageCreationError' || c?.status === 'True' ? { ie, c } : undefined;
    },
    { what: `ImageCreated on ${name}` },
  );
}

/** The 422 the API server answers for a create the schema refuses. */
async function schemaRefusal(create: () => Promise<unknown>): Promise<string> {
  try {
    await create();
  } catch (err) {
    if (err instanceof ApiError && err.statusCode === 422) return err.status?.message ?? '';
    throw err;
  }
  throw new Error('expected the API server to refuse the object');
}

describe('InfraEnv input checks (ImageCreated, as the backend reports a 400)', () => {
  it('refuses an SSH key that is not a key', async () => {
    const { ie, c } = await imageCreated('bad-ssh', { sshAuthorizedKey: 'not a key' });
    expect(c).toMatchObject({
      status: 'False',
      reason: 'ImageCreationError',
      message:
        'Failed to create image: SSH key: not a key does not match any supported type: ssh-rsa, ssh-ed25519, ecdsa-[VARIANT]',
    });
    expect(ie.status?.isoDownloadURL).toBeUndefined();
  });

  it('refuses NTP sources that are not host names or addresses', async () => {
    const { c } = await imageCreated('bad-ntp', { additionalNTPSources: ['pool.ntp.org', 'not a host!'] });
    expect(c?.message).toBe('Failed to create image: Invalid NTP source: pool.ntp.org,not a host!');
  });

  it('refuses proxy URLs that are not http URLs, and bad no-proxy lists', async () => {
    const { c } = await imageCreated('bad-proxy', { proxy: { httpProxy: 'ftp://proxy.example.com' } });
    expect(c?.message).toBe(
      "Failed to create image: Failed to validate HTTP Proxy: The URL scheme must be http and specified in the URL: 'ftp://proxy.example.com'",
    );
    const noProxy = await imageCreated('bad-no-proxy', {
      proxy: { httpProxy: 'http://proxy.example.com:3128', noProxy: 'example.com,not valid' },
    });
    expect(noProxy.c?.message).toMatch(
      /^Failed to create image: NO Proxy format is not valid: 'example.com,not valid'/,
    );
  });

  it('accepts good values (a known-good InfraEnv still gets its ISO URL)', async () => {
    const { ie, c } = await imageCreated('good', {
      additionalNTPSources: ['pool.ntp.org', '10.0.0.1'],
      proxy: { httpProxy: 'http://proxy.example.com:3128', noProxy: '.example.com,10.0.0.0/8' },
      sshAuthorizedKey:
        'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDemoDemoDemoDemoDemoDemoDemoDemoDemoDemoDem demo@example.com\n',
    });
    expect(c).toMatchObject({ status: 'True', reason: 'InfraEnvAvailable' });
    expect(ie.status?.isoDownloadURL).toMatch(/^http/);
  });

  it('refuses a 1 MB SSH key and 20,000 NTP sources in the schema', async () => {
    const huge = await schemaRefusal(() =>
      createInfraEnv(client, ns, 'huge-key', { sshAuthorizedKey: `ssh-rsa ${'A'.repeat(1 << 20)}` }),
    );
    expect(huge).toContain('spec.sshAuthorizedKey: Too long');
    const many = await schemaRefusal(() =>
      createInfraEnv(client, ns, 'many-ntp', {
        additionalNTPSources: Array.from({ length: 20_000 }, (_, i) => `ntp${i}.example.com`),
      }),
    );
    expect(many).toContain('spec.additionalNTPSources: Too many');
  });
});

describe('AgentClusterInstall input checks (SpecSynced InputError)', () => {
  it('refuses a bad base domain, cluster name and SSH key with the backend message', async () => {
    await createPullSecret(client, ns);
    const imageSet = await createImageSet(client);
    await createCluster(
      client,
      clusterDeploymentObject(ns, 'bad-domain', { baseDomain: '-bad_domain..com' }),
      snoAciObject(ns, 'bad-domain', imageSet),
    );
    const aci = await eventuallySpecSynced(client, ns, 'bad-domain', 'DNS format mismatch', 30_000);
    expect(aci.status?.conditions?.find((c) => c.type === 'SpecSynced')).toMatchObject({
      status: 'False',
      reason: 'InputError',
    });
    expect(aci.status?.conditions?.find((c) => c.type === 'SpecSynced')?.message).toMatch(
      /^The Spec could not be synced due to an input error: DNS format mismatch: -bad_domain\.\.com domain name is not valid\./,
    );

    await createCluster(
      client,
      clusterDeploymentObject(ns, 'bad-key', { clusterName: 'Bad_Name' }),
      snoAciObject(ns, 'bad-key', imageSet, { sshPublicKey: 'ssh-rsa not-a-key' }),
    );
    // The name is checked first, as the backend does when it registers the cluster.
    await eventuallySpecSynced(
      client,
      ns,
      'bad-key',
      "The Spec could not be synced due to an input error: Cluster name format is not valid: 'Bad_Name'.",
      30_000,
    );

    await createCluster(
      client,
      clusterDeploymentObject(ns, 'bad-ssh'),
      snoAciObject(ns, 'bad-ssh', imageSet, { sshPublicKey: 'ssh-rsa not-a-key' }),
    );
    await eventuallySpecSynced(
      client,
      ns,
      'bad-ssh',
      'The Spec could not be synced due to an input error: SSH key: ssh-rsa not-a-key does not match any supported type',
      30_000,
    );
  });
});

describe('Agent input checks (SpecSynced InputError)', () => {
  it('refuses role superuser and a bad hostname instead of reporting SyncOK', async () => {
    const ie = await createInfraEnv(client, ns, 'hosts', {});
    await eventually(async () => op.ctx.infraEnvById(ie.metadata.uid ?? ''), { what: 'InfraEnv in cache' });
    const token = op.server.auth.issueAgentToken({ kind: 'infra-env', id: ie.metadata.uid ?? '' });
    const hostId = randomUUID();
    const reply = await call(op.baseUrl, 'POST', `/v2/infra-envs/${ie.metadata.uid}/hosts`, {
      token,
      body: { host_id: hostId, discovery_agent_version: op.ctx.settings.agentImage },
    });
    expect(reply.status, reply.text).toBe(201);
    await waitForAgent(client, ns, hostId, (a) => condition(a, 'SpecSynced')?.reason === 'SyncOK', 'SyncOK');

    // A merge patch: a get-then-replace races the operator's own writes to the Agent (409).
    await client.patch(AGENT, hostId, ns, 'merge', { spec: { role: 'superuser' } });
    const refused = await waitForAgent(
      client,
      ns,
      hostId,
      (a) => condition(a, 'SpecSynced')?.reason === 'InputError',
      'SpecSynced InputError',
    );
    expect(condition(refused, 'SpecSynced')?.message).toBe(
      `The Spec could not be synced due to an input error: Requested role (superuser) is invalid for host ${hostId} from infraEnv ${ie.metadata.uid}`,
    );

    refused.spec.role = '';
    refused.spec.hostname = 'Not_A_Hostname';
    await client.replace(AGENT, refused);
    const badName = await waitForAgent(
      client,
      ns,
      hostId,
      (a) =>
        condition(a, 'SpecSynced')?.message?.includes('Hostname does not pass required regex validation') ===
        true,
      'hostname refused',
    );
    expect(condition(badName, 'SpecSynced')?.message).toMatch(/Hostname: Not_A_Hostname$/);
  });
});
