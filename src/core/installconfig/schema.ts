// The install-config "struct model": every key the service knows, in upstream's Go struct field
// order, with its Go kind and `omitempty` flag. One table drives both serialisation (key order,
// which zero values are dropped) and override decoding (which keys exist, what type each has), so
// the two can never disagree.

export type GoType =
  | { kind: 'string' }
  | { kind: 'bool' }
  | { kind: 'int'; bits: 32 | 64 }
  | { kind: 'struct'; name: string; fields: readonly GoField[] }
  | { kind: 'pointer'; elem: GoType }
  | { kind: 'slice'; elem: GoType };

export interface GoField {
  /** The JSON key (Go `json:"..."` tag, or the Go field name where upstream has no JSON tag). */
  name: string;
  type: GoType;
  omitEmpty?: boolean;
}

const str: GoType = { kind: 'string' };
const bool: GoType = { kind: 'bool' };
const int: GoType = { kind: 'int', bits: 64 };
const int32: GoType = { kind: 'int', bits: 32 };
const strings: GoType = { kind: 'slice', elem: str };

function struct(name: string, fields: GoField[]): GoType {
  return { kind: 'struct', name, fields };
}
function ptr(elem: GoType): GoType {
  return { kind: 'pointer', elem };
}
function slice(elem: GoType): GoType {
  return { kind: 'slice', elem };
}
function f(name: string, type: GoType, omitEmpty = false): GoField {
  return omitEmpty ? { name, type, omitEmpty } : { name, type };
}

const loadBalancer = ptr(struct('LoadBalancer', [f('type', str, true)]));

const bmc = struct('BMC', [
  f('username', str),
  f('password', str),
  f('address', str),
  f('disableCertificateVerification', bool),
]);

const baremetalHost = struct('Host', [
  f('name', str),
  f('role', str),
  f('bootMACAddress', str),
  f('bootMode', str),
  f('bmc', bmc),
  f('hardwareProfile', str),
]);

const baremetal = struct('BareMetalInstallConfigPlatform', [
  f('provisioningNetwork', str),
  f('apiVIPs', strings, true),
  f('apiVIP', str, true),
  f('ingressVIPs', strings, true),
  f('ingressVIP', str, true),
  f('hosts', slice(baremetalHost)),
  f('clusterOSImage', str, true),
  f('clusterProvisioningIP', str, true),
  f('provisioningNetworkInterface', str, true),
  f('provisioningNetworkCIDR', ptr(str), true),
  f('provisioningDHCPRange', str, true),
  f('additionalNTPServers', strings, true),
  f('loadBalancer', loadBalancer, true),
]);

const vsphereTopology = struct('VsphereFailureDomainTopology', [
  f('computeCluster', str),
  f('datacenter', str),
  f('datastore', str),
  f('folder', str, true),
  f('networks', strings, true),
  f('resourcePool', str, true),
]);

const vsphere = struct('VsphereInstallConfigPlatform', [
  f('vCenter', str, true),
  f('username', str, true),
  f('password', str, true),
  f('datacenter', str, true),
  f('defaultDatastore', str, true),
  f('folder', str, true),
  f('network', str, true),
  f('cluster', str, true),
  f('apiVIP', str, true),
  f('ingressVIP', str, true),
  f('ingressVIPs', strings, true),
  f('apiVIPs', strings, true),
  f(
    'failureDomains',
    slice(
      struct('VsphereFailureDomain', [
        f('name', str),
        f('region', str),
        f('server', str),
        f('topology', vsphereTopology),
        f('zone', str),
      ]),
    ),
    true,
  ),
  f(
    'vcenters',
    slice(
      struct('VsphereVCenter', [
        f('datacenters', strings),
        f('password', str),
        f('port', int32, true),
        f('server', str),
        f('user', str),
      ]),
    ),
    true,
  ),
  f('loadBalancer', loadBalancer, true),
]);

const nutanixEndpoint = struct('NutanixEndpoint', [f('address', str), f('port', int32)]);

