// Install-time artifacts (core.md §8.4–§8.6): role and per-host ignitions, day-2 pointers,
// post-processing of openshift-install output, and the built-in artifact generator.

export {
  createAdminClientCert,
  createRootCa,
  type GeneratedCertificate,
  generateInfraId,
  generateKubeadminPassword,
  KUBEADMIN_PASSWORD_PATTERN,
  type RandomSource,
  randomString,
  randomUuid,
  renderAdminKubeconfig,
} from './credentials.ts';
export {
  buildDay2PointerIgnition,
  type Day2IgnitionInput,
  day2IgnitionEndpoint,
  day2Pool,
  type IgnitionEndpoint,
} from './day2.ts';
export {
  type ArtifactGenerator,
  type ArtifactGeneratorInput,
  BuiltinArtifactGenerator,
  type InstallArtifacts,
} from './generator.ts';
export {
  addHostInstallIgnitions,
  addStaterootCleanup,
  applyHostIgnitionOverride,
  buildHostInstallIgnition,
  type ClusterManifest,
  HOSTNAME_PATH,
  type HostIgnitionFile,
  type HostIgnitionInput,
  hostIgnitionFileName,
  NODE_IP_HINT_PATH,
  nodeIpHint,
  type RoleIgnitions,
  rewriteMachineConfigPool,
  STATEROOT_CLEANUP_SCRIPT,
  STATEROOT_CLEANUP_UNIT,
} from './host-ignition.ts';
export {
  dataUrl,
  decodeDataUrl,
  emptyIgnition,
  type IgnitionConfig,
  IgnitionError,
  type IgnitionFile,
  type IgnitionUnit,
  inlineFile,
  MACHINE_CONFIG_SERVER_HTTP_PORT,
  MACHINE_CONFIG_SERVER_PORT,
  machineConfigServerUrl,
  POINTER_IGNITION_VERSION,
  parseIgnition,
  pointerIgnition,
  serializeIgnition,
  setFile,
  setUnit,
} from './ignition.ts';
export { ACCEPTED_OVERRIDE_VERSIONS, checkOverrideVersion, mergeIgnition } from './ignition-merge.ts';
export { builtinManifests, controlPlaneTopology, infrastructureTopology } from './manifests.ts';
export {
  type DhcpVip,
  INFRASTRUCTURE_MANIFEST,
  patchInfrastructureTopology,
  postProcessBootstrapIgnition,
  postProcessRoleIgnition,
  type RolePostProcessOptions,
} from './postprocess.ts';
export { MAX_MANIFEST_BYTES, userManifestProblem } from './user-manifest.ts';
