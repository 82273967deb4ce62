// Converts the agent-based installer's input files (install-config.yaml + agent-config.yaml) into
// the custom resources this operator consumes: Namespace, pull-secret Secret, ClusterImageSet,
// ClusterDeployment, AgentClusterInstall, InfraEnv and one NMStateConfig per host with a static
// network configuration. Pure: no I/O; the CLI reads the files and prints or writes the result.
//
// What cannot be expressed before the hosts register is reported in `notes` rather than dropped
// silently: rendezvousIP (there is no rendezvous host, the operator is the service) and the
// per-host hostname/role/rootDeviceHints (they belong on the Agents, which the hosts create when
// they boot; `agent-install status` lists them and `kubectl patch agent` sets them).

import { parseAllDocuments, stringify } from 'yaml';
import {
  AGENTCLUSTERINSTALL_API_VERSION,
  AGENTCLUSTERINSTALL_GROUP,
  AGENTCLUSTERINSTALL_KIND,
  AGENTCLUSTERINSTALL_VERSION,
  CLUSTERDEPLOYMENT_API_VERSION,
  CLUSTERIMAGESET_API_VERSION,
  INFRAENV_API_VERSION,
  INSTALL_CONFIG_OVERRIDES_ANNOTATION,
  NMSTATECONFIG_API_VERSION,
} from '../api/index.ts';

/** Release installed when neither --release-image nor --openshift-version is given. */
export const DEFAULT_OPENSHIFT_VERSION = '4.18.1';
/** Label put on the NMStateConfigs and selected by the InfraEnv (the ZTP convention). */
export const NMSTATE_CONFIG_LABEL = 'infraenvs.agent-install.openshift.io';
/** Label the InfraEnv puts on its Agents and the ClusterDeployment's agentSelector matches. */
export const CLUSTER_NAME_LABEL = 'agent-install.openshift.io/cluster-name';

export interface ManifestOptions {
  /** Namespace of the namespaced resources; defaults to install-config metadata.namespace, else metadata.name. */
  namespace?: string;
  /** Release image; defaults to the official OCP release of `openshiftVersion` for the control plane architecture. */
  releaseImage?: string;
  /** OpenShift version (x.y.z) used for the default release image and the ClusterImageSet name. */
  openshiftVersion?: string;
}

export interface KubeManifest {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [key: string]: unknown;
}

export interface ManifestResult {
  manifests: KubeManifest[];
  /** Inputs that were not converted, or were converted with a caveat. */
  notes: string[];
}

export class ManifestInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ManifestInputError';
  }
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function obj(v: unknown, what: string): Obj {
  if (v === undefined || v === null) return {};
  if (!isObj(v)) throw new ManifestInputError(`${what} must be a mapping`);
  return v;
}
function list(v: unknown, what: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new ManifestInputError(`${what} must be a list`);
  return v;
}
function str(v: unknown, what: string, required = false): string | undefined {
  if (v === undefined || v === null || v === '') {
    if (required) throw new ManifestInputError(`${what} is required`);
    return undefined;
  }
  if (typeof v !== 'string') throw new ManifestInputError(`${what} must be a string`);
  return v;
}
function int(v: unknown, what: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) {
    throw new ManifestInputError(`${what} must be a non-negative integer`);
  }
  return v;
}

/** Parses a YAML file that must hold exactly one mapping. */
export function parseSingleYaml(text: string, what: string): Obj {
  const docs = parseAllDocuments(text);
  if (!Array.isArray(docs) || docs.length !== 1)
    throw new ManifestInputError(`${what}: expected one YAML document`);
  const doc = docs[0]!;
  if (doc.errors.length > 0) throw new ManifestInputError(`${what}: ${doc.errors[0]!.message}`);
  const value: unknown = doc.toJS();
  if (!isObj(value)) throw new ManifestInputError(`${what}: expected a mapping`);
  return value;
}

/** install-config architecture names → release image suffix. */
const RELEASE_ARCH: Record<string, string> = {
  amd64: 'x86_64',
  x86_64: 'x86_64',
  arm64: 'aarch64',
  aarch64: 'aarch64',
  ppc64le: 'ppc64le',
  s390x: 's390x',
};