const nutanix = struct('NutanixInstallConfigPlatform', [
  f('apiVIPs', strings, true),
  f('apiVIP', str, true),
  f('ingressVIPs', strings, true),
  f('ingressVIP', str, true),
  f(
    'prismCentral',
    struct('NutanixPrismCentral', [f('endpoint', nutanixEndpoint), f('username', str), f('password', str)]),
  ),
  f(
    'prismElements',
    slice(struct('NutanixPrismElement', [f('endpoint', nutanixEndpoint), f('uuid', str), f('name', str)])),
  ),
  f('subnetUUIDs', strings),
]);

// Upstream's external-platform struct carries only YAML tags, so its JSON keys are the Go field names.
const external = struct('ExternalInstallConfigPlatform', [
  f('PlatformName', str),
  f('CloudControllerManager', str),
]);

const platform = struct('Platform', [
  f('baremetal', ptr(baremetal), true),
  f('none', ptr(struct('PlatformNone', [])), true),
  f('vsphere', ptr(vsphere), true),
  f('nutanix', ptr(nutanix), true),
  f('external', ptr(external), true),
]);

const fencingCredential = struct('FencingCredential', [
  f('hostname', str, true),
  f('macAddress', str, true),
  f('address', str),
  f('username', str),
  f('password', str),
  f('certificateVerification', ptr(str), true),
]);

const machinePool = (name: string, extra: GoField[] = []) =>
  struct(name, [f('hyperthreading', str, true), f('name', str), f('replicas', int), ...extra]);

export const INSTALL_CONFIG_TYPE: GoType = struct('InstallerConfigBaremetal', [
  f('apiVersion', str),
  f('baseDomain', str),
  f(
    'proxy',
    ptr(struct('Proxy', [f('httpProxy', str, true), f('httpsProxy', str, true), f('noProxy', str, true)])),
    true,
  ),
  f(
    'networking',
    struct('Networking', [
      f('networkType', str),
      f('clusterNetwork', slice(struct('ClusterNetwork', [f('cidr', str), f('hostPrefix', int)]))),
      f('machineNetwork', slice(struct('MachineNetwork', [f('cidr', str)])), true),
      f('serviceNetwork', strings),
    ]),
  ),
  f('metadata', struct('Metadata', [f('name', str)])),
  f('compute', slice(machinePool('Compute'))),
  f(
    'controlPlane',
    machinePool('ControlPlane', [
      f('fencing', ptr(struct('Fencing', [f('credentials', slice(ptr(fencingCredential)), true)])), true),
    ]),
  ),
  f('arbiter', ptr(machinePool('Arbiter')), true),
  f('platform', platform),
  f('bootstrapInPlace', ptr(struct('BootstrapInPlace', [f('installationDisk', str, true)])), true),
  f('fips', bool),
  f('cpuPartitioningMode', str, true),
  f('pullSecret', str),
  f('sshKey', str),
  f('additionalTrustBundle', str, true),
  f('additionalTrustBundlePolicy', str, true),
  f(
    'imageContentSources',
    slice(struct('ImageContentSource', [f('mirrors', strings), f('source', str)])),
    true,
  ),
  f(
    'imageDigestSources',
    slice(struct('ImageDigestSource', [f('source', str), f('mirrors', strings, true)])),
    true,
  ),
  f(
    'capabilities',
    ptr(
      struct('Capabilities', [
        f('baselineCapabilitySet', str, true),
        f('additionalEnabledCapabilities', strings, true),
      ]),
    ),
    true,
  ),
  f('featureSet', str, true),
  f('featureGates', strings, true),
  f('osImageStream', str, true),
]);

/** Human name of a Go type, for error messages ("string", "[]string", "object BMC"). */
export function describeGoType(type: GoType): string {
  switch (type.kind) {
    case 'string':
      return 'string';
    case 'bool':
      return 'boolean';
    case 'int':
      return type.bits === 32 ? 'int32' : 'integer';
    case 'struct':
      return `object (${type.name})`;
    case 'pointer':
      return describeGoType(type.elem);
    case 'slice':
      return `array of ${describeGoType(type.elem)}`;
  }
}
