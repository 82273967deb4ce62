// Stages per role (spec §1.6) and progress percentages (§1.3, §2.7).

import { describe, expect, it } from 'vitest';
import type { Host } from '../../../../src/core/model.ts';
import {
  BOOTSTRAP_STAGES,
  clusterProgress,
  finalizingStagePercentage,
  hostInstallationPercentage,
  installingStagePercentage,
  MASTER_STAGES,
  PRE_REBOOT_BOOTSTRAP_STAGES,
  SNO_BOOTSTRAP_STAGES,
  stageEnvKey,
  stagesForHost,
  stagesForRole,
  WORKER_STAGES,
} from '../../../../src/core/statemachine/index.ts';
import { makeCluster, makeHost } from './fixtures.ts';

describe('stages per role', () => {
  it('lists them in upstream order', () => {
    expect(BOOTSTRAP_STAGES).toEqual([
      'Starting installation',
      'Installing',
      'Writing image to disk',
      'Copying registry data to disk',
      'Waiting for control plane',
      'Waiting for bootkube',
      'Waiting for controller',
      'Rebooting',
      'Configuring',
      'Joined',
      'Done',
    ]);
    expect(SNO_BOOTSTRAP_STAGES).toEqual([
      'Starting installation',
      'Installing',
      'Waiting for bootkube',
      'Writing image to disk',
      'Copying registry data to disk',
      'Rebooting',
      'Joined',
      'Done',
    ]);
    expect(MASTER_STAGES).toEqual([
      'Starting installation',
      'Installing',
      'Writing image to disk',
      'Copying registry data to disk',
      'Rebooting',
      'Configuring',
      'Joined',
      'Done',
    ]);
    expect(WORKER_STAGES).toEqual([
      'Starting installation',
      'Installing',
      'Writing image to disk',
      'Waiting for control plane',
      'Rebooting',
      'Waiting for ignition',
      'Configuring',
      'Joined',
      'Done',
    ]);
    expect(PRE_REBOOT_BOOTSTRAP_STAGES).toHaveLength(7);
  });

  it('picks the list by bootstrap flag, role and topology', () => {
    expect(stagesForRole('master', true, false)).toBe(BOOTSTRAP_STAGES);
    expect(stagesForRole('bootstrap', false, true)).toBe(SNO_BOOTSTRAP_STAGES);
    expect(stagesForRole('arbiter', false, false)).toBe(MASTER_STAGES);
    expect(stagesForRole('worker', false, false)).toBe(WORKER_STAGES);
    expect(stagesForRole('auto-assign', false, false)).toEqual([]);
    expect(stagesForHost(makeHost({ role: 'auto-assign', suggested_role: 'worker' }), null, true)).toBe(
      WORKER_STAGES,
    );
  });

  it('day-2 hosts stop at Rebooting outside kube-API mode', () => {
    const d2 = makeHost({ kind: 'AddToExistingClusterHost', role: 'worker' });
    expect(stagesForHost(d2, null, false)).toEqual(WORKER_STAGES.slice(0, 5));
    expect(stagesForHost(d2, null, true)).toBe(WORKER_STAGES);
    expect(
      stagesForHost(
        makeHost({ kind: 'AddToExistingClusterHost', role: 'auto-assign', suggested_role: '' }),
        null,
        false,
      ),
    ).toEqual([]);
  });

  it('env keys of stages', () => {
    expect(stageEnvKey('Writing image to disk')).toBe('WRITING_IMAGE_TO_DISK');
  });
});

describe('progress percentages', () => {
  const at = (stage: string, more: Partial<Host> = {}) =>
    makeHost({ progress: { current_stage: stage as never }, ...more });

  it('host: (index+1)/len·100', () => {
    expect(hostInstallationPercentage(at('Rebooting'), null, true)).toBe(62.5);
    expect(hostInstallationPercentage(at('Done', { role: 'worker' }), null, true)).toBe(100);
    expect(hostInstallationPercentage(at(''), null, true)).toBe(0);
    expect(
      hostInstallationPercentage(at('Done', { role: 'auto-assign', suggested_role: '' }), null, true),
    ).toBe(0);
  });

  it('installing: Σ(index+1)/Σ(len) over all hosts', () => {
    const cluster = makeCluster({
      hosts: [at('Done', { id: 'a' }), at('Rebooting', { id: 'b' }), at('', { id: 'c', role: 'worker' })],
    });
    // (8 + 5 + 0) / (8 + 8 + 9) = 52%
    expect(installingStagePercentage(cluster, true)).toBe(52);
    expect(installingStagePercentage(makeCluster({ hosts: [] }), true)).toBe(0);
  });

  it('finalizing: settled operators over all monitored operators', () => {
    const ops = [
      { name: 'a', operator_type: 'builtin' as const, status: 'available' as const },
      { name: 'b', operator_type: 'builtin' as const, status: 'failed' as const },
      { name: 'c', operator_type: 'olm' as const, status: 'failed' as const },
    ];
    expect(finalizingStagePercentage(makeCluster({ monitored_operators: ops }))).toBe(66);
    expect(finalizingStagePercentage(makeCluster())).toBe(0);
  });

  it('total: 0.10 / 0.70 / 0.15 weights, never decreasing, installed = 100', () => {
    const hosts = [at('Done', { id: 'a' }), at('Done', { id: 'b' })];
    const cluster = makeCluster({
      status: 'finalizing',
      hosts,
      progress: { preparing_for_installation_stage_percentage: 100 },
      monitored_operators: [
        { name: 'a', operator_type: 'builtin', status: 'available' },
        { name: 'b', operator_type: 'olm', status: '' },
      ],
    });
    expect(clusterProgress(cluster, true)).toEqual({
      preparing_for_installation_stage_percentage: 100,
      installing_stage_percentage: 100,
      finalizing_stage_percentage: 50,
      total_percentage: 87,
    });
    expect(clusterProgress({ ...cluster, progress: { total_percentage: 90 } }, true).total_percentage).toBe(
      90,
    );
    expect(clusterProgress({ ...cluster, status: 'installed' }, true).total_percentage).toBe(100);
    expect(clusterProgress(makeCluster({ progress: undefined }), true).total_percentage).toBe(0);
  });
});
