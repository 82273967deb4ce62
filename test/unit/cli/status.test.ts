import { describe, expect, it } from 'vitest';
import type { ClusterDeployment } from '../../../src/api/index.ts';
import { formatStatus, hostRows, progressBar, table } from '../../../src/cli/status.ts';
import { aci, agent } from './fixtures.ts';

const cd = {
  apiVersion: 'hive.openshift.io/v1',
  kind: 'ClusterDeployment',
  metadata: { name: 'ocp', namespace: 'ocp' },
  spec: { clusterName: 'ocp', baseDomain: 'example.com', platform: {} },
} as ClusterDeployment;

describe('progressBar', () => {
  it('fills proportionally and clamps', () => {
    expect(progressBar(0)).toBe('[--------------------]   0%');
    expect(progressBar(50)).toBe('[##########----------]  50%');
    expect(progressBar(100)).toBe('[####################] 100%');
    expect(progressBar(130)).toBe('[####################] 100%');
    expect(progressBar(-5)).toBe('[--------------------]   0%');
    expect(progressBar(undefined)).toBe('[--------------------]   0%');
    expect(progressBar(33, 10)).toBe('[###-------]  33%');
  });
});

describe('table', () => {
  it('aligns columns and does not pad the last one', () => {
    expect(
      table(
        ['A', 'BB'],
        [
          ['xxx', 'y'],
          ['z', ''],
        ],
      ),
    ).toBe('A    BB\nxxx  y\nz');
  });
});

describe('formatStatus', () => {
  it('prints the cluster, the hosts sorted by role and failing validations', () => {
    const agents = [
      agent('w1', {
        role: 'worker',
        hostname: 'worker-1',
        state: 'insufficient',
        validations: {
          hardware: [
            { id: 'has-memory-for-role', status: 'failure', message: 'Insufficient memory' },
            { id: 'has-cpu-cores-for-role', status: 'success', message: 'ok' },
          ],
          network: [{ id: 'ntp-synced', status: 'disabled', message: 'skipped' }],
        },
      }),
      agent('m0', { hostname: 'master-0', stage: 'Writing image to disk', pct: 45, bootstrap: true }),
      agent('m1', { hostname: 'master-1', stage: 'Waiting for control plane', pct: 30 }),
    ];
    const out = formatStatus('ocp', 'ocp', {
      clusterDeployment: cd,
      agentClusterInstall: aci('installing', 'Installation in progress', 42, [
        {
          type: 'Completed',
          status: 'False',
          reason: 'InstallationInProgress',
          message: 'The installation is in progress: x',
        },
        { type: 'Failed', status: 'False', reason: 'InstallationNotFailed', message: 'not failed' },
        { type: 'Validated', status: 'True', reason: 'ValidationsPassing', message: 'passing' },
      ]),
      agents,
    });
    expect(out).toBe(
      [
        'Cluster:   ocp/ocp (ocp.example.com)',
        'State:     installing - Installation in progress',
        'Progress:  [########------------]  42%',
        'Hosts:     control plane 3/3 ready, workers 1/2 ready',
        '',
        'NAME  HOSTNAME  ROLE                STATE                   STAGE                      PROGRESS',
        'm0    master-0  master (bootstrap)  installing-in-progress  Writing image to disk      [#########-----------]  45%',
        'm1    master-1  master              installing-in-progress  Waiting for control plane  [######--------------]  30%',
        'w1    worker-1  worker              insufficient                                       [--------------------]   0%',
        '',
        'Failing validations:',
        '  worker-1: Insufficient memory',
        '',
      ].join('\n'),
    );
  });

  it('shows a Failed condition and missing objects', () => {
    const failed = formatStatus('ocp', 'ocp', {
      agentClusterInstall: aci('error', 'boom', 80, [
        {
          type: 'Failed',
          status: 'True',
          reason: 'InstallationFailed',
          message: 'The installation failed: boom',
        },
      ]),
      agents: [],
    });
    expect(failed).toContain('(ClusterDeployment not found)');
    expect(failed).toContain('Condition: Failed=True InstallationFailed: The installation failed: boom');
    expect(failed).toContain('No Agents are bound to this cluster yet.');
    expect(formatStatus('x', 'y', { agents: [] })).toContain('AgentClusterInstall not found');
  });

  it('prefers the requested hostname over the inventory one', () => {
    const a = agent('a', { hostname: 'inventory-name' });
    a.spec.hostname = 'requested';
    expect(hostRows([a])[0]!.hostname).toBe('requested');
  });
});
