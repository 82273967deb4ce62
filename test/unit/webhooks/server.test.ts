import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CertificateAuthority } from '../../../src/util/pki.ts';
import {
  startWebhookServer,
  type WebhookServer,
  watchCertificateFiles,
} from '../../../src/webhooks/server.ts';

let ca: CertificateAuthority;
let server: WebhookServer;
let dispatcher: Agent;

beforeAll(async () => {
  ca = await CertificateAuthority.create('webhook-test-ca');
  const cert = await ca.issue({
    commonName: 'webhook',
    dnsNames: ['localhost'],
    ipAddresses: ['127.0.0.1'],
    server: true,
  });
  server = await startWebhookServer({
    certPem: cert.certPem,
    keyPem: cert.keyPem,
    port: 0,
    host: '127.0.0.1',
  });
  dispatcher = new Agent({ connect: { ca: ca.certPem } });
});

afterAll(async () => {
  await dispatcher?.close();
  await server?.close();
});

async function call(path: string, body?: string, method = 'POST') {
  const res = await request(`https://127.0.0.1:${server.port}${path}`, {
    method: method as 'POST',
    body,
    headers: { 'content-type': 'application/json' },
    dispatcher,
  });
  const text = await res.body.text();
  return { status: res.statusCode, text, json: () => JSON.parse(text) };
}

const review = JSON.stringify({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: 'abc',
    kind: { group: 'agent-install.openshift.io', version: 'v1beta1', kind: 'Agent' },
    resource: { group: 'agent-install.openshift.io', version: 'v1beta1', resource: 'agents' },
    operation: 'CREATE',
    object: {
      metadata: { name: 'a' },
      spec: { role: '', approved: false, installation_disk_id: 'x', installation_disk_path: 'y' },
    },
  },
});

describe('webhook HTTPS server', () => {
  it('answers AdmissionReviews over TLS', async () => {
    const res = await call('/validate-agent', review);
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: {
        uid: 'abc',
        allowed: false,
        status: {
          status: 'Failure',
          code: 400,
          reason: 'BadRequest',
          message: 'Either InstallationDiskID or InstallationDiskPath can be set, not both.',
        },
      },
    });
  });

  it('returns 400 for bodies that are not AdmissionReviews, and keeps serving', async () => {
    expect(await call('/validate-agent', '{not json')).toMatchObject({
      status: 400,
      text: 'request body is not valid JSON',
    });
    expect(await call('/validate-agent', '')).toMatchObject({ status: 400 });
    expect(await call('/validate-agent', '{"kind":"Pod"}')).toMatchObject({
      status: 400,
      text: 'kind must be AdmissionReview',
    });
    expect((await call('/validate-agent', review)).status).toBe(200);
  });

  it('returns 404 for unknown paths, 405 for other methods, 200 on health probes', async () => {
    expect((await call('/validate-pods', review)).status).toBe(404);
    expect((await call('/validate-agent', undefined, 'GET')).status).toBe(405);
    expect(await call('/healthz', undefined, 'GET')).toMatchObject({ status: 200, text: 'ok' });
    expect(await call('/readyz', undefined, 'GET')).toMatchObject({ status: 200, text: 'ok' });
  });

  it('rejects oversized bodies with 413', async () => {
    const big = `{"x":"${'a'.repeat(9 * 1024 * 1024)}"}`;
    const res = await call('/validate-agent', big);
    expect(res.status).toBe(413);
  });

  it('rotates its certificate without restarting', async () => {
    const other = await CertificateAuthority.create('other-ca');
    const cert = await other.issue({ commonName: 'webhook', ipAddresses: ['127.0.0.1'], server: true });
    server.setCertificate(cert.certPem, cert.keyPem);
    const fresh = new Agent({ connect: { ca: other.certPem } });
    try {
      const res = await request(`https://127.0.0.1:${server.port}/healthz`, { dispatcher: fresh });
      expect(res.statusCode).toBe(200);
      await res.body.dump();
    } finally {
      await fresh.close();
    }
  });
});

describe('serving certificate rotation', () => {
  it('a certificate rewritten in the directory is served without a restart', async () => {
    const issue = (commonName: string) =>
      ca.issue({ commonName, dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], server: true });
    const first = await issue('first');
    const dir = await mkdtemp(join(tmpdir(), 'webhook-certs-'));
    await writeFile(join(dir, 'tls.crt'), first.certPem);
    await writeFile(join(dir, 'tls.key'), first.keyPem);
    const rotating = await startWebhookServer({
      certPem: first.certPem,
      keyPem: first.keyPem,
      port: 0,
      host: '127.0.0.1',
    });
    const watch = watchCertificateFiles(rotating, dir, first, { intervalMs: 50 });
    const servedName = () =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(
          { port: rotating.port, host: '127.0.0.1', ca: ca.certPem, servername: 'localhost' },
          () => {
            const cn = socket.getPeerCertificate().subject?.CN;
            socket.end();
            resolve(String(cn));
          },
        );
        socket.on('error', reject);
      });
    try {
      expect(await servedName()).toBe('first');
      const second = await issue('second');
      await writeFile(join(dir, 'tls.key'), second.keyPem);
      await writeFile(join(dir, 'tls.crt'), second.certPem);
      let served = 'first';
      for (let i = 0; i < 100 && served !== 'second'; i++) {
        await new Promise((r) => setTimeout(r, 50));
        served = await servedName();
      }
      expect(served).toBe('second');
    } finally {
      watch.stop();
      await rotating.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
