// The discovery ignition (core.md §8.1–§8.3, agent-api.md §8): a pure function of the infra-env
// and the service's settings. Units and files are emitted in a fixed order and the JSON with
// sorted keys, so equal inputs give byte-identical output.

import type { InfraEnv } from '../model.ts';
import { ignitionArchiveSizeError } from './archive.ts';
import * as assets from './assets.ts';
import { base64DataUrl, canonicalJson, escapedDataUrl } from './encoding.ts';
import { type IronicAgentOptions, ironicAgentOverride } from './ironic.ts';
import { applyIgnitionOverride } from './override.ts';
import {
  chooseStaticNetworkFlavour,
  DEFAULT_MIN_VERSION_FOR_NMSTATECTL,
  generateStaticNetworkFiles,
  type KeyfileGenerator,
  type StaticNetworkFile,
  type StaticNetworkFlavour,
  sortStaticNetworkConfig,
} from './static-network.ts';
import {
  COMMON_NETWORK_SCRIPT,
  COMMON_NETWORK_SCRIPT_PATH,
  PRE_NETWORK_SCRIPT_KEYFILES,
  PRE_NETWORK_SCRIPT_NMSTATECTL,
  PRE_NETWORK_SCRIPT_PATH,
  PRE_NETWORK_SERVICE_KEYFILES,
  PRE_NETWORK_SERVICE_NMSTATECTL,
  STATIC_NETWORK_DIR,
} from './static-network-scripts.ts';
import type { IgnitionConfig, IgnitionFile, IgnitionResult, IgnitionUnit } from './types.ts';

export const DISCOVERY_IGNITION_VERSION = '3.1.0';
export const SERVICE_CA_CERT_PATH_ON_HOST = '/etc/assisted-service/service-ca-cert.crt';
export const ADDITIONAL_TRUST_BUNDLE_PATH =
  '/etc/pki/ca-trust/source/anchors/assisted-infraenv-additional-trust-bundle.pem';
export const RH_ROOT_CA_PATH = '/etc/pki/ca-trust/source/anchors/rh-it-root-ca.crt';
/** Upstream writes mode 644 *decimal* (0o1204) for proxy.sh; kept for byte compatibility. */
export const PROFILE_PROXY_MODE = 644;
const MODE_EXECUTABLE = 0o755;
const MODE_READABLE = 0o644;
const MODE_PRIVATE = 0o600;

export interface MirrorRegistries {
  /** registries.conf (TOML) text. */
  registriesConf: string;
  /** CA bundle for the mirrors (written to anchors/domain.crt). */
  caBundle?: string;
  /** Also write an accept-anything /etc/containers/policy.json. */
  insecurePolicy?: boolean;
}

export interface DiscoveryIgnitionOptions {
  /** SERVICE_BASE_URL: what the agent calls back. */
  serviceBaseUrl: string;
  /** AGENT_DOCKER_IMAGE. */
  agentImage: string;
  /** PULL_SECRET_TOKEN for the agent (sent as X-Secret-Key); omitted when empty. */
  agentToken?: string;
  /** AGENT_TIMEOUT_START in seconds (default 600). */
  agentTimeoutStartSeconds?: number;
  /** SKIP_CERT_VERIFICATION → `--insecure=true`. */
  skipCertVerification?: boolean;
  /** PEM of the service CA (SERVICE_CA_CERT_PATH): embedded and passed as `--cacert`. */
  serviceCaCert?: string;
  /** INSTALL_RH_CA: PEM of the Red Hat IT root CA. */
  redHatRootCa?: string;
  /** Mirror configuration of the infra-env; wins over the service-wide one. */
  infraEnvMirrorRegistries?: MirrorRegistries;
  /** Service-wide mirror configuration. */
  mirrorRegistries?: MirrorRegistries;
  /** OKD: the RPMs image to overlay; when set multipath/iSCSI/OCI bits are left out. */
  okdRpmsImage?: string;
  /** Image type; static networking is embedded only for full-iso (default: infra-env type, else full-iso). */
  imageType?: 'full-iso' | 'minimal-iso';
  /** Static network flavour; default by OCP version (≥ minNmstatectlVersion → nmstatectl). */
  staticNetworkFlavour?: StaticNetworkFlavour;
  minNmstatectlVersion?: string;
  /** Needed for the keyfile flavour: nmstate YAML → NetworkManager keyfiles. */
  keyfileGenerator?: KeyfileGenerator;
  /**
   * The infra-env's static network files as generateStaticNetworkFiles made them from its sorted
   * config, when the caller has them already (the ramdisk needs them too): embedded as they are,
   * instead of choosing the flavour and generating them again. Wins over the three options above.
   */
  staticNetwork?: GeneratedStaticNetwork;
  /** Converged flow: replaces the infra-env's internal override with the ironic agent additions. */
  ironicAgent?: IronicAgentOptions;
}

