// The operator binary starts against a real API server, serves /healthz, /readyz and /metrics, and
// exits 0 on SIGTERM.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../../src/dev/ports.ts';
import { eventually, kubeconfigPath, newNamespace } from '../../harness/env.ts';

describe('operator process', () => {
  it('starts, reports health and metrics, and stops cleanly on SIGTERM', async () => {
    const ns = await newNamespace('proc');
    const [probe, metrics, api] = [await freePort(), await freePort(), await freePort()];
    const child = spawn(process.execPath, ['src/cmd/operator.ts'], {
      env: {
        ...process.env,
        KUBECONFIG: kubeconfigPath(),
        POD_NAMESPACE: ns,
        LEADER_ELECT: 'true',
        HEALTH_PROBE_BIND_ADDRESS: `127.0.0.1:${probe}`,
        METRICS_BIND_ADDRESS: `127.0.0.1:${metrics}`,
        // Plain HTTP here; the secure metrics server (the default) is covered by test/security/metrics.test.ts.
        METRICS_SECURE: 'false',
        API_PORT: String(api),
        API_BIND_HOST: '127.0.0.1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    try {
      await eventually(async () => (await fetch(`http://127.0.0.1:${probe}/readyz`)).ok, {
        timeoutMs: 30_000,
        what: 'operator ready',
      });
      expect(await (await fetch(`http://127.0.0.1:${probe}/healthz`)).text()).toContain('ok');
      const text = await (await fetch(`http://127.0.0.1:${metrics}/metrics`)).text();
      expect(text).toMatch(
        /aio_watch_relists_total\{resource="agents\.v1beta1\.agent-install\.openshift\.io"\} 1/,
      );
      // Leader election on: it must take the Lease before running controllers.
      const scrape = async () => (await fetch(`http://127.0.0.1:${metrics}/metrics`)).text();
      await eventually(async () => /leader_election_master_status\{[^}]*\} 1/.test(await scrape()), {
        timeoutMs: 30_000,
        what: 'leader election won',
      });
      // Logs are pino JSON lines.
      const first = output.split('\n').find((l) => l.startsWith('{'));
      expect(JSON.parse(first ?? '{}').msg).toBeTruthy();
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = await once(child, 'exit');
    expect(code, output.slice(-2000)).toBe(0);
    expect(output).toContain('manager stopped');
  });
});
