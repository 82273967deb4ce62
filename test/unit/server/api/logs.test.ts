// Log upload (multipart `upfile`, streamed) and download through the signed logsURL.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { fail } from '../../../../src/server/api/index.ts';
import {
  API,
  CLUSTER_1,
  CLUSTER_2,
  call,
  callsTo,
  expectErrorShape,
  expectInfraErrorShape,
  HOST_A1,
  IE_A,
  startTestServer,
  type TestServer,
} from './helpers.ts';

let t: TestServer;
afterEach(async () => {
  await t.close();
});

const UPLOAD = `${API}/clusters/${CLUSTER_1}/logs`;

/** What go-openapi sends: one file part, maybe other fields around it. */
function multipartBody(boundary: string, file: Buffer, extra = true): Buffer {
  const parts: Buffer[] = [Buffer.from('preamble to ignore\r\n')];
  if (extra) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n`));
  }
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="upfile"; filename="host_logs.tar.gz"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    ),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return Buffer.concat(parts);
}

function chunked(data: Buffer, size: number): Readable {
  const chunks: Buffer[] = [];
  for (let i = 0; i < data.length; i += size) chunks.push(data.subarray(i, i + size));
  return Readable.from(chunks);
}

describe('POST /v2/clusters/{id}/logs', () => {
  it('streams the upfile part to the backend byte for byte → 204', async () => {
    t = await startTestServer();
    // Content that looks like delimiters must survive (a real one, CRLF "--" boundary, never
    // stands in a part: RFC 2046 §5.1.1, and go-openapi picks a random boundary).
    const file = Buffer.concat([
      randomBytes(100_000),
      Buffer.from('\r\n--BOUNDAR\r\n-BOUNDARY--BOUNDARY\r\n--'),
      randomBytes(5000),
    ]);
    const boundary = 'BOUNDARY';
    const reply = await call(t, 'POST', `${UPLOAD}?logs_type=host&infra_env_id=${IE_A}&host_id=${HOST_A1}`, {
      rawBody: chunked(multipartBody(boundary, file), 997),
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    expect(reply.status, reply.text).toBe(204);
    expect(t.uploaded[0]?.equals(file)).toBe(true);
    const input = callsTo(t, 'uploadLogs')[0]?.args[1] as Record<string, unknown>;
    expect(input).toMatchObject({
      clusterId: CLUSTER_1,
      logsType: 'host',
      infraEnvId: IE_A,
      hostId: HOST_A1,
      file: { fileName: 'host_logs.tar.gz', contentType: 'application/octet-stream' },
    });
  });

  it('controller logs need no host ids', async () => {
    t = await startTestServer();
    const reply = await call(t, 'POST', `${UPLOAD}?logs_type=controller`, {
      rawBody: multipartBody('b', Buffer.from('tarball'), false),
      headers: { 'content-type': 'multipart/form-data; boundary="b"' },
    });
    expect(reply.status).toBe(204);
    expect(t.uploaded[0]?.toString()).toBe('tarball');
  });

  it('validates the query and the body form', async () => {
    t = await startTestServer();
    const headers = { 'content-type': 'multipart/form-data; boundary=b' };
    const noType = await call(t, 'POST', UPLOAD, { rawBody: multipartBody('b', Buffer.from('x')), headers });
    expect(expectErrorShape(noType, 400).reason).toBe('logs_type in query is required');
    const hostless = await call(t, 'POST', `${UPLOAD}?logs_type=host`, {
      rawBody: multipartBody('b', Buffer.from('x')),
      headers,
    });
    expect(expectErrorShape(hostless, 400).reason).toBe(
      'infra_env_id and host_id in query are required when logs_type is host',
    );
    const json = await call(t, 'POST', `${UPLOAD}?logs_type=controller`, { body: { not: 'multipart' } });
    expect(expectErrorShape(json, 400).reason).toBe(
      'request body must be multipart/form-data with a boundary',
    );
    const noFile = await call(t, 'POST', `${UPLOAD}?logs_type=controller`, {
      rawBody: '--b\r\nContent-Disposition: form-data; name="other"\r\n\r\nx\r\n--b--\r\n',
      headers,
    });
    expect(expectErrorShape(noFile, 400).reason).toBe('upfile in formData is required');
    const truncated = await call(t, 'POST', `${UPLOAD}?logs_type=controller`, {
      rawBody: '--b\r\nContent-Disposition: form-data; name="upfile"; filename="x"\r\n\r\npartial data',
      headers,
    });
    expect(expectErrorShape(truncated, 400).reason).toBe('multipart body ended inside a part');
  });

  it('413 when the upload is over the limit, declared or streamed', async () => {
    t = await startTestServer({ limits: { logsUploadBytes: 4096 } });
    const headers = { 'content-type': 'multipart/form-data; boundary=b' };
    const declared = await call(t, 'POST', `${UPLOAD}?logs_type=controller`, {
      rawBody: multipartBody('b', Buffer.alloc(8192)),
      headers,
    });
    expectErrorShape(declared, 413);
    expect(callsTo(t, 'uploadLogs')).toEqual([]);
    // Chunked: the backend is already reading when the limit is crossed; the rest of the body is
    // drained so the client still reads a clean 413.
    const streamed = await call(t, 'POST', `${UPLOAD}?logs_type=controller`, {
      rawBody: chunked(multipartBody('b', Buffer.alloc(8192)), 512),
      headers,
    });
    expectErrorShape(streamed, 413);
    // The connection stays usable.
    expect((await call(t, 'GET', `${API}/clusters/${CLUSTER_1}`)).status).toBe(200);
    expect(t.uploaded).toEqual([]);
  });

  it('answers the backend’s refusal even when it never read the upload', async () => {
    t = await startTestServer({
      overrides: { uploadLogs: async () => fail(409, 'cluster is not installing') },
    });
    const reply = await call(t, 'POST', `${UPLOAD}?logs_type=controller`, {
      rawBody: chunked(multipartBody('b', randomBytes(300_000)), 4096),
      headers: { 'content-type': 'multipart/form-data; boundary=b' },
    });
    expect(expectErrorShape(reply, 409).reason).toBe('cluster is not installing');
    expect((await call(t, 'GET', `${API}/clusters/${CLUSTER_1}`)).status).toBe(200);
  });

  it('a token whose infra-env is not in the cluster → 403, body never read', async () => {
    t = await startTestServer();
    const reply = await call(t, 'POST', `${API}/clusters/${CLUSTER_2}/logs?logs_type=controller`, {
      rawBody: multipartBody('b', Buffer.from('x')),
      headers: { 'content-type': 'multipart/form-data; boundary=b' },
    });
    expectInfraErrorShape(reply, 403);
    expect(callsTo(t, 'uploadLogs')).toEqual([]);
  });
});

describe('GET /v2/clusters/{id}/logs (debugInfo.logsURL)', () => {
  it('serves logs with a cluster-logs api_key for that cluster', async () => {
    t = await startTestServer();
    const { url } = t.auth.issueDownloadUrl(
      `${t.base}${UPLOAD}?host_id=${HOST_A1}&logs_type=host`,
      'cluster-logs',
      { kind: 'cluster', id: CLUSTER_1 },
    );
    const reply = await call(t, 'GET', url.slice(t.base.length), { token: null });
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/octet-stream');
    expect(reply.text).toBe('logs');
    expect(callsTo(t, 'downloadClusterLogs')[0]?.args[1]).toEqual({
      clusterId: CLUSTER_1,
      logsType: 'host',
      hostId: HOST_A1,
    });
  });

  it('refuses other kinds, other clusters and expired tokens', async () => {
    let now = new Date('2026-01-01T00:00:00Z');
    t = await startTestServer({ now: () => now });
    const events = t.auth.issueUrlToken('events', { kind: 'cluster', id: CLUSTER_1 }).token;
    const wrongKind = await call(t, 'GET', `${UPLOAD}?api_key=${events}`, { token: null });
    expect(expectInfraErrorShape(wrongKind, 404).message).toBe('Object Not Found');
    const logs = t.auth.issueUrlToken('cluster-logs', { kind: 'cluster', id: CLUSTER_1 }).token;
    const otherCluster = await call(t, 'GET', `${API}/clusters/${CLUSTER_2}/logs?api_key=${logs}`, {
      token: null,
    });
    expect(expectInfraErrorShape(otherCluster, 404).message).toBe('Object Not Found');
    now = new Date('2026-02-01T00:00:00Z');
    const expired = await call(t, 'GET', `${UPLOAD}?api_key=${logs}`, { token: null });
    expect(expectInfraErrorShape(expired, 401).message).toMatch(/token is expired/);
    expect(callsTo(t, 'downloadClusterLogs')).toEqual([]);
    expect(t.authFailures.map((e) => e.status)).toEqual([404, 404, 401]);
  });
});