/** Static network files generated for an infra-env and the flavour they were generated in. */
export interface GeneratedStaticNetwork {
  flavour: StaticNetworkFlavour;
  files: StaticNetworkFile[];
}

export interface DiscoveryIgnition {
  config: IgnitionConfig;
  /** Canonical JSON text served as discovery.ign. */
  json: string;
}

const file = (path: string, mode: number, source: string, overwrite = true): IgnitionFile => ({
  path,
  mode,
  overwrite,
  user: { name: 'root' },
  contents: { source },
});

/** Split a comma list, trimming and dropping empty items. */
export function splitList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function ntpSettings(infraEnv: InfraEnv): { sources: string[]; mode: 'replace' | 'append' } | undefined {
  const replace = splitList(infraEnv.ntp_sources);
  if (replace.length > 0) return { sources: replace, mode: 'replace' };
  const append = splitList(infraEnv.additional_ntp_sources);
  return append.length > 0 ? { sources: append, mode: 'append' } : undefined;
}

/**
 * Renders the discovery ignition, then merges the internal override (or the ironic agent
 * additions) and the user's override in that order. With a user override the result must fit
 * the ISO's 256 KiB ignition area.
 */
export function buildDiscoveryIgnition(
  infraEnv: InfraEnv,
  options: DiscoveryIgnitionOptions,
): IgnitionResult<DiscoveryIgnition> {
  const internalOverride = options.ironicAgent
    ? ironicAgentOverride(infraEnv, options.ironicAgent)
    : infraEnv.internal_ignition_config_override || undefined;
  const base = renderDiscoveryTemplate(infraEnv, options, !internalOverride);
  if (!base.ok) return base;
  let config = base.value;
  for (const override of [internalOverride, infraEnv.ignition_config_override || undefined]) {
    if (!override) continue;
    const merged = applyIgnitionOverride(config, override);
    if (!merged.ok) return merged;
    config = merged.value.config;
  }
  const json = canonicalJson(config);
  if (infraEnv.ignition_config_override) {
    const sizeError = ignitionArchiveSizeError(json);
    if (sizeError) return { ok: false, error: sizeError };
  }
  return { ok: true, value: { config, json } };
}

/** What the template's parts are chosen from, worked out once. */
interface TemplateInputs {
  infraEnv: InfraEnv;
  options: DiscoveryIgnitionOptions;
  proxy: assets.ProxySettings;
  hasProxy: boolean;
  okd: boolean;
  ntp: ReturnType<typeof ntpSettings>;
  staticNetwork: ReturnType<typeof staticNetworkPart>;
}

/** The template part alone (no overrides): what upstream renders from discovery.ign. */
export function renderDiscoveryTemplate(
  infraEnv: InfraEnv,
  options: DiscoveryIgnitionOptions,
  enableAgentService = true,
): IgnitionResult<IgnitionConfig> {
  const proxy: assets.ProxySettings = {
    httpProxy: infraEnv.proxy?.http_proxy || undefined,
    httpsProxy: infraEnv.proxy?.https_proxy || undefined,
    noProxy: infraEnv.proxy?.no_proxy || undefined,
  };
  const inputs: TemplateInputs = {
    infraEnv,
    options,
    proxy,
    hasProxy: Boolean(proxy.httpProxy || proxy.httpsProxy),
    okd: Boolean(options.okdRpmsImage),
    ntp: ntpSettings(infraEnv),
    staticNetwork: staticNetworkPart(infraEnv, options),
  };
  if (inputs.staticNetwork.error) return { ok: false, error: inputs.staticNetwork.error };
  const config: IgnitionConfig = {
    ignition: { version: DISCOVERY_IGNITION_VERSION },
    passwd: { users: coreUser(infraEnv.ssh_authorized_key) },
    systemd: { units: discoveryUnits(inputs, enableAgentService) },
    storage: {
      files: [
        ...agentFiles(inputs),
        ...trustFiles(inputs),
        ...mirrorFiles(inputs),
        ...staticNetworkFiles(inputs),
        ...okdFiles(inputs),
        ...shellProfileFiles(inputs),
      ],
    },
  };
  if (inputs.hasProxy) {
    config.ignition.proxy = {
      ...(proxy.httpProxy ? { httpProxy: proxy.httpProxy } : {}),
      ...(proxy.httpsProxy ? { httpsProxy: proxy.httpsProxy } : {}),
      ...(splitList(proxy.noProxy).length ? { noProxy: splitList(proxy.noProxy) } : {}),
    };
  }
  return { ok: true, value: config };
}

