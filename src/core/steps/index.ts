// Next-step instructions (core.md §9) and step-reply decoding (§9.4).
export { apiVipConnectivityRequest, day2CoreosImage, day2Pool, day2TangServers } from './day2.ts';
export {
  encryptionCoversRole,
  imageRegistryHost,
  ntpSourcesFor,
} from './discovery-steps.ts';
export {
  buildInstallCmdRequest,
  type InstallCmdRequest,
  installerNoProxy,
  mustGatherImageArg,
} from './install-cmd.ts';
export { imagesToCheck, otherMasterIps } from './install-steps.ts';
export { constructInstallerArgs } from './installer-args.ts';
export {
  agentIsOutdated,
  makeStepId,
  type NextStepsResult,
  nextSteps,
  nextStepsDetailed,
  type StepError,
  shouldUpgradeAgent,
  stepsAreReusable,
  stepTableFor,
  stepTableRow,
  withFreshStepIds,
} from './next-steps.ts';
export {
  INSTALLER_ALREADY_RUNNING_MESSAGE,
  MEDIA_DISCONNECTED_EXIT_CODE,
  parseStepReply,
  type StepReply,
  type StepReplyResult,
  type StepReplyValue,
} from './replies.ts';
export {
  DAY1_TABLE,
  DAY2_TABLE,
  DEFAULT_ROW,
  POOL_TABLE,
  STEP_TABLES,
  type StepTableRow,
  UPGRADE_AGENT_STATUSES,
} from './tables.ts';
export {
  type HostIgnitionEndpoint,
  type PostStepAction,
  type ReleaseInfo,
  STEP_TYPES,
  type Step,
  type Steps,
  type StepsContext,
  type StepsOptions,
  type StepType,
} from './types.ts';
