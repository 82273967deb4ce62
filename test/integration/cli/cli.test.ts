// The `agent-install` CLI against the real control plane: `manifests` output is accepted by the
// CRD schemas without pruning, and `status` / `wait-for` read the cluster's objects through
// $KUBECONFIG. No operator runs here: the test writes the statuses the operator would write.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { AgentClusterInstall, NMStateConfig } from '../../../src/api/index.ts';
import { applyObjects, parseManifests } from '../../../src/dev/apply.ts';
import { AGENT, AGENT_CLUSTER_INSTALL, NMSTATE_CONFIG } from '../../../src/records/resources.ts';
import { KubeClient } from '../../../src/runtime/client.ts';
import { adminKubeConfig, kubeconfigPath, uniqueName } from '../../harness/env.ts';

const FIXTURES = 'test/unit/cli/fixtures';

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['src/cmd/agent-install.ts', ...args], {
    env: { ...process.env, KUBECONFIG: kubeconfigPath() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const [code] = (await once(child, 'exit')) as [number];
  return { code, stdout, stderr };
}

function client(): KubeClient {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath());
  return new KubeClient({ kubeConfig: kc, qps: 0 });
}

describe('agent-install CLI', () => {
  it('manifests are accepted by the CRDs; status and wait-for read them', async () => {
    const ns = uniqueName('cli');
    const gen = await cli([
      'manifests',
      '--install-config',
      `${FIXTURES}/install-config.yaml`,
      '--agent-config',
      `${FIXTURES}/agent-config.yaml`,
      '-n',
      ns,
    ]);
    expect(gen.stderr).toContain('note: agent-config rendezvousIP');
    expect(gen.code).toBe(0);
    const objects = parseManifests(gen.stdout);
    expect(objects).toHaveLength(11);
    const applied = await applyObjects(adminKubeConfig(), objects);
    for (const [i, obj] of applied.entries()) expect(obj.metadata?.uid, objects[i]?.kind).toBeTruthy();

    const kube = client();
    try {
      // Nothing was pruned by the structural schemas.
      const aci = await kube.get<AgentClusterInstall>(AGENT_CLUSTER_INSTALL, 'ocp', ns);
      const generated = objects.find(
        (o) => o.kind === 'AgentClusterInstall',
      ) as unknown as AgentClusterInstall;
      expect(aci.spec).toMatchObject(generated.spec);
      const nmstate = await kube.get<NMStateConfig>(NMSTATE_CONFIG, 'ocp-master-0', ns);
      const generatedNm = objects.find(
        (o) => o.metadata?.name === 'ocp-master-0',
      ) as unknown as NMStateConfig;
      expect(nmstate.spec).toEqual(generatedNm.spec);

      // What the operator would report mid-installation.
      await kube.patch(
        AGENT_CLUSTER_INSTALL,
        'ocp',
        ns,
        'merge',
        {
          status: {
            progress: { totalPercentage: 42 },
            debugInfo: {
              eventsURL: '',
              logsURL: '',
              state: 'installing',
              stateInfo: 'Installation in progress',
            },
            conditions: [
              {
                type: 'Failed',
                status: 'False',
                reason: 'InstallationNotFailed',
                message: 'The installation has not failed',
              },
            ],
          },
        },
        { subresource: 'status' },
      );
      await kube.create(AGENT, {
        apiVersion: 'agent-install.openshift.io/v1beta1',
        kind: 'Agent',
        metadata: { name: 'a1b2c3d4-0000-0000-0000-000000000001', namespace: ns },
        spec: {
          role: '',
          approved: true,
          hostname: 'master-0',
          clusterDeploymentName: { name: 'ocp', namespace: ns },
        },
      });
      await kube.patch(
        AGENT,
        'a1b2c3d4-0000-0000-0000-000000000001',
        ns,
        'merge',
        {
          status: {
            role: 'master',
            bootstrap: true,
            debugInfo: { state: 'installing-in-progress' },
            progress: { currentStage: 'Writing image to disk', installationPercentage: 45 },
          },
        },
        { subresource: 'status' },
      );

      const status = await cli(['status', 'ocp', '-n', ns]);
      expect(status.stderr).toBe('');
      expect(status.code).toBe(0);
      expect(status.stdout).toContain(`Cluster:   ${ns}/ocp (ocp.example.com)`);
      expect(status.stdout).toContain('State:     installing - Installation in progress');
      expect(status.stdout).toContain('[########------------]  42%');
      expect(status.stdout).toMatch(
        /master-0 +master \(bootstrap\) +installing-in-progress +Writing image to disk +\[#########-----------\] {2}45%/,
      );

      const timedOut = await cli([
        'wait-for',
        'install-complete',
        'ocp',
        '-n',
        ns,
        '--timeout',
        '1s',
        '--interval',
        '200ms',
      ]);
      expect(timedOut.code).toBe(6);
      expect(timedOut.stdout).toContain('Cluster installing: Installation in progress (42%)');
      expect(timedOut.stderr).toContain('Timed out after 1s waiting for install-complete');

      await kube.patch(
        AGENT,
        'a1b2c3d4-0000-0000-0000-000000000001',
        ns,
        'merge',
        {
          status: { progress: { currentStage: 'Rebooting', installationPercentage: 70 } },
        },
        { subresource: 'status' },
      );
      const bootstrapped = await cli(['wait-for', 'bootstrap-complete', 'ocp', '-n', ns, '--timeout', '10s']);
      expect(bootstrapped.stdout).toContain('Cluster bootstrap is complete');
      expect(bootstrapped.code).toBe(0);

      const noLogs = await cli(['logs', 'ocp', '-n', ns]);
      expect(noLogs.code).toBe(1);
      expect(noLogs.stderr).toContain('no logs yet');

      const missing = await cli(['status', 'nope', '-n', ns]);
      expect(missing.code).toBe(1);
    } finally {
      await kube.close();
    }
  });
});