/** install-config architecture names → InfraEnv cpuArchitecture. */
const INFRAENV_ARCH: Record<string, string> = {
  amd64: 'x86_64',
  x86_64: 'x86_64',
  arm64: 'arm64',
  aarch64: 'arm64',
  ppc64le: 'ppc64le',
  s390x: 's390x',
};

export function defaultReleaseImage(version: string, architecture = 'amd64'): string {
  const arch = RELEASE_ARCH[architecture];
  if (!arch) throw new ManifestInputError(`unsupported architecture ${JSON.stringify(architecture)}`);
  return `quay.io/openshift-release-dev/ocp-release:${version}-${arch}`;
}

/** install-config platform key → AgentClusterInstall platformType. */
const PLATFORMS: Record<string, string> = {
  baremetal: 'BareMetal',
  none: 'None',
  vsphere: 'VSphere',
  nutanix: 'Nutanix',
  external: 'External',
};

function vips(platform: Obj, plural: string, singular: string, where: string): string[] | undefined {
  const many = list(platform[plural], `${where}.${plural}`).map(
    (v, i) => str(v, `${where}.${plural}[${i}]`, true)!,
  );
  if (many.length > 0) return many;
  const one = str(platform[singular], `${where}.${singular}`);
  return one ? [one] : undefined;
}

interface AgentConfigHost {
  hostname?: string;
  role?: string;
  interfaces: { name: string; macAddress: string }[];
  networkConfig?: Obj;
  rootDeviceHints?: Obj;
}

function parseHosts(agentConfig: Obj): AgentConfigHost[] {
  return list(agentConfig.hosts, 'agent-config hosts').map((raw, i) => {
    const where = `agent-config hosts[${i}]`;
    const h = obj(raw, where);
    const role = str(h.role, `${where}.role`);
    if (role !== undefined && role !== 'master' && role !== 'worker' && role !== 'arbiter') {
      throw new ManifestInputError(`${where}.role must be master, worker or arbiter`);
    }
    const interfaces = list(h.interfaces, `${where}.interfaces`).map((r, j) => {
      const nic = obj(r, `${where}.interfaces[${j}]`);
      return {
        name: str(nic.name, `${where}.interfaces[${j}].name`, true)!,
        macAddress: str(nic.macAddress, `${where}.interfaces[${j}].macAddress`, true)!.toLowerCase(),
      };
    });
    const networkConfig =
      h.networkConfig === undefined ? undefined : obj(h.networkConfig, `${where}.networkConfig`);
    if (networkConfig && interfaces.length === 0) {
      throw new ManifestInputError(
        `${where}: networkConfig needs interfaces (name and macAddress) to find the host`,
      );
    }
    return {
      hostname: str(h.hostname, `${where}.hostname`),
      role,
      interfaces,
      networkConfig,
      rootDeviceHints:
        h.rootDeviceHints === undefined ? undefined : obj(h.rootDeviceHints, `${where}.rootDeviceHints`),
    };
  });
}

