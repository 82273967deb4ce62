// Leader election between real processes: each candidate is a child process running a Manager with
// one controller; they report when they lead and every reconcile interval. A writer keeps objects
// changing so a leader is always busy. Lease 4 s, renew deadline 3 s, retry 0.5 s.
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { type Lease, LeaseResource } from '../../../src/runtime/index.ts';
import { ConfigMapResource } from '../../../src/runtime/types.ts';
import { eventually, kubeconfigPath, newNamespace } from '../../harness/env.ts';
import { adminClient, configMap } from './helpers.ts';

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'leader-child.ts');
const LEASE_MS = 4000;
const RETRY_MS = 500;

interface Report {
  event: 'started' | 'leading' | 'reconcile' | 'stopped' | 'failed';
  identity: string;
  at: number;
  start?: number;
  end?: number;
}

const reports: Report[] = [];
const children = new Map<string, ChildProcess>();
const admin = adminClient();

function spawnCandidate(namespace: string, identity: string): ChildProcess {
  const child = spawn(
    process.execPath,
    [FIXTURE, kubeconfigPath(), namespace, 'runtime-leader-test', identity],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (line.startsWith('{')) reports.push(JSON.parse(line) as Report);
  });
  children.set(identity, child);
  return child;
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((r) => child.once('exit', (code) => r(code)));
}

const leadings = () => reports.filter((r) => r.event === 'leading');
const reconcilesOf = (id: string) => reports.filter((r) => r.event === 'reconcile' && r.identity === id);

/** True if any reconcile of one identity overlaps a reconcile of another. */
function overlapping(): string | undefined {
  const rs = reports.filter((r) => r.event === 'reconcile');
  for (const a of rs) {
    for (const b of rs) {
      if (a.identity < b.identity && a.start! < b.end! && b.start! < a.end!) {
        return `${a.identity} [${a.start}, ${a.end}] overlaps ${b.identity} [${b.start}, ${b.end}]`;
      }
    }
  }
  return undefined;
}

afterAll(async () => {
  for (const c of children.values()) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await Promise.all([...children.values()].map(exited));
  await admin.close();
});

describe('leader election across processes', () => {
  it('one leader at a time; graceful hand-over on SIGTERM; take-over within the lease after SIGKILL', async () => {
    const ns = await newNamespace('rt-le');
    let n = 0;
    const writer = setInterval(() => {
      const name = `cm-${n++ % 5}`;
      void admin
        .patch(ConfigMapResource, name, ns, 'merge', { data: { n: String(n) } })
        .catch(() => admin.create(ConfigMapResource, configMap(ns, name)))
        .catch(() => undefined);
    }, 100);
    try {
      spawnCandidate(ns, 'a');
      spawnCandidate(ns, 'b');
      const first = await eventually(async () => leadings()[0], { timeoutMs: 30_000, what: 'a leader' });
      // Several renew periods later, still exactly one leader, and only it reconciles. The sleep
      // stays: the time passing is what is tested (renewals by another process's real clock,
      // which no fake clock reaches); a standby that wrongly took over would report it.
      await new Promise((r) => setTimeout(r, 2 * LEASE_MS));
      expect(leadings()).toHaveLength(1);
      const standby = first.identity === 'a' ? 'b' : 'a';
      expect(reconcilesOf(first.identity).length).toBeGreaterThan(0);
      expect(reconcilesOf(standby)).toHaveLength(0);
      const lease = await admin.get<Lease>(LeaseResource, 'runtime-leader-test', ns);
      expect(lease.spec?.holderIdentity).toBe(first.identity);

      // Graceful: SIGTERM → drain → release → the standby takes over at its next retry.
      const termAt = Date.now();
      children.get(first.identity)!.kill('SIGTERM');
      expect(await exited(children.get(first.identity)!)).toBe(0);
      const second = await eventually(async () => leadings().find((r) => r.identity === standby), {
        timeoutMs: 15_000,
        what: 'hand-over after SIGTERM',
      });
      expect(second.at - termAt).toBeLessThan(LEASE_MS); // released, not expired
      expect(reports.some((r) => r.event === 'stopped' && r.identity === first.identity)).toBe(true);
      await eventually(async () => reconcilesOf(standby).length > 0, { what: 'new leader reconciling' });

      // Crash: a new standby joins, then the leader is SIGKILLed (no release).
      spawnCandidate(ns, 'c');
      await new Promise((r) => setTimeout(r, 3000)); // c is up and watching the lease
      const killAt = Date.now();
      children.get(standby)!.kill('SIGKILL');
      await exited(children.get(standby)!);
      const third = await eventually(async () => leadings().find((r) => r.identity === 'c'), {
        timeoutMs: 20_000,
        what: 'take-over after SIGKILL',
      });
      const takeover = third.at - killAt;
      // Waited for the lease to run out (the last renewal was at most one retry before the kill)...
      expect(takeover).toBeGreaterThanOrEqual(LEASE_MS - RETRY_MS - 200);
      // ...and no longer than the lease plus a couple of (jittered) retries.
      expect(takeover).toBeLessThan(LEASE_MS + 3 * RETRY_MS + 1500);
      await eventually(async () => reconcilesOf('c').length > 0, { what: 'c reconciling' });

      expect(leadings().map((r) => r.identity)).toEqual([first.identity, standby, 'c']);
      expect(overlapping()).toBeUndefined();
    } finally {
      clearInterval(writer);
    }
  }, 90_000);
});
