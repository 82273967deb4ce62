// The local control plane picks free loopback ports, but an outgoing connection can take one (the
// kernel hands out the same ephemeral range) before etcd or kube-apiserver binds it; a benchmark's
// plane once failed to start that way. It now starts again on new ports. Runs its own plane.

import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ControlPlane, lostPortRace } from '../../../src/dev/controlplane.ts';
import { freePort } from '../../../src/dev/ports.ts';

describe('local control plane start-up', () => {
  it('starts again on new ports when the API server port was taken before it bound it', async () => {
    const squatter = createServer();
    await new Promise<void>((r) => squatter.listen(0, '127.0.0.1', r));
    const taken = (squatter.address() as AddressInfo).port;
    const given: number[] = [];
    const pickPort = async () => {
      // The first port asked for is the API server's.
      const port = given.length === 0 ? taken : await freePort();
      given.push(port);
      return port;
    };
    let plane: ControlPlane | undefined;
    try {
      plane = await ControlPlane.start({ pickPort });
      expect(given.length).toBe(6);
      expect(plane.server).not.toBe(`https://127.0.0.1:${taken}`);
      expect(plane.server).toBe(`https://127.0.0.1:${given[3]}`);
      expect(await plane.isReady()).toBe(true);
      expect(await lostPortRace(plane.dir)).toBe(false);
    } finally {
      await plane?.stop();
      squatter.close();
    }
  });
});
