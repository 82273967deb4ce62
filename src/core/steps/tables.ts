// Which steps each host status gets (core.md §9.2). Order within a row is the order sent.

import type { HostStatus } from '../model.ts';
import type { PostStepAction, StepType } from './types.ts';

export interface StepTableRow {
  steps: readonly StepType[];
  next: number;
  action: PostStepAction;
}

export const DEFAULT_NEXT_INSTRUCTION_SECONDS = 60;
export const BACKED_OFF_NEXT_INSTRUCTION_SECONDS = 120;

const row = (
  steps: StepType[],
  next = DEFAULT_NEXT_INSTRUCTION_SECONDS,
  action: PostStepAction = 'continue',
) => ({
  steps,
  next,
  action,
});

/** States not in a table: no steps, 60 s, continue. */
export const DEFAULT_ROW: StepTableRow = row([]);

const DAY1_PRE_INSTALL: StepType[] = [
  'inventory',
  'connectivity-check',
  'tang-connectivity-check',
  'free-network-addresses',
  'dhcp-lease-allocate',
  'ntp-synchronizer',
  'domain-resolution',
  'verify-vips',
];

export const DAY1_TABLE: Partial<Record<HostStatus, StepTableRow>> = {
  known: row([
    'connectivity-check',
    'tang-connectivity-check',
    'free-network-addresses',
    'dhcp-lease-allocate',
    'inventory',
    'ntp-synchronizer',
    'domain-resolution',
    'verify-vips',
  ]),
  insufficient: row(DAY1_PRE_INSTALL),
  'pending-for-input': row(DAY1_PRE_INSTALL),
  discovering: row(['inventory']),
  disconnected: row(['inventory'], BACKED_OFF_NEXT_INSTRUCTION_SECONDS),
  'preparing-for-installation': row([
    'dhcp-lease-allocate',
    'installation-disk-speed-check',
    'container-image-availability',
  ]),
  installing: row(['install', 'dhcp-lease-allocate']),
  'installing-in-progress': row(['dhcp-lease-allocate']),
  error: row(['logs-gather', 'stop-installation'], BACKED_OFF_NEXT_INSTRUCTION_SECONDS),
  cancelled: row(['logs-gather', 'stop-installation'], BACKED_OFF_NEXT_INSTRUCTION_SECONDS),
  disabled: row([], BACKED_OFF_NEXT_INSTRUCTION_SECONDS),
  resetting: row([], BACKED_OFF_NEXT_INSTRUCTION_SECONDS),
  binding: row([], 0, 'exit'),
};

export const DAY2_TABLE: Partial<Record<HostStatus, StepTableRow>> = {
  known: row([
    'connectivity-check',
    'api-vip-connectivity-check',
    'tang-connectivity-check',
    'inventory',
    'ntp-synchronizer',
    'domain-resolution',
  ]),
  insufficient: row([
    'inventory',
    'connectivity-check',
    'api-vip-connectivity-check',
    'tang-connectivity-check',
    'ntp-synchronizer',
    'domain-resolution',
  ]),
  discovering: row(['inventory', 'ntp-synchronizer', 'domain-resolution']),
  'pending-for-input': row([
    'inventory',
    'connectivity-check',
    'api-vip-connectivity-check',
    'tang-connectivity-check',
  ]),
  disconnected: row(['inventory'], BACKED_OFF_NEXT_INSTRUCTION_SECONDS),
  installing: row(['install']),
  'installing-in-progress': row([]),
  error: row(['logs-gather', 'stop-installation'], BACKED_OFF_NEXT_INSTRUCTION_SECONDS),
  cancelled: row(['logs-gather', 'stop-installation'], BACKED_OFF_NEXT_INSTRUCTION_SECONDS),
  disabled: row([], BACKED_OFF_NEXT_INSTRUCTION_SECONDS),
  resetting: row([], BACKED_OFF_NEXT_INSTRUCTION_SECONDS),
};

export const POOL_TABLE: Partial<Record<HostStatus, StepTableRow>> = {
  'discovering-unbound': row(['inventory', 'ntp-synchronizer']),
  'insufficient-unbound': row(['inventory', 'ntp-synchronizer']),
  'known-unbound': row(['inventory', 'ntp-synchronizer']),
  'disconnected-unbound': row(['inventory'], BACKED_OFF_NEXT_INSTRUCTION_SECONDS),
  'disabled-unbound': row([], BACKED_OFF_NEXT_INSTRUCTION_SECONDS),
  unbinding: row([], 0, 'exit'),
  'unbinding-pending-user-action': row([], 0, 'exit'),
  reclaiming: row(['download-boot-artifacts']),
  'reclaiming-rebooting': row(['reboot-for-reclaim'], BACKED_OFF_NEXT_INSTRUCTION_SECONDS, 'exit'),
};

export type StepTableName = 'day1' | 'day2' | 'pool';

export const STEP_TABLES: Record<StepTableName, Partial<Record<HostStatus, StepTableRow>>> = {
  day1: DAY1_TABLE,
  day2: DAY2_TABLE,
  pool: POOL_TABLE,
};

/** Statuses in which an outdated agent is told to upgrade itself instead of doing anything else. */
export const UPGRADE_AGENT_STATUSES: readonly HostStatus[] = [
  'binding',
  'discovering',
  'discovering-unbound',
  'insufficient',
  'insufficient-unbound',
  'known',
  'pending-for-input',
  'known-unbound',
];