/** A DNS-1123 name fragment from a hostname or MAC address. */
function nameFragment(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** Converts parsed install-config and agent-config mappings into the operator's resources. */
export function convertAgentInstallerConfig(
  installConfig: Obj,
  agentConfig: Obj,
  opts: ManifestOptions = {},
): ManifestResult {
  const notes: string[] = [];
  const meta = obj(installConfig.metadata, 'install-config metadata');
  const clusterName = str(meta.name, 'install-config metadata.name', true)!;
  const baseDomain = str(installConfig.baseDomain, 'install-config baseDomain', true)!;
  const pullSecret = str(installConfig.pullSecret, 'install-config pullSecret', true)!;
  try {
    JSON.parse(pullSecret);
  } catch {
    throw new ManifestInputError('install-config pullSecret must be JSON (a .dockerconfigjson)');
  }
  const namespace = opts.namespace ?? str(meta.namespace, 'install-config metadata.namespace') ?? clusterName;
  const sshKey = str(installConfig.sshKey, 'install-config sshKey')?.trim();

  const controlPlane = obj(installConfig.controlPlane, 'install-config controlPlane');
  const compute = list(installConfig.compute, 'install-config compute').map((c, i) =>
    obj(c, `install-config compute[${i}]`),
  );
  const workerPool = compute.find((c) => (c.name ?? 'worker') === 'worker');
  const controlPlaneAgents = int(controlPlane.replicas, 'install-config controlPlane.replicas') ?? 3;
  const workerAgents = workerPool
    ? (int(workerPool.replicas, 'install-config compute[worker].replicas') ?? 0)
    : 0;
  const arbiterPool =
    installConfig.arbiter === undefined ? undefined : obj(installConfig.arbiter, 'install-config arbiter');
  const arbiterAgents = arbiterPool
    ? int(arbiterPool.replicas, 'install-config arbiter.replicas')
    : undefined;
  const architecture = str(controlPlane.architecture, 'install-config controlPlane.architecture') ?? 'amd64';

  // Release: an explicit image wins; otherwise the official image of the requested version.
  const version = opts.openshiftVersion ?? versionFromImage(opts.releaseImage) ?? DEFAULT_OPENSHIFT_VERSION;
  const releaseImage = opts.releaseImage ?? defaultReleaseImage(version, architecture);
  const imageSetName = `openshift-v${version.toLowerCase().replace(/[^a-z0-9.-]+/g, '-')}`;

  // Networking.
  const net = obj(installConfig.networking, 'install-config networking');
  const networking: Obj = {};
  const clusterNetwork = list(net.clusterNetwork, 'networking.clusterNetwork').map((e, i) => {
    const n = obj(e, `networking.clusterNetwork[${i}]`);
    const entry: Obj = { cidr: str(n.cidr, `networking.clusterNetwork[${i}].cidr`, true) };
    const hostPrefix = int(n.hostPrefix, `networking.clusterNetwork[${i}].hostPrefix`);
    if (hostPrefix !== undefined) entry.hostPrefix = hostPrefix;
    return entry;
  });
  if (clusterNetwork.length > 0) networking.clusterNetwork = clusterNetwork;
  const serviceNetwork = list(net.serviceNetwork, 'networking.serviceNetwork').map(
    (e, i) => str(e, `networking.serviceNetwork[${i}]`, true)!,
  );
  if (serviceNetwork.length > 0) networking.serviceNetwork = serviceNetwork;
  const machineNetwork = list(net.machineNetwork, 'networking.machineNetwork').map((e, i) => ({
    cidr: str(obj(e, `networking.machineNetwork[${i}]`).cidr, `networking.machineNetwork[${i}].cidr`, true),
  }));
  if (machineNetwork.length > 0) networking.machineNetwork = machineNetwork;
  const networkType = str(net.networkType, 'networking.networkType');
  if (networkType) networking.networkType = networkType;

  // Platform and VIPs.
  const platforms = obj(installConfig.platform, 'install-config platform');
  const platformKeys = Object.keys(platforms);
  if (platformKeys.length > 1) throw new ManifestInputError('install-config platform must name one platform');
  const platformKey = platformKeys[0] ?? (controlPlaneAgents === 1 ? 'none' : 'baremetal');
  const platformType = PLATFORMS[platformKey];
  if (!platformType) {
    throw new ManifestInputError(
      `install-config platform ${platformKey} is not supported (one of ${Object.keys(PLATFORMS).join(', ')})`,
    );
  }
  const platform = obj(platforms[platformKey], `install-config platform.${platformKey}`);
  const apiVIPs = vips(platform, 'apiVIPs', 'apiVIP', `platform.${platformKey}`);
  const ingressVIPs = vips(platform, 'ingressVIPs', 'ingressVIP', `platform.${platformKey}`);
  if (platformType === 'None') networking.userManagedNetworking = true;
  for (const key of Object.keys(platform)) {
    if (!['apiVIP', 'apiVIPs', 'ingressVIP', 'ingressVIPs', 'platformName'].includes(key)) {
      notes.push(`install-config platform.${platformKey}.${key} is not converted`);
    }
  }

  const pool = (p: Obj | undefined, name: string): Obj => ({
    name,
    hyperthreading: str(p?.hyperthreading, `${name} hyperthreading`) ?? 'Enabled',
  });

  const aciSpec: Obj = {
    clusterDeploymentRef: { name: clusterName },
    imageSetRef: { name: imageSetName },
    platformType,
    networking,
    provisionRequirements: {
      controlPlaneAgents,
      workerAgents,
      ...(arbiterAgents !== undefined ? { arbiterAgents } : {}),
    },
    controlPlane: pool(controlPlane, 'master'),
    compute: [pool(workerPool, 'worker')],
  };
  if (arbiterPool) aciSpec.arbiter = pool(arbiterPool, 'arbiter');
  if (apiVIPs) aciSpec.apiVIPs = apiVIPs;
  if (ingressVIPs) aciSpec.ingressVIPs = ingressVIPs;
  if (sshKey) aciSpec.sshPublicKey = sshKey;
  if (platformType === 'External') {
    const platformName = str(platform.platformName, 'platform.external.platformName');
    aciSpec.external = platformName ? { platformName } : {};
  }

  // Proxy: the cluster's (ACI) and the discovery agent's (InfraEnv) are the same here.
  let proxy: Obj | undefined;
  if (installConfig.proxy !== undefined) {
    const p = obj(installConfig.proxy, 'install-config proxy');
    proxy = {};
    for (const key of ['httpProxy', 'httpsProxy', 'noProxy'] as const) {
      const v = str(p[key], `proxy.${key}`);
      if (v) proxy[key] = v;
    }
    aciSpec.proxy = proxy;
  }

  // additionalTrustBundle: the InfraEnv takes it for discovery; the installed cluster gets it
  // through the install-config overrides (the ACI has no field for it).
  const trustBundle = str(installConfig.additionalTrustBundle, 'install-config additionalTrustBundle');
  const aciAnnotations: Record<string, string> = {};
  if (trustBundle) {
    const overrides: Obj = { additionalTrustBundle: trustBundle };
    const policy = str(
      installConfig.additionalTrustBundlePolicy,
      'install-config additionalTrustBundlePolicy',
    );
    if (policy) overrides.additionalTrustBundlePolicy = policy;
    aciAnnotations[INSTALL_CONFIG_OVERRIDES_ANNOTATION] = JSON.stringify(overrides);
  }
  for (const key of ['imageContentSources', 'imageDigestSources', 'fips', 'capabilities', 'featureSet']) {
    if (installConfig[key] !== undefined) notes.push(`install-config ${key} is not converted`);
  }

  // Agent config.
  const hosts = parseHosts(agentConfig);
  const rendezvousIP = str(agentConfig.rendezvousIP, 'agent-config rendezvousIP');
  if (rendezvousIP) {
    notes.push(`agent-config rendezvousIP ${rendezvousIP} is not used: the operator serves the installation`);
  }
  const pullSecretName = `${clusterName}-pull-secret`;
  const labels = { [CLUSTER_NAME_LABEL]: clusterName };

  const manifests: KubeManifest[] = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: pullSecretName, namespace },
      type: 'kubernetes.io/dockerconfigjson',
      stringData: { '.dockerconfigjson': pullSecret },
    },
    {
      apiVersion: CLUSTERIMAGESET_API_VERSION,
      kind: 'ClusterImageSet',
      metadata: { name: imageSetName },
      spec: { releaseImage },
    },
    {
      apiVersion: CLUSTERDEPLOYMENT_API_VERSION,
      kind: 'ClusterDeployment',
      metadata: { name: clusterName, namespace },
      spec: {
        clusterName,
        baseDomain,
        clusterInstallRef: {
          group: AGENTCLUSTERINSTALL_GROUP,
          version: AGENTCLUSTERINSTALL_VERSION,
          kind: AGENTCLUSTERINSTALL_KIND,
          name: clusterName,
        },
        platform: { agentBareMetal: { agentSelector: { matchLabels: labels } } },
        pullSecretRef: { name: pullSecretName },
      },
    },
    {
      apiVersion: AGENTCLUSTERINSTALL_API_VERSION,
      kind: AGENTCLUSTERINSTALL_KIND,
      metadata: {
        name: clusterName,
        namespace,
        ...(Object.keys(aciAnnotations).length > 0 ? { annotations: aciAnnotations } : {}),
      },
      spec: aciSpec,
    },
  ];

  const infraEnvSpec: Obj = {
    clusterRef: { name: clusterName, namespace },
    pullSecretRef: { name: pullSecretName },
    cpuArchitecture: INFRAENV_ARCH[architecture] ?? 'x86_64',
    agentLabels: labels,
  };
  if (sshKey) infraEnvSpec.sshAuthorizedKey = sshKey;
  if (proxy) infraEnvSpec.proxy = proxy;
  if (trustBundle) infraEnvSpec.additionalTrustBundle = trustBundle;
  const staticHosts = hosts.filter((h) => h.networkConfig);
  if (staticHosts.length > 0)
    infraEnvSpec.nmStateConfigLabelSelector = { matchLabels: { [NMSTATE_CONFIG_LABEL]: clusterName } };
  manifests.push({
    apiVersion: INFRAENV_API_VERSION,
    kind: 'InfraEnv',
    metadata: { name: clusterName, namespace },
    spec: infraEnvSpec,
  });

  const usedNames = new Set<string>();
  hosts.forEach((h, i) => {
    const label = h.hostname ?? h.interfaces[0]?.macAddress ?? `host-${i}`;
    if (h.hostname || h.role || h.rootDeviceHints) {
      const parts = [
        h.hostname ? `hostname ${h.hostname}` : '',
        h.role ? `role ${h.role}` : '',
        h.rootDeviceHints ? `rootDeviceHints ${JSON.stringify(h.rootDeviceHints)}` : '',
      ].filter(Boolean);
      notes.push(`host ${label}: set ${parts.join(', ')} on its Agent once it registers`);
    }
    if (!h.networkConfig) return;
    let name = `${clusterName}-${nameFragment(label)}`;
    for (let n = 2; usedNames.has(name); n++) name = `${clusterName}-${nameFragment(label)}-${n}`;
    usedNames.add(name);
    manifests.push({
      apiVersion: NMSTATECONFIG_API_VERSION,
      kind: 'NMStateConfig',
      metadata: { name, namespace, labels: { [NMSTATE_CONFIG_LABEL]: clusterName } },
      spec: { config: h.networkConfig, interfaces: h.interfaces },
    });
  });
  return { manifests, notes };
}

/** `quay.io/...:4.18.1-x86_64` → `4.18.1`. */
function versionFromImage(image: string | undefined): string | undefined {
  const tag = image?.match(/:(\d+\.\d+(?:\.\d+)?(?:-[a-z]+\.\d+)?)(?:-[a-z0-9_]+)?$/)?.[1];
  return tag;
}

/** Converts the two files' text. */
export function convertAgentInstallerFiles(
  installConfigYaml: string,
  agentConfigYaml: string,
  opts: ManifestOptions = {},
): ManifestResult {
  return convertAgentInstallerConfig(
    parseSingleYaml(installConfigYaml, 'install-config.yaml'),
    parseSingleYaml(agentConfigYaml, 'agent-config.yaml'),
    opts,
  );
}

/** Multi-document YAML, in apply order. */
export function renderManifests(manifests: readonly KubeManifest[]): string {
  return manifests.map((m) => stringify(m, { lineWidth: 0 })).join('---\n');
}

/** File name for one manifest when writing to a directory: `NN-<kind>-<name>.yaml`. */
export function manifestFileName(m: KubeManifest, index: number): string {
  return `${String(index).padStart(2, '0')}-${m.kind.toLowerCase()}-${m.metadata.name}.yaml`;
}
