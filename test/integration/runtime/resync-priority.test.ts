// After a start or a failover every object of a kind is listed and reconciled once: at 10,000
// clusters that pass takes minutes. A change that arrives meanwhile (a host's step reply, a user's
// edit) must not wait for the whole pass: objects of the informer's list go in at low priority.
// Here one worker reconciles 200 listed ConfigMaps at 5 ms of work each, and a ConfigMap created
// once the pass has begun must be reconciled long before the pass ends (it used to be last).
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigMapResource } from '../../../src/runtime/types.ts';
import { eventually, newNamespace } from '../../harness/env.ts';
import { adminClient, configMap, namespaceManager } from './helpers.ts';

const LISTED = 200;
const admin = adminClient();
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c().catch(() => undefined);
});

describe('resync priority', () => {
  it("reconciles a change that arrives during the initial pass ahead of the pass's backlog", async () => {
    const ns = await newNamespace('rt-prio');
    for (let i = 0; i < LISTED; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, j) =>
          admin.create(ConfigMapResource, configMap(ns, `listed-${i + j}`)),
        ),
      );
    }
    const mgr = namespaceManager(ns, {
      healthProbeAddress: { host: '127.0.0.1', port: 0 },
      metricsAddress: { host: '127.0.0.1', port: 0 },
    });
    const reconciled: string[] = [];
    mgr
      .controller('configmaps')
      .for(ConfigMapResource)
      .withWorkers(1)
      .complete(async (req) => {
        reconciled.push(req.name);
        await sleep(5); // the reconcile's own work: the pass lasts about a second
      });
    const running = mgr.start();
    cleanups.push(async () => {
      await mgr.stop();
      await running;
    });
    await eventually(async () => reconciled.length > 0, { what: 'the pass to begin' });
    await admin.create(ConfigMapResource, configMap(ns, 'late'));
    await eventually(async () => reconciled.includes('late'), { what: 'the late ConfigMap' });
    const listedBefore = reconciled.indexOf('late');
    // Without priorities it is reconciled after every listed one (index LISTED or more).
    expect(listedBefore).toBeLessThan(LISTED / 2);
    await eventually(async () => reconciled.length >= LISTED + 1, { what: 'the whole pass' });
  });
});