/** The `core` user with the infra-env's SSH keys, when it has any. */
function coreUser(sshAuthorizedKey: string | undefined) {
  const sshKeys = (sshAuthorizedKey ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  return sshKeys.length
    ? [{ name: 'core', passwordHash: '!', sshAuthorizedKeys: sshKeys, groups: ['sudo'] }]
    : [];
}

function discoveryUnits(inputs: TemplateInputs, enableAgentService: boolean): IgnitionUnit[] {
  const { infraEnv, options, okd, staticNetwork } = inputs;
  const units: IgnitionUnit[] = [
    {
      name: 'agent.service',
      enabled: enableAgentService,
      contents: assets.agentService({
        agentImage: options.agentImage,
        serviceBaseUrl: options.serviceBaseUrl,
        infraEnvId: infraEnv.id,
        agentToken: options.agentToken || undefined,
        timeoutStartSeconds: options.agentTimeoutStartSeconds ?? 600,
        insecure: options.skipCertVerification ?? false,
        caCertPath: options.serviceCaCert ? SERVICE_CA_CERT_PATH_ON_HOST : undefined,
        proxy: inputs.proxy,
      }),
    },
    { name: 'selinux.service', enabled: true, contents: assets.SELINUX_SERVICE },
  ];
  if (!okd) {
    units.push(
      { name: 'multipathd.service', enabled: true },
      { name: 'iscsistart.service', enabled: true, contents: assets.ISCSISTART_SERVICE },
      { name: 'oci-eval-user-data.service', enabled: true, contents: assets.OCI_EVAL_USER_DATA_SERVICE },
    );
  }
  if (staticNetwork.flavour) {
    units.push({
      name: 'pre-network-manager-config.service',
      enabled: true,
      contents:
        staticNetwork.flavour === 'keyfile' ? PRE_NETWORK_SERVICE_KEYFILES : PRE_NETWORK_SERVICE_NMSTATECTL,
    });
  }
  if (okd) {
    units.push(
      { name: 'okd-overlay.service', enabled: true, contents: assets.OKD_OVERLAY_SERVICE },
      { name: 'systemd-journal-gatewayd.socket', enabled: true, contents: assets.JOURNAL_GATEWAYD_SOCKET },
    );
  }
  if (inputs.ntp)
    units.push({ name: 'add-ntp-sources.service', enabled: true, contents: assets.ADD_NTP_SOURCES_SERVICE });
  return units;
}

/** The agent's helpers, multipath/OCI bits (not on OKD), IPv6 settings, pull secret, SELinux policy. */
function agentFiles({ infraEnv, okd }: TemplateInputs): IgnitionFile[] {
  const files: IgnitionFile[] = [
    file('/usr/local/bin/agent-fix-bz1964591', MODE_EXECUTABLE, escapedDataUrl(assets.AGENT_FIX_BZ1964591)),
    file('/usr/local/bin/agent-pull-image', MODE_EXECUTABLE, escapedDataUrl(assets.AGENT_PULL_IMAGE)),
    file('/etc/motd', MODE_READABLE, escapedDataUrl(assets.MOTD)),
  ];
  if (!okd) {
    files.push(
      file(
        '/etc/multipath.conf',
        MODE_READABLE,
        base64DataUrl(assets.MULTIPATH_CONF, 'text/plain;charset=utf-8'),
      ),
      file(
        '/usr/local/bin/oci-eval-user-data.sh',
        MODE_EXECUTABLE,
        base64DataUrl(assets.OCI_EVAL_USER_DATA_SH, 'text/plain;charset=utf-8'),
      ),
    );
  }
  files.push(
    file('/etc/NetworkManager/conf.d/01-ipv6.conf', MODE_READABLE, escapedDataUrl(assets.IPV6_CONF)),
    file('/root/.docker/config.json', MODE_READABLE, escapedDataUrl(infraEnv.pull_secret ?? '')),
    file('/root/assisted.te', MODE_READABLE, base64DataUrl(assets.SELINUX_POLICY)),
  );
  return files;
}

/** CA certificates: Red Hat's root, the service's, the infra-env's additional trust bundle. */
function trustFiles({ infraEnv, options }: TemplateInputs): IgnitionFile[] {
  const files: IgnitionFile[] = [];
  if (options.redHatRootCa)
    files.push(file(RH_ROOT_CA_PATH, MODE_READABLE, escapedDataUrl(options.redHatRootCa)));
  if (options.serviceCaCert) {
    files.push(file(SERVICE_CA_CERT_PATH_ON_HOST, MODE_READABLE, base64DataUrl(options.serviceCaCert)));
  }
  if (infraEnv.additional_trust_bundle) {
    files.push(
      file(ADDITIONAL_TRUST_BUNDLE_PATH, MODE_READABLE, base64DataUrl(infraEnv.additional_trust_bundle)),
    );
  }
  return files;
}

/** Mirror registries: the infra-env's, else the service's. */
function mirrorFiles({ options }: TemplateInputs): IgnitionFile[] {
  const mirrors = options.infraEnvMirrorRegistries ?? options.mirrorRegistries;
  const files: IgnitionFile[] = [];
  if (mirrors?.registriesConf) {
    files.push(
      file('/etc/containers/registries.conf', MODE_READABLE, base64DataUrl(mirrors.registriesConf)),
      file(
        '/etc/pki/ca-trust/source/anchors/domain.crt',
        MODE_READABLE,
        base64DataUrl(mirrors.caBundle ?? ''),
      ),
    );
  }
  if (mirrors?.insecurePolicy) {
    files.push(
      file('/etc/containers/policy.json', MODE_READABLE, base64DataUrl(assets.INSECURE_POLICY_JSON)),
    );
  }
  return files;
}

/** The pre-network scripts and the generated static network files. */
function staticNetworkFiles({ staticNetwork }: TemplateInputs): IgnitionFile[] {
  if (!staticNetwork.flavour) return [];
  const script =
    staticNetwork.flavour === 'keyfile' ? PRE_NETWORK_SCRIPT_KEYFILES : PRE_NETWORK_SCRIPT_NMSTATECTL;
  return [
    file(PRE_NETWORK_SCRIPT_PATH, MODE_EXECUTABLE, base64DataUrl(script)),
    file(COMMON_NETWORK_SCRIPT_PATH, MODE_EXECUTABLE, base64DataUrl(COMMON_NETWORK_SCRIPT)),
    ...(staticNetwork.files ?? []).map((f) =>
      file(`${STATIC_NETWORK_DIR}/${f.path}`, MODE_PRIVATE, base64DataUrl(f.contents)),
    ),
  ];
}

/** OKD: the binaries overlay and the drop-ins that wait for it. */
function okdFiles({ okd, options }: TemplateInputs): IgnitionFile[] {
  if (!okd || !options.okdRpmsImage) return [];
  return [
    file(
      '/usr/local/bin/okd-binaries.sh',
      MODE_EXECUTABLE,
      base64DataUrl(assets.okdBinariesScript(options.okdRpmsImage)),
    ),
    file(
      '/etc/systemd/system/release-image-pivot.service.d/wait-for-okd.conf',
      MODE_READABLE,
      base64DataUrl(assets.WAIT_FOR_OKD_DROPIN),
    ),
    file(
      '/etc/systemd/system/agent.service.d/wait-for-okd.conf',
      MODE_READABLE,
      base64DataUrl(assets.WAIT_FOR_OKD_DROPIN),
    ),
  ];
}

/** The login shell's proxy settings and the NTP sources script (both without `overwrite`, as upstream). */
function shellProfileFiles({ hasProxy, proxy, ntp }: TemplateInputs): IgnitionFile[] {
  const files: IgnitionFile[] = [];
  if (hasProxy) {
    const proxyFile = file(
      '/etc/profile.d/proxy.sh',
      PROFILE_PROXY_MODE,
      escapedDataUrl(assets.profileProxyScript(proxy)),
    );
    delete proxyFile.overwrite;
    files.push(proxyFile);
  }
  if (ntp) {
    const ntpFile = file(
      '/usr/local/bin/add-ntp-sources.sh',
      MODE_EXECUTABLE,
      base64DataUrl(assets.addNtpSourcesScript(ntp.sources, ntp.mode), 'text/plain;charset=utf-8'),
    );
    delete ntpFile.overwrite;
    files.push(ntpFile);
  }
  return files;
}

function staticNetworkPart(
  infraEnv: InfraEnv,
  options: DiscoveryIgnitionOptions,
): { flavour?: StaticNetworkFlavour; files?: { path: string; contents: string }[]; error?: string } {
  const configs = infraEnv.static_network_config ?? [];
  const imageType = options.imageType ?? infraEnv.type ?? 'full-iso';
  if (configs.length === 0 || imageType !== 'full-iso') return {};
  if (options.staticNetwork)
    return { flavour: options.staticNetwork.flavour, files: options.staticNetwork.files };
  const sorted = sortStaticNetworkConfig(configs);
  const flavour =
    options.staticNetworkFlavour ??
    chooseStaticNetworkFlavour(
      sorted,
      infraEnv.openshift_version,
      options.minNmstatectlVersion ?? DEFAULT_MIN_VERSION_FOR_NMSTATECTL,
    );
  const generated = generateStaticNetworkFiles(sorted, flavour, options.keyfileGenerator);
  if (generated.error) return { error: generated.error };
  return { flavour, files: generated.files };
}
