// The plain kubeconfig loader must hand the client the same TLS options and Authorization header as
// @kubernetes/client-node does for the same file, and leave anything else to client-node.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { inCluster, loadKubeConfig } from '../../../src/runtime/kubeconfig.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kubeconfig-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function doc(cluster: Record<string, unknown>, user: Record<string, unknown>): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'c',
    contexts: [
      { name: 'other', context: { cluster: 'x', user: 'x' } },
      { name: 'c', context: { cluster: 'k', user: 'u' } },
    ],
    clusters: [
      { name: 'x', cluster: { server: 'https://wrong:1' } },
      { name: 'k', cluster },
    ],
    users: [{ name: 'u', user }],
  });
}

async function options(kc: {
  applyToHTTPSOptions(o: object): Promise<void>;
}): Promise<Record<string, unknown>> {
  const o: Record<string, unknown> = { headers: {} };
  await kc.applyToHTTPSOptions(o);
  return o;
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('loadKubeConfig', () => {
  it.each([
    [
      'client certificate data and CA data',
      { server: 'https://api:6443', 'certificate-authority-data': b64('CA') },
      { 'client-certificate-data': b64('CERT'), 'client-key-data': b64('KEY') },
    ],
    [
      'CA file, token, insecure, server name',
      {
        server: 'https://api:6443',
        'certificate-authority': 'ca.crt',
        'insecure-skip-tls-verify': true,
        'tls-server-name': 'kube',
      },
      { token: 'abc' },
    ],
  ])('%s: the same options as client-node', async (_name, cluster, user) => {
    await writeFile(join(dir, 'ca.crt'), 'CAFILE');
    await writeFile(join(dir, 'token'), 'from-file');
    const path = join(dir, 'config');
    await writeFile(path, doc(cluster, user));
    const plain = loadKubeConfig(path);
    expect(plain).not.toBeInstanceOf(KubeConfig);
    const reference = new KubeConfig();
    reference.loadFromFile(path);
    expect(plain.getCurrentCluster()?.server).toBe(reference.getCurrentCluster()?.server);
    const [got, want] = [await options(plain), await options(reference)];
    for (const k of ['ca', 'cert', 'key', 'rejectUnauthorized', 'servername'])
      expect(got[k], k).toEqual(want[k]);
    expect(got.headers).toEqual(want.headers);
  });

  it('leaves exec plugins and the like to client-node', async () => {
    const path = join(dir, 'exec');
    await writeFile(
      path,
      doc(
        { server: 'https://api:6443' },
        { exec: { command: 'true', apiVersion: 'client.authentication.k8s.io/v1' }, tokenFile: 'token' },
      ),
    );
    expect(loadKubeConfig(path)).toBeInstanceOf(KubeConfig);
  });

  it('in a pod: the service account, the token re-read on each use', async () => {
    const sa = join(dir, 'sa');
    await rm(sa, { recursive: true, force: true });
    await import('node:fs/promises').then((fs) => fs.mkdir(sa));
    await writeFile(join(sa, 'ca.crt'), 'SACA');
    await writeFile(join(sa, 'token'), 't1');
    const env = { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443', HOME: dir };
    const kc = loadKubeConfig(undefined, env, sa);
    expect(kc.getCurrentCluster()?.server).toBe('https://[fd00::1]:443');
    expect(await options(kc)).toMatchObject({
      ca: Buffer.from('SACA'),
      headers: { Authorization: 'Bearer t1' },
    });
    await writeFile(join(sa, 'token'), 't2');
    expect(await options(kc)).toMatchObject({ headers: { Authorization: 'Bearer t2' } });
    expect(
      inCluster(
        { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '8080' },
        sa,
      ).getCurrentCluster()?.server,
    ).toBe('http://10.0.0.1:8080');
  });
});
