// install-config.yaml generation (core.md §7): a pure function of the cluster (with its hosts) and
// the service-side options. Pipeline: basic config → platform → overrides → trust bundle → render.

import type { Cluster } from '../model.ts';
import { buildBasicInstallConfig } from './builder.ts';
import { applyInstallConfigOverrides, InstallConfigOverrideError } from './overrides.ts';
import { addPlatform } from './platforms.ts';
import { renderInstallConfig } from './serialize.ts';
import { mergeTrustBundles, validatePemCertificateBundle } from './trust-bundle.ts';
import type { InstallConfig, InstallConfigFormat, InstallConfigOptions } from './types.ts';

export { countByEffectiveRole, generateNoProxy, hyperthreadingFor, InstallConfigError } from './builder.ts';
export {
  bootstrapHost,
  effectiveHostname,
  effectiveRole,
  hostNetworks,
  installationPath,
  isSingleNode,
  isTwoNodesWithFencing,
  primaryFamily,
} from './hosts.ts';
export { applyInstallConfigOverrides, InstallConfigOverrideError } from './overrides.ts';
export { userManagedMachineNetworks, VSPHERE_PLACEHOLDERS } from './platforms.ts';
export { mirrorSources, parseRegistriesConf } from './registries.ts';
export { goJsonMarshal, renderInstallConfig, toOrderedDocument } from './serialize.ts';
export { mergeTrustBundles, validatePemCertificateBundle } from './trust-bundle.ts';
export type * from './types.ts';

/**
 * The install-config document for a cluster. Overrides come from `options.overrides` when given,
 * else from `cluster.install_config_overrides`. Throws InstallConfigError (cluster data) or
 * InstallConfigOverrideError (overrides).
 */
export function buildInstallConfig(cluster: Cluster, options: InstallConfigOptions = {}): InstallConfig {
  const basic = buildBasicInstallConfig(cluster, options);
  addPlatform(basic, cluster, options);
  const cfg = applyInstallConfigOverrides(basic, options.overrides ?? cluster.install_config_overrides ?? '');
  const bundle = mergeTrustBundles(cfg.additionalTrustBundle, options);
  if (bundle !== '') cfg.additionalTrustBundle = bundle;
  return cfg;
}

/** install-config.yaml content: YAML by default, or upstream's exact JSON bytes with 'json'. */
export function generateInstallConfig(
  cluster: Cluster,
  options: InstallConfigOptions = {},
  format: InstallConfigFormat = 'yaml',
): string {
  return renderInstallConfig(buildInstallConfig(cluster, options), format);
}

/**
 * Checks a new overrides document before it is stored, as upstream's PATCH handler does: build
 * the config (with the overrides currently stored), apply the new document on top, then check the
 * resulting additionalTrustBundle. Throws InstallConfigOverrideError with a specific message.
 */
export function validateInstallConfigOverrides(
  cluster: Cluster,
  overrides: string,
  options: Omit<InstallConfigOptions, 'overrides'> = {},
): void {
  const current = buildInstallConfig(cluster, { ...options, rhRootCa: undefined });
  const patched = applyInstallConfigOverrides(current, overrides);
  if (patched.additionalTrustBundle) {
    try {
      validatePemCertificateBundle(patched.additionalTrustBundle);
    } catch (err) {
      throw new InstallConfigOverrideError(
        `additionalTrustBundle: ${(err as Error).message}`,
        'additionalTrustBundle',
      );
    }
  }
}
