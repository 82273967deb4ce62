// The operator's logger keeps credentials out of every line (issue 13, item 5): one row per place a
// secret can hide — a known key, a message, an error, a URL, a path — checked on the written line.
import { describe, expect, it } from 'vitest';
import { createLogger, REDACTED, scrubSecrets } from '../../../src/runtime/index.ts';

const JWT =
  'eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9.eyJpbmZyYV9lbnZfaWQiOiIxMjMifQ.MEUCIQDx3v1Y2k9o0s7d8f9g0h1j2k3l4m5n6o7p8q9r';
const PULL_AUTH = 'ZGVtbzpkZW1vX3NlY3JldA==';
const PEM = '-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkey\n-----END EC PRIVATE KEY-----';
const KEY_DATA = 'LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQ==';
const PASSWORD = 'AbCdE-fGhIj-KlMnO-pQrSt';

type Log = (log: ReturnType<typeof createLogger>) => void;
const rows: { name: string; secret: string; write: Log }[] = [
  { name: 'token key', secret: JWT, write: (l) => l.info({ token: JWT }, 'x') },
  {
    name: 'X-Secret-Key header',
    secret: JWT,
    write: (l) => l.info({ req: { headers: { 'x-secret-key': JWT } } }, 'x'),
  },
  { name: 'JWT in a message', secret: JWT, write: (l) => l.debug(`calling with ${JWT}`) },
  {
    name: 'api_key in a URL',
    secret: 'opaque-forged-token',
    write: (l) =>
      l.warn({ url: 'http://h/v2/infra-envs/1/downloads/files?api_key=opaque-forged-token&x=1' }, 'x'),
  },
  {
    name: '/byapikey/ path token',
    secret: 'not-even-a-jwt',
    write: (l) => l.debug({ path: '/images/byapikey/not-even-a-jwt/4.18/x86_64/full.iso' }, 'request'),
  },
  { name: 'JWT in an error', secret: JWT, write: (l) => l.error({ err: new Error(`bad ${JWT}`) }, 'failed') },
  {
    name: 'pull secret object',
    secret: PULL_AUTH,
    write: (l) => l.info({ secret: { '.dockerconfigjson': `{"auths":{"r":{"auth":"${PULL_AUTH}"}}}` } }, 'x'),
  },
  {
    name: 'pull secret JSON in a message',
    secret: PULL_AUTH,
    write: (l) => l.info(`parse {"auths":{"r":{"auth":"${PULL_AUTH}"}}} failed`),
  },
  { name: 'private key PEM', secret: 'MHcCAQEEIBkey', write: (l) => l.warn({ detail: PEM }, 'x') },
  {
    name: 'kubeconfig in an error',
    secret: KEY_DATA,
    write: (l) => l.error({ err: new Error(`bad yaml:\n  client-key-data: ${KEY_DATA}\n`) }, 'x'),
  },
  { name: 'password key', secret: PASSWORD, write: (l) => l.info({ creds: { password: PASSWORD } }, 'x') },
  { name: 'kubeconfig key', secret: KEY_DATA, write: (l) => l.info({ kubeconfig: KEY_DATA }, 'x') },
  // Shapes the scrubbing destination does not know: only the key-based redaction catches these.
  {
    name: 'authorization header at the top level',
    secret: 'opaque-bearer-value',
    write: (l) => l.info({ headers: { authorization: 'Bearer opaque-bearer-value' } }, 'x'),
  },
  {
    name: 'password in child bindings',
    secret: PASSWORD,
    write: (l) => l.child({ password: PASSWORD }).info('x'),
  },
  {
    name: 'api key on an error object',
    secret: 'opaque-api-key',
    write: (l) => l.error({ err: Object.assign(new Error('failed'), { apiKey: 'opaque-api-key' }) }, 'x'),
  },
];

describe('createLogger', () => {
  it.each(rows)('keeps the secret out of the line: $name', ({ secret, write }) => {
    const lines: string[] = [];
    const log = createLogger({ level: 'trace', destination: { write: (line: string) => lines.push(line) } });
    write(log);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain(secret);
    expect(lines[0]).toContain(REDACTED);
  });

  it('keeps an error an error and leaves the logged object untouched', () => {
    const lines: string[] = [];
    const log = createLogger({ destination: { write: (line: string) => lines.push(line) } });
    const err = Object.assign(new Error('boom', { cause: new Error('root') }), { token: 'opaque', code: 7 });
    const fields = { err, nested: { password: 'p' } };
    log.error(fields, 'failed');
    const line = JSON.parse(lines[0]!) as { err: Record<string, unknown>; nested: unknown };
    expect(line.err).toMatchObject({ type: 'Error', message: 'boom: root', token: REDACTED, code: 7 });
    expect(String(line.err.stack)).toContain('boom');
    expect(line.nested).toEqual({ password: REDACTED });
    expect(err.token).toBe('opaque');
    expect(fields.nested.password).toBe('p');
  });

  it('redacts two levels down only under headers, as before', () => {
    const lines: string[] = [];
    const log = createLogger({ destination: { write: (line: string) => lines.push(line) } });
    log.info({ req: { headers: { 'x-secret-key': 'k' }, body: { token: 'deep' } } }, 'x');
    expect(JSON.parse(lines[0]!)).toMatchObject({
      req: { headers: { 'x-secret-key': REDACTED }, body: { token: 'deep' } },
    });
  });

  it('leaves ordinary text alone', () => {
    const text = 'Failed to parse token: token is malformed; host 1234 at /v2/infra-envs/x/hosts';
    expect(scrubSecrets(text)).toBe(text);
  });
});
