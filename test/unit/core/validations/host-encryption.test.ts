import { describe, expect, it } from 'vitest';
import type { Cluster, Host } from '../../../../src/core/model.ts';
import { isEncryptionEnabledForRole } from '../../../../src/core/validations/host-encryption.ts';
import { bound, host, inventory, unbound } from './host-fixtures.ts';
import { condition, outcome } from './host-helpers.ts';

const ID = 'disk-encryption-requirements-satisfied';
const enc = (enable_on: string, mode = 'tpmv2'): Partial<Cluster> => ({
  disk_encryption: { enable_on, mode },
});
const tpm = (tpm_version: string, o: Partial<Host> = {}) =>
  host({ inventory: inventory({ tpm_version }), ...o });

describe('day-1', () => {
  it.each([
    ['none', 'tpmv2', tpm('2.0'), ['success-suppress-output', '']],
    ['', 'tpmv2', tpm('2.0'), ['success-suppress-output', '']],
    ['all', 'tpmv2', tpm('2.0'), ['success', 'Installation disk can be encrypted using tpmv2']],
    ['masters', 'tpmv2', tpm('2.0'), ['success', 'Installation disk can be encrypted using tpmv2']],
    ['workers', 'tpmv2', tpm('2.0'), ['success-suppress-output', '']],
    [
      'masters,workers',
      'tpmv2',
      tpm('1.2'),
      ['failure', "The host's TPM version is not supported, expected-version: 2.0, actual-version: 1.2"],
    ],
    [
      'all',
      'tpmv2',
      tpm('none'),
      ['failure', "TPM version could not be found, make sure TPM is enabled in host's BIOS"],
    ],
    [
      'all',
      'tpmv2',
      tpm('2.0', { role: 'auto-assign', suggested_role: '' }),
      ['pending', 'Missing role assignment'],
    ],
    ['all', 'tpmv2', host({ inventory: undefined }), ['pending', 'Missing host inventory']],
    [
      'all',
      'tang',
      tpm('none', { tang_connectivity: '{"is_success":true,"tang_server_response":[]}' }),
      ['success', 'Installation disk can be encrypted using tang'],
    ],
    [
      'all',
      'tang',
      tpm('2.0', { tang_connectivity: '' }),
      ['pending', 'Disk encryption check was not performed yet'],
    ],
    [
      'all',
      'tang',
      tpm('2.0', { tang_connectivity: 'failed to find action for step tang-connectivity-check' }),
      ['success-suppress-output', ''],
    ],
    [
      'all',
      'tang',
      tpm('2.0', { tang_connectivity: '{"is_success":false}' }),
      ['failure', 'Could not validate that all Tang servers are reachable and working: {"is_success":false}'],
    ],
    [
      'all',
      'tang',
      tpm('2.0', { tang_connectivity: 'dial tcp: timeout' }),
      ['failure', 'Could not validate that all Tang servers are reachable and working: dial tcp: timeout'],
    ],
  ] as const)('enable_on %j mode %s (%#)', (enableOn, mode, h, want) => {
    expect(outcome(bound(h, enc(enableOn, mode)), ID)).toEqual(want);
  });

  it('blocks minimum hardware when failing', () => {
    expect(condition(bound(tpm('1.2'), enc('all')), ID)).toBe(false);
    expect(condition(bound(tpm('1.2'), enc('none')), ID)).toBe(true);
  });

  it.each([
    ['all', 'worker', false, true],
    ['masters', 'master', false, true],
    ['masters', 'bootstrap', false, true],
    ['masters', 'worker', true, true],
    ['masters', 'worker', false, false],
    ['arbiters', 'arbiter', false, true],
    ['arbiters', 'master', false, false],
    ['workers', 'worker', false, true],
    ['workers', 'arbiter', false, false],
    ['none', 'master', false, false],
    [undefined, 'master', false, false],
  ] as const)('enable_on %s covers %s (bootstrap %s): %s', (on, role, bootstrap, want) => {
    expect(isEncryptionEnabledForRole(on, role, bootstrap)).toBe(want);
  });
});

describe('day-2 (LUKS read from the downloaded ignition)', () => {
  const ign = (luks: unknown) => JSON.stringify({ ignition: { version: '3.2.0' }, storage: { luks } });
  const day2 = (api: unknown, tpmVersion = '2.0', cl: Partial<Cluster> = {}, o: Partial<Host> = {}) =>
    bound(
      host({
        kind: 'AddToExistingClusterHost',
        role: 'worker',
        api_vip_connectivity: api as never,
        inventory: inventory({ tpm_version: tpmVersion }),
        ...o,
      }),
      { kind: 'AddHostsCluster', ...enc('none'), ...cl },
    );
  it.each([
    ['no reply, cluster not configured', day2(undefined), ['success-suppress-output', '']],
    [
      'no reply, cluster configured',
      day2(undefined, '2.0', enc('all')),
      ['pending', 'Missing ignition information'],
    ],
    [
      'bad ignition, cluster configured',
      day2({ is_success: true, ignition: '{' }, '2.0', enc('workers')),
      ['pending', 'Missing ignition information'],
    ],
    ['no LUKS', day2({ is_success: true, ignition: ign([]) }), ['success-suppress-output', '']],
    [
      'LUKS without clevis',
      day2({ is_success: true, ignition: ign([{ name: 'root' }]) }),
      ['success-suppress-output', ''],
    ],
    [
      'clevis tpm2, TPM 2.0',
      day2({ is_success: true, ignition: ign([{ clevis: { tpm2: true } }]) }),
      ['success', 'Installation disk can be encrypted using tpmv2'],
    ],
    [
      'clevis tpm2, TPM 1.2',
      day2({ is_success: true, ignition: ign([{ clevis: { tpm2: true } }]) }, '1.2'),
      ['failure', "The host's TPM version is not supported, expected-version: 2.0, actual-version: 1.2"],
    ],
    [
      'clevis tang, reachable',
      day2(
        { is_success: true, ignition: ign([{ clevis: { tang: [{ url: 'http://t' }] } }]) },
        '2.0',
        {},
        {
          tang_connectivity: '{"is_success":true}',
        },
      ),
      ['success', 'Installation disk can be encrypted using tang'],
    ],
    [
      'clevis neither',
      day2({ is_success: true, ignition: ign([{ clevis: { tpm2: false } }]) }),
      ['failure', 'Invalid LUKS object in ignition - both TPM2 and Tang are not available'],
    ],
    [
      'clevis neither, no TPM',
      day2({ is_success: true, ignition: ign([{ clevis: {} }]) }, 'none'),
      ['failure', "TPM version could not be found, make sure TPM is enabled in host's BIOS"],
    ],
  ] as const)('%s', (_name, input, want) => {
    expect(outcome(input, ID)).toEqual(want);
  });
});

it('unbound hosts are suppressed', () => {
  expect(outcome(unbound(), ID)).toEqual(['success-suppress-output', '']);
});
