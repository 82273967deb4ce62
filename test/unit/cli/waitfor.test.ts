import { describe, expect, it } from 'vitest';
import {
  bootstrapComplete,
  changedLines,
  decideWait,
  EXIT_CODES,
  formatDuration,
  parseDuration,
  progressFacts,
} from '../../../src/cli/waitfor.ts';
import { aci, agent } from './fixtures.ts';

const HOUR = 3_600_000;
const failedTrue = {
  type: 'Failed',
  status: 'True',
  reason: 'InstallationFailed',
  message: 'The installation failed: host x failed',
};
const completedTrue = { type: 'Completed', status: 'True', reason: 'InstallationCompleted', message: 'done' };

describe('decideWait', () => {
  it('keeps waiting while installing', () => {
    const snap = {
      agentClusterInstall: aci('installing', 'Installation in progress', 30),
      agents: [agent('m0', { stage: 'Writing image to disk', bootstrap: true })],
    };
    expect(decideWait('install-complete', snap, 1000, HOUR)).toEqual({
      done: false,
      exitCode: 0,
      message: '',
    });
    expect(decideWait('bootstrap-complete', snap, 1000, HOUR).done).toBe(false);
  });

  it('install-complete succeeds on Completed=True or an installed state', () => {
    expect(
      decideWait(
        'install-complete',
        { agentClusterInstall: aci('installed', '', 100, [completedTrue]), agents: [] },
        0,
        HOUR,
      ),
    ).toMatchObject({ done: true, exitCode: 0 });
    expect(
      decideWait(
        'install-complete',
        { agentClusterInstall: aci('adding-hosts', '', 100), agents: [] },
        0,
        HOUR,
      ),
    ).toMatchObject({ done: true, exitCode: 0 });
    expect(
      decideWait('install-complete', { agentClusterInstall: aci('finalizing', '', 90), agents: [] }, 0, HOUR)
        .done,
    ).toBe(false);
  });

  it('bootstrap-complete: bootstrap host rebooted, or the cluster is finalizing', () => {
    const waiting = {
      agentClusterInstall: aci('installing', '', 50),
      agents: [
        agent('m0', { stage: 'Waiting for controller', bootstrap: true }),
        agent('m1', { stage: 'Rebooting' }),
      ],
    };
    expect(bootstrapComplete(waiting)).toBe(false);
    const rebooted = { ...waiting, agents: [agent('m0', { stage: 'Rebooting', bootstrap: true })] };
    expect(decideWait('bootstrap-complete', rebooted, 0, HOUR)).toMatchObject({
      done: true,
      exitCode: 0,
      message: 'Cluster bootstrap is complete',
    });
    expect(
      decideWait(
        'bootstrap-complete',
        { agentClusterInstall: aci('finalizing', '', 90), agents: [] },
        0,
        HOUR,
      ).exitCode,
    ).toBe(0);
    // Bootstrap done is not install done.
    expect(decideWait('install-complete', rebooted, 0, HOUR).done).toBe(false);
  });

  it('fails on Failed=True with the target exit code, even if a host looks done', () => {
    const snap = {
      agentClusterInstall: aci('error', 'host x failed', 60, [failedTrue]),
      agents: [agent('m0', { stage: 'Rebooting', bootstrap: true })],
    };
    expect(decideWait('install-complete', snap, 0, HOUR)).toEqual({
      done: true,
      exitCode: EXIT_CODES.installFailed,
      message: 'Installation failed: The installation failed: host x failed',
    });
    expect(decideWait('bootstrap-complete', snap, 0, HOUR).exitCode).toBe(EXIT_CODES.bootstrapFailed);
  });

  it('fails when the installation was cancelled', () => {
    const snap = {
      agentClusterInstall: aci('cancelled', '', 10, [
        { type: 'Stopped', status: 'True', reason: 'InstallationCancelled', message: 'cancelled' },
      ]),
      agents: [],
    };
    expect(decideWait('install-complete', snap, 0, HOUR)).toMatchObject({
      done: true,
      exitCode: EXIT_CODES.installFailed,
    });
  });

  it('times out with a non-zero exit code and says where it stopped', () => {
    const snap = { agentClusterInstall: aci('installing', 'Installation in progress', 30), agents: [] };
    expect(decideWait('install-complete', snap, HOUR, HOUR)).toEqual({
      done: true,
      exitCode: EXIT_CODES.installFailed,
      message:
        'Timed out after 1h waiting for install-complete; cluster state installing (Installation in progress)',
    });
    expect(decideWait('bootstrap-complete', snap, HOUR + 1, HOUR).exitCode).toBe(EXIT_CODES.bootstrapFailed);
    expect(decideWait('install-complete', { agents: [] }, HOUR, HOUR)).toMatchObject({
      done: true,
      exitCode: EXIT_CODES.error,
    });
    // A zero timeout waits forever.
    expect(decideWait('install-complete', snap, 100 * HOUR, 0).done).toBe(false);
  });
});

describe('progress lines', () => {
  it('prints only what changed', () => {
    const first = progressFacts({
      agentClusterInstall: aci('installing', 'Installation in progress', 10),
      agents: [agent('m0', { hostname: 'master-0', stage: 'Installing', pct: 10 })],
    });
    expect(changedLines(new Map(), first)).toEqual([
      'Cluster installing: Installation in progress (10%)',
      'Host master-0: installing-in-progress, Installing (10%)',
    ]);
    const second = progressFacts({
      agentClusterInstall: aci('installing', 'Installation in progress', 10),
      agents: [agent('m0', { hostname: 'master-0', stage: 'Rebooting', pct: 70 })],
    });
    expect(changedLines(first, second)).toEqual(['Host master-0: installing-in-progress, Rebooting (70%)']);
    expect(changedLines(second, second)).toEqual([]);
  });
});

describe('durations', () => {
  it('parses and formats', () => {
    expect(parseDuration('90m')).toBe(90 * 60_000);
    expect(parseDuration('1h30m')).toBe(90 * 60_000);
    expect(parseDuration('45')).toBe(45_000);
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('soon')).toBeUndefined();
    expect(parseDuration('5x')).toBeUndefined();
    // Go's syntax via the core parser; a sign or surrounding spaces stay refused as before.
    expect(parseDuration('1.5h')).toBe(90 * 60_000);
    expect(parseDuration('-5s')).toBeUndefined();
    expect(parseDuration(' 5s')).toBeUndefined();
    expect(formatDuration(90 * 60_000)).toBe('1h30m');
    expect(formatDuration(30_000)).toBe('30s');
    expect(formatDuration(150_000)).toBe('2m30s');
  });
});
