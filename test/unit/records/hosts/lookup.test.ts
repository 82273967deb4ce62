// Polls for a host id the cache does not know: the first one reads the API (the host may have just
// registered), then misses are answered from memory for a few seconds instead of one GET a poll.
import { describe, expect, it } from 'vitest';
import type { Agent, InfraEnv } from '../../../../src/api/index.ts';
import type { OperatorContext } from '../../../../src/records/context.ts';
import { findHost, forgetUnknownHost, UNKNOWN_HOST_TTL_MS } from '../../../../src/records/hosts/lookup.ts';

const IE_ID = '11111111-1111-4111-8111-111111111111';
const HOST = '55555555-5555-4555-8555-555555555555';
const infraEnv = {
  metadata: { name: 'ie', namespace: 'ns', uid: IE_ID },
  spec: {},
} as unknown as InfraEnv;

function fakeContext() {
  const state = { now: 1_000_000, gets: 0, live: undefined as Agent | undefined };
  const ctx = {
    now: () => new Date(state.now),
    infraEnvById: (id: string) => (id === IE_ID ? infraEnv : undefined),
    informers: { agents: { get: () => undefined } },
    client: {
      getIfExists: async () => {
        state.gets++;
        return state.live;
      },
    },
  } as unknown as OperatorContext;
  return { ctx, state };
}

describe('findHost for unknown host ids', () => {
  it('200 polls within the window cost one API read; the next window one more', async () => {
    const { ctx, state } = fakeContext();
    for (let i = 0; i < 200; i++) {
      const found = await findHost(ctx, IE_ID, HOST);
      expect(found.ok).toBe(false);
    }
    expect(state.gets).toBe(1);
    state.now += UNKNOWN_HOST_TTL_MS + 1;
    await findHost(ctx, IE_ID, HOST);
    expect(state.gets).toBe(2);
  });

  it('a registration in this process ends the window at once', async () => {
    const { ctx, state } = fakeContext();
    await findHost(ctx, IE_ID, HOST);
    state.live = {
      metadata: { name: HOST, namespace: 'ns', ownerReferences: [{ kind: 'InfraEnv', uid: IE_ID }] },
      spec: {},
      status: { backend: { infraEnvID: IE_ID } },
    } as unknown as Agent;
    forgetUnknownHost(ctx, 'ns', HOST);
    const found = await findHost(ctx, IE_ID, HOST);
    expect(found.ok).toBe(true);
    expect(state.gets).toBe(2);
  });
});
