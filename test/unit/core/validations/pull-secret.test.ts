import { describe, expect, it } from 'vitest';
import { pullSecretProblem } from '../../../../src/core/validations/pull-secret.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const withAuth = (auth: unknown) => JSON.stringify({ auths: { 'quay.io': { auth } } });

describe('pullSecretProblem', () => {
  it.each([
    ['a valid secret', withAuth(b64('user:pass')), undefined],
    ['a password holding colons', withAuth(b64('user:pa:ss')), undefined],
    ['surrounding whitespace', `  ${withAuth(b64('u:p'))}\n`, undefined],
    [
      'an email next to auth',
      JSON.stringify({ auths: { r: { auth: b64('u:p'), email: 'a@b.c' } } }),
      undefined,
    ],
    ['a case-insensitive auths key', JSON.stringify({ Auths: { r: { auth: b64('u:p') } } }), undefined],
    ['not JSON', 'garbage', 'pull secret must be a well-formed JSON'],
    ['an empty value', '', 'pull secret must be a well-formed JSON'],
    ['a JSON array', '[]', 'pull secret must be a well-formed JSON'],
    ['auths as an array', '{"auths":[]}', 'pull secret must be a well-formed JSON'],
    ['an entry that is a string', '{"auths":{"r":"x"}}', 'pull secret must be a well-formed JSON'],
    ['no auths', '{}', "pull secret must contain 'auths' JSON-object field"],
    ['null', 'null', "pull secret must contain 'auths' JSON-object field"],
    ['empty auths', '{"auths":{}}', "pull secret must contain 'auths' JSON-object field"],
    [
      'an entry without auth or credsStore',
      '{"auths":{"quay.io":{"email":"a@b.c"}}}',
      `invalid pull secret: "quay.io" JSON-object requires either 'auth' or 'credsStore' field`,
    ],
    [
      'a numeric auth',
      withAuth(42),
      `invalid pull secret: 'auth' field of "quay.io" is 42 but should be a string`,
    ],
    [
      'an object auth (not printed)',
      withAuth({ secret: 'x' }),
      `invalid pull secret: 'auth' field of "quay.io" is map[...] but should be a string`,
    ],
    [
      'auth that is not base64',
      withAuth('not base64!'),
      `invalid pull secret: 'auth' field of "quay.io" is not base64-encoded`,
    ],
    [
      'unpadded base64',
      withAuth('dXNlcjpwYXNzCg'),
      `invalid pull secret: 'auth' field of "quay.io" is not base64-encoded`,
    ],
    [
      'auth without a colon',
      withAuth(b64('userpass')),
      `invalid pull secret: 'auth' for quay.io is not in 'user:password' format`,
    ],
    [
      'credsStore only (no credentials to split)',
      '{"auths":{"quay.io":{"credsStore":"x"}}}',
      `invalid pull secret: 'auth' for quay.io is not in 'user:password' format`,
    ],
  ])('%s', (_name, text, expected) => {
    expect(pullSecretProblem(text)).toBe(expected);
  });

  it('never repeats the secret in its message', () => {
    const message = pullSecretProblem(withAuth({ token: 'hunter2' })) ?? '';
    expect(message).not.toContain('hunter2');
  });
});
