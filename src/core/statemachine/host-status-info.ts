// Host status_info texts (verbatim upstream strings) and expansion of their $MACROS.

import type { ValidationsInfo } from '../model.ts';

export const HOST_INFO = {
  mediaDisconnected:
    'Unable to read from the discovery media. It was either disconnected or poor network conditions prevented it from being read. Try using the minimal ISO option and be sure to keep the media connected until the installation is completed',
  disconnected: 'Host has stopped communicating with the installation service',
  discovering: 'Waiting for host to send hardware details',
  insufficientHardware: 'Host does not meet the minimum hardware requirements: $FAILING_VALIDATIONS',
  pendingForInput: 'Waiting for user input: $FAILING_VALIDATIONS',
  notReadyForInstall: 'Host cannot be installed due to following failing validation(s): $FAILING_VALIDATIONS',
  preparationTimeout:
    'The host has encountered a preparation timeout, the following conditions failed: $FAILING_CONDITIONS',
  preparationTimeoutDiskSpeed: 'the installation disk speed check did not complete within the timeout.',
  preparationTimeoutImageAvailability: 'container availability was not determined within the timeout.',
  known: 'Host is ready to be installed',
  installing: 'Installation is in progress',
  resettingPendingUserAction:
    'Host requires booting into the discovery image to complete resetting the installation',
  preparationSuccessful: 'Host finished successfully to prepare for installation',
  preparationFailure:
    'Host failed to prepare for installation due to following failing validation(s): $FAILING_VALIDATIONS',
  abortingDueClusterErrors: 'Host is part of a cluster that failed to install',
  installationTimedOut: 'Host failed to install due to timeout while starting installation',
  connectionTimedOutInstalling:
    'Host failed to install due to timeout while connecting to host during the installation phase.',
  connectionTimedOutPreparing:
    'Host failed to install due to timeout while connecting to host during the preparation phase.',
  connectionSoftTimedOutInstalling:
    'Host is failing to perform periodic health check during the installation phase.',
  connectionSoftTimedOutRecovered:
    'Host recovered from failure to perform periodic health check during the installation phase.',
  stageTimedOut:
    'Host failed to install because its installation stage $STAGE took longer than expected $MAX_TIME',
  stageNotProgressing:
    'Host failed to install because its installation stage $STAGE did not sufficiently progress in the last $MAX_TIME.',
  stageSoftTimedOut: 'Host installation stage $STAGE is taking longer than expected $MAX_TIME',
  stageNotProgressingSoft:
    'Host installation stage $STAGE is not progressing sufficiently in the last $MAX_TIME. To troubleshoot use kubeconfig or connect to the node using ssh',
  rebootTimeout:
    'Host timed out when pulling the configuration files. Verify in the host console that the host boots from the OpenShift installation disk $INSTALLATION_DISK and has network access to the cluster API. The installation will resume after the host successfully boots and can access the cluster API',
  pendingUserActionTimedOut: 'Host failed to boot from the installation disk within the expected time.',
  readyToBeBound: 'Host is ready to be bound to a cluster',
  binding: 'Host is waiting to be bound to the cluster',
  unbinding: 'Host is waiting to be unbound from the cluster',
  rebootingDay2:
    'Host has rebooted and no further updates will be posted. Please check console for progress and to possibly approve pending CSRs',
  rebootingForReclaim: 'Host is rebooting into the discovery image',
  restartedDuringInstallation: 'The host unexpectedly restarted during the installation',
  wrongBootOrder:
    'Expected the host to boot from disk, but it booted the installation image - please reboot and fix boot order to boot from disk',
  registeredAfterInstallation:
    'Host is trying to register after the cluster has already been installed. That most probably means that the host is booting from the installation ISO, and therefore not effectively joining the cluster. The request will be ignored. Fix the boot order and reboot the host.',
} as const;

/** Messages of every `failure` validation, sorted and joined with " ; " ($FAILING_VALIDATIONS). */
export function failingValidationMessages(validations: ValidationsInfo | undefined): string {
  const messages: string[] = [];
  for (const results of Object.values(validations ?? {})) {
    for (const r of results) if (r.status === 'failure') messages.push(r.message);
  }
  return messages.sort().join(' ; ');
}

/** Whether validation `id` currently reports `failure`. */
export function validationFailed(validations: ValidationsInfo | undefined, id: string): boolean {
  for (const results of Object.values(validations ?? {})) {
    const r = results.find((v) => v.id === id);
    if (r) return r.status === 'failure';
  }
  return false;
}

/** Replaces the first occurrence of each macro, as upstream's strings.Replace(…, 1). */
export function expandMacros(template: string, values: Readonly<Record<string, () => string>>): string {
  let out = template;
  for (const [macro, value] of Object.entries(values)) {
    if (out.includes(macro)) out = out.replace(macro, () => value());
  }
  return out;
}
