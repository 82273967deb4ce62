import { describe, expect, it } from 'vitest';
import {
  apiKeyOf,
  goEncodeQuery,
  goQueryEscape,
  needsReissue,
  withApiKey,
} from '../../../src/auth/download-urls.ts';

describe('signed download URLs', () => {
  it("escape query values as Go does (space → +, !*'() escaped)", () => {
    expect(goQueryEscape("a b!*'()~-_.")).toBe('a+b%21%2A%27%28%29~-_.');
    expect(goQueryEscape('x/y:z')).toBe('x%2Fy%3Az');
  });

  it('encode the query with sorted keys, keeping repeated values in order', () => {
    const params = new URLSearchParams('z=1&a=2&m=3&a=1');
    expect(goEncodeQuery(params)).toBe('a=2&a=1&m=3&z=1');
  });

  it('add or replace api_key and re-sort the query', () => {
    const url = withApiKey(
      'http://svc:8090/api/assisted-install/v2/events?infra_env_id=x&api_key=old',
      'NEW',
    );
    expect(url).toBe('http://svc:8090/api/assisted-install/v2/events?api_key=NEW&infra_env_id=x');
    expect(apiKeyOf(url)).toBe('NEW');
    expect(apiKeyOf('not a url')).toBeUndefined();
  });

  it('need re-issuing within the head start or when the expiry is unknown', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(needsReissue(new Date('2026-01-01T00:10:01Z'), now, 600)).toBe(false);
    expect(needsReissue(new Date('2026-01-01T00:10:00Z'), now, 600)).toBe(true);
    expect(needsReissue(undefined, now, 600)).toBe(true);
  });
});
