// The spoke worker MachineConfigPool pause decision (kubeapi.md §3.1.10): which Agents count, and
// paused / unpaused / left alone.
import { describe, expect, it } from 'vitest';
import type { Agent } from '../../../../src/api/index.ts';
import {
  type McpPauseAgent,
  mcpPauseAgents,
  workerPoolPaused,
} from '../../../../src/controllers/cluster/mcp-pause.ts';
import { agentCluster, agentHost } from './fixtures.ts';

const labels = { 'node-role.kubernetes.io/infra': '' };
const custom = (state: string, stage?: string): McpPauseAgent => ({
  nodeLabels: labels,
  machineConfigPool: 'infra',
  state,
  stage,
});

describe('workerPoolPaused', () => {
  it.each<[string, McpPauseAgent[], boolean | undefined]>([
    ['no Agents', [], undefined],
    ['installing, custom pool', [custom('installing', 'Starting installation')], true],
    ['installing, no stage yet', [custom('installing')], true],
    ['installing-in-progress, Rebooting', [custom('installing-in-progress', 'Rebooting')], true],
    ['installing-in-progress, Joined', [custom('installing-in-progress', 'Joined')], true],
    ['installing-in-progress at Done', [custom('installing-in-progress', 'Done')], false],
    ['added to the cluster (Done)', [custom('added-to-existing-cluster', 'Done')], false],
    ['known, not installing yet', [custom('known')], false],
    ['installing-pending-user-action', [custom('installing-pending-user-action', 'Rebooting')], false],
    ['error', [custom('error', 'Rebooting')], false],
    ['installed: not considered', [custom('installed', 'Done')], undefined],
    [
      'installing without node labels: not considered',
      [{ ...custom('installing'), nodeLabels: {} }],
      undefined,
    ],
    ['installing without labels field', [{ machineConfigPool: 'infra', state: 'installing' }], undefined],
    [
      'installing without a pool: not considered',
      [{ ...custom('installing'), machineConfigPool: '' }],
      undefined,
    ],
    [
      'one installing among finished ones',
      [custom('added-to-existing-cluster', 'Done'), custom('installing')],
      true,
    ],
    ['an installed one and a known one', [custom('installed', 'Done'), custom('known')], false],
    [
      'an installing host of no custom pool next to a finished one',
      [{ state: 'installing' }, custom('added-to-existing-cluster', 'Done')],
      false,
    ],
  ])('%s', (_name, agents, want) => {
    expect(workerPoolPaused(agents)).toBe(want);
  });
});

describe('mcpPauseAgents', () => {
  const agent = (name: string, status: unknown): Agent =>
    ({
      metadata: { name, namespace: 'ns' },
      spec: { nodeLabels: labels, machineConfigPool: 'infra' },
      status,
    }) as unknown as Agent;

  it('takes state and stage from the cluster record when it has the host, the Agent otherwise', () => {
    const cluster = agentCluster({
      hosts: [
        agentHost({
          id: 'a',
          status: 'installing',
          progress: { current_stage: 'Starting installation' } as never,
        }),
      ],
    });
    const out = mcpPauseAgents(
      [
        agent('a', { debugInfo: { state: 'known' } }),
        agent('b', {
          debugInfo: { state: 'installing-in-progress' },
          progress: { currentStage: 'Done' },
        }),
      ],
      cluster,
    );
    expect(out).toEqual([
      { nodeLabels: labels, machineConfigPool: 'infra', state: 'installing', stage: 'Starting installation' },
      { nodeLabels: labels, machineConfigPool: 'infra', state: 'installing-in-progress', stage: 'Done' },
    ]);
    expect(workerPoolPaused(out)).toBe(true);
  });
});
