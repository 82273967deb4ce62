// What the operator's informers do to an object before caching it: Secrets' values never enter
// the process-wide string pool (they would outlive the Secret there); the fleet's kinds share
// their repeated strings through it.
import { describe, expect, it } from 'vitest';
import { operatorCacheOptions } from '../../../src/records/context.ts';
import { AGENT, CONFIG_MAP, SECRET } from '../../../src/records/resources.ts';
import {
  type ApiResource,
  cacheStringPool,
  compactForCache,
  type KubeObject,
} from '../../../src/runtime/index.ts';

function transformOf(resource: ApiResource): (obj: KubeObject) => KubeObject {
  return operatorCacheOptions().find((o) => o.resource === resource)?.transform ?? compactForCache;
}

const object = (value: string) =>
  ({ metadata: { name: 'o', namespace: 'ns' }, data: { key: value } }) as KubeObject;

describe('operatorCacheOptions transforms', () => {
  it("keeps a Secret's values out of the string pool", () => {
    const secret = `c2VjcmV0LXZhbHVl-${Math.random()}`;
    expect(transformOf(SECRET)(object(secret))).toEqual(object(secret));
    expect(cacheStringPool.has(secret)).toBe(false);
  });

  it('pools the strings of the other kinds', () => {
    const value = `plain-${Math.random()}`;
    transformOf(CONFIG_MAP)(object(value));
    expect(cacheStringPool.has(value)).toBe(true);
    const agentValue = `agent-${Math.random()}`;
    transformOf(AGENT)(object(agentValue));
    expect(cacheStringPool.has(agentValue)).toBe(true);
  });
});
