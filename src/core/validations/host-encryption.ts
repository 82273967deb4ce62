// disk-encryption-requirements-satisfied (§3.2 "Disk encryption"): day-1 from the cluster's
// settings and the host's role; day-2 from the LUKS section of the ignition the host downloaded.

import type { Cluster, HostRole } from '../model.ts';
import { type Check, check, type HostValidationContext, isDay2Host, suppress } from './host-context.ts';

type EncryptionMode = 'tpmv2' | 'tang';

/** Reply text of old agents that do not know the tang step. */
export const FAILED_TO_FIND_ACTION = 'failed to find action for step';

/** Whether enable_on (all | masters | arbiters | workers, comma list) covers the role. */
export function isEncryptionEnabledForRole(
  enableOn: string | undefined,
  role: HostRole,
  bootstrap = false,
): boolean {
  const parts = (enableOn ?? '').split(',').map((p) => p.trim());
  if (parts.includes('all')) return true;
  if (parts.includes('masters') && (role === 'master' || role === 'bootstrap' || bootstrap)) return true;
  if (parts.includes('arbiters') && role === 'arbiter') return true;
  return parts.includes('workers') && role === 'worker';
}

function encryptionConfigured(cluster: Cluster): boolean {
  const enableOn = cluster.disk_encryption?.enable_on ?? '';
  return enableOn !== '' && enableOn !== 'none';
}

/** Tang servers reachable, per the last tang-connectivity-check reply. */
function tangCheck(c: HostValidationContext): Check {
  const reply = c.host.tang_connectivity ?? '';
  if (reply === '') return check('pending', '');
  if (reply.includes(FAILED_TO_FIND_ACTION)) return suppress;
  try {
    const parsed = JSON.parse(reply) as { is_success?: boolean } | null;
    if (parsed?.is_success === true) return check('success', '');
  } catch {
    // Not JSON: the step's error text, reported below.
  }
  return check('failure', `Could not validate that all Tang servers are reachable and working: ${reply}`);
}

interface Luks {
  clevis?: { tpm2?: boolean; tang?: unknown[] };
}

/** The first LUKS device of the day-2 ignition; undefined when unreadable, null when absent. */
function day2Luks(c: HostValidationContext): Luks | null | undefined {
  const ignition = c.host.api_vip_connectivity?.ignition;
  if (!ignition) return undefined;
  try {
    const parsed = JSON.parse(ignition) as { storage?: { luks?: Luks[] } };
    return parsed.storage?.luks?.[0] ?? null;
  } catch {
    return undefined;
  }
}

function outcome(c: HostValidationContext, status: Check['status'], mode: EncryptionMode | undefined): Check {
  if (status === 'success') return check(status, `Installation disk can be encrypted using ${mode}`);
  if (status === 'pending') return check(status, 'Disk encryption check was not performed yet');
  if (status !== 'failure') return check(status, '');
  const tpm = c.inventory?.tpm_version;
  if (tpm === 'none')
    return check(status, "TPM version could not be found, make sure TPM is enabled in host's BIOS");
  if (mode === undefined)
    return check(status, 'Invalid LUKS object in ignition - both TPM2 and Tang are not available');
  return check(
    status,
    `The host's TPM version is not supported, expected-version: 2.0, actual-version: ${tpm ?? ''}`,
  );
}

function tpmOrTang(c: HostValidationContext, mode: EncryptionMode): Check {
  if (mode === 'tang') {
    const tang = tangCheck(c);
    if (tang.status === 'failure' || tang.status === 'success-suppress-output') return tang;
    return outcome(c, tang.status, mode);
  }
  return outcome(c, c.inventory?.tpm_version === '2.0' ? 'success' : 'failure', mode);
}

export function diskEncryptionRequirementsSatisfied(c: HostValidationContext): Check {
  const cluster = c.cluster;
  if (!cluster) return suppress;
  const day2 = isDay2Host(c.host);
  if (!day2 && !encryptionConfigured(cluster)) return suppress;
  if (!c.inventory) return check('pending', 'Missing host inventory');
  if (day2) {
    const luks = day2Luks(c);
    if (luks === undefined)
      return encryptionConfigured(cluster) ? check('pending', 'Missing ignition information') : suppress;
    if (!luks?.clevis) return suppress;
    if (luks.clevis.tpm2 === true) return tpmOrTang(c, 'tpmv2');
    if ((luks.clevis.tang ?? []).length > 0) return tpmOrTang(c, 'tang');
    return outcome(c, 'failure', undefined);
  }
  if (c.role === 'auto-assign') return check('pending', 'Missing role assignment');
  if (!isEncryptionEnabledForRole(cluster.disk_encryption?.enable_on, c.role, c.host.bootstrap === true)) {
    return suppress;
  }
  return tpmOrTang(c, cluster.disk_encryption?.mode === 'tang' ? 'tang' : 'tpmv2');
}
