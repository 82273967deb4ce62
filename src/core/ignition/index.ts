// Discovery ignition (core.md §8.1–§8.3) and ignition overrides (§8.2).
export { buildIgnitionArchive, IGNITION_ARCHIVE_LIMIT_BYTES, ignitionArchiveSizeError } from './archive.ts';
export {
  ADDITIONAL_TRUST_BUNDLE_PATH,
  buildDiscoveryIgnition,
  DISCOVERY_IGNITION_VERSION,
  type DiscoveryIgnition,
  type DiscoveryIgnitionOptions,
  type GeneratedStaticNetwork,
  type MirrorRegistries,
  renderDiscoveryTemplate,
  SERVICE_CA_CERT_PATH_ON_HOST,
  splitList,
} from './discovery.ts';
export { base64DataUrl, canonicalJson, decodeDataUrl, escapedDataUrl, pathEscape } from './encoding.ts';
export {
  buildIronicAgentIgnition,
  DEFAULT_IRONIC_AGENT_IMAGE,
  DEFAULT_IRONIC_AGENT_IMAGE_ARM,
  type IronicAgentOptions,
  ipFamiliesFromAnnotation,
  ironicAgentOverride,
  ironicCallbackUrls,
  ironicUrlForSpoke,
} from './ironic.ts';
export { mergeIgnitionConfigs } from './merge.ts';
export { applyIgnitionOverride, type MergedIgnition, validateIgnitionOverride } from './override.ts';
export { IGNITION_ERRORS, type ParsedIgnition, parseIgnition, SUPPORTED_IGNITION_VERSIONS } from './parse.ts';
export {
  chooseStaticNetworkFlavour,
  generateStaticNetworkFiles,
  type HostStaticNetworkConfig,
  type KeyfileGenerator,
  nmPolicyYaml,
  type StaticNetworkFile,
  type StaticNetworkFlavour,
  sortStaticNetworkConfig,
  validateStaticNetworkConfig,
} from './static-network.ts';
export type { IgnitionConfig, IgnitionFile, IgnitionResult, IgnitionUnit, IgnitionVersion } from './types.ts';
