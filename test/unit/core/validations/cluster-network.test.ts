import { describe, expect, it } from 'vitest';
import type { Cluster } from '../../../../src/core/model.ts';
import { outcome, readyCluster, readyHost } from './cluster-fixtures.ts';

const v6cn = { cidr: 'fd01::/48', host_prefix: 64 };
const umn = (f: Partial<Cluster> = {}) =>
  readyCluster({
    user_managed_networking: true,
    platform: { type: 'none' },
    machine_networks: [],
    api_vips: [],
    ingress_vips: [],
    ...f,
  });
const sno = (f: Partial<Cluster> = {}) =>
  readyCluster({
    control_plane_count: 1,
    user_managed_networking: true,
    platform: { type: 'none' },
    hosts: [readyHost(0)],
    ...f,
  });

describe('defined checks', () => {
  it.each([
    ['cluster-cidr-defined', readyCluster(), 'success', 'The Cluster Network CIDR is defined.'],
    [
      'cluster-cidr-defined',
      readyCluster({ cluster_networks: [] }),
      'failure',
      'The Cluster Network CIDR is undefined.',
    ],
    [
      'cluster-cidr-defined',
      readyCluster({ cluster_networks: [{ cidr: '', host_prefix: 0 }] }),
      'failure',
      'The Cluster Network CIDR is undefined.',
    ],
    ['service-cidr-defined', readyCluster(), 'success', 'The Service Network CIDR is defined.'],
    [
      'service-cidr-defined',
      readyCluster({ service_networks: [{ cidr: '' }] }),
      'failure',
      'The Service Network CIDR is undefined.',
    ],
    ['dns-domain-defined', readyCluster(), 'success', 'The base domain is defined.'],
    [
      'dns-domain-defined',
      readyCluster({ base_dns_domain: '' }),
      'failure',
      'The base domain is undefined and must be provided.',
    ],
  ] as const)('%s', (id, c, status, message) => {
    expect(outcome(c, id)).toEqual([status, message]);
  });
});

describe('network-prefix-valid', () => {
  const cn = (cidr: string, host_prefix: number) => [{ cidr, host_prefix }];
  it.each([
    ['pending', readyCluster({ cluster_networks: [] }), 'pending', 'The Cluster Network CIDR is undefined.'],
    ['valid', readyCluster(), 'success', 'The Cluster Network prefix is valid.'],
    [
      'prefix 0',
      readyCluster({ cluster_networks: cn('10.128.0.0/14', 0) }),
      'failure',
      'Invalid Cluster Network prefix: Host prefix, now 0, must be a positive integer.',
    ],
    [
      'prefix 25 (boundary)',
      readyCluster({ cluster_networks: cn('10.128.0.0/14', 25) }),
      'success',
      'The Cluster Network prefix is valid.',
    ],
    [
      'prefix 26',
      readyCluster({ cluster_networks: cn('10.128.0.0/14', 26) }),
      'failure',
      'Host prefix, now 26, must be less than or equal to 25 to allow at least 128 addresses',
    ],
    [
      '4 subnets for 3 hosts (boundary)',
      readyCluster({ cluster_networks: cn('10.128.0.0/21', 23) }),
      'success',
      'The Cluster Network prefix is valid.',
    ],
    [
      '2 subnets for 3 hosts',
      readyCluster({ cluster_networks: cn('10.128.0.0/22', 23) }),
      'failure',
      'Cluster network CIDR prefix 22 does not contain enough addresses for 3 hosts each one with 23 prefix (512 addresses)',
    ],
    [
      'one host needs one subnet',
      readyCluster({ hosts: [readyHost(0)], cluster_networks: cn('10.128.0.0/23', 23) }),
      'success',
      'The Cluster Network prefix is valid.',
    ],
    [
      'Calico ignores hostPrefix, sizes with /25',
      readyCluster({ network_type: 'Calico', cluster_networks: cn('10.128.0.0/23', 0) }),
      'success',
      'The Cluster Network prefix is valid.',
    ],
    [
      'Calico, too small for /25 subnets',
      readyCluster({ network_type: 'Calico', cluster_networks: cn('10.128.0.0/24', 0) }),
      'failure',
      'Cluster network CIDR prefix 24 does not contain enough addresses for 3 hosts each one with 25 prefix (128 addresses)',
    ],
    [
      'Calico IPv6 sizes with /64',
      readyCluster({ network_type: 'Calico', cluster_networks: cn('fd01::/62', 0) }),
      'success',
      'The Cluster Network prefix is valid.',
    ],
    [
      'Calico IPv6 too small',
      readyCluster({ network_type: 'Calico', cluster_networks: cn('fd01::/63', 0) }),
      'failure',
      'Cluster network CIDR prefix 63 does not contain enough addresses for 3 hosts each one with 64 prefix (9223372036854775808 addresses)',
    ],
    [
      'override network type wins',
      readyCluster({
        network_type: 'OVNKubernetes',
        install_config_overrides: '{"networking":{"networkType":"Cilium"}}',
        cluster_networks: cn('10.128.0.0/14', 0),
      }),
      'success',
      'The Cluster Network prefix is valid.',
    ],
    [
      'unparseable override is ignored',
      readyCluster({ install_config_overrides: '{', cluster_networks: cn('10.128.0.0/14', 0) }),
      'failure',
      'Invalid Cluster Network prefix: Host prefix, now 0, must be a positive integer.',
    ],
    [
      'second network checked too',
      readyCluster({
        cluster_networks: [
          { cidr: '10.128.0.0/14', host_prefix: 23 },
          { cidr: 'fd01::/48', host_prefix: 122 },
        ],
      }),
      'failure',
      'Host prefix, now 122, must be less than or equal to 121 to allow at least 128 addresses',
    ],
  ])('%s', (_, c, status, message) => {
    expect(outcome(c, 'network-prefix-valid')).toEqual([status, message]);
  });
});

describe('no-cidrs-overlapping', () => {
  it.each([
    ['ok', readyCluster(), 'success', 'No CIDRS are overlapping.'],
    [
      'missing service',
      readyCluster({ service_networks: [] }),
      'pending',
      'At least one of the CIDRs (Machine Network, Cluster Network, Service Network) is undefined.',
    ],
    [
      'missing machine',
      readyCluster({ machine_networks: [] }),
      'pending',
      'At least one of the CIDRs (Machine Network, Cluster Network, Service Network) is undefined.',
    ],
    [
      'UMN missing service',
      umn({ service_networks: [] }),
      'pending',
      'At least one of the CIDRs (Cluster Network, Service Network) is undefined.',
    ],
    ['UMN without machine networks is fine', umn(), 'success', 'No CIDRS are overlapping.'],
    [
      'SNO still needs a machine network',
      sno({ machine_networks: [] }),
      'pending',
      'At least one of the CIDRs (Cluster Network, Service Network) is undefined.',
    ],
    [
      'count mismatch',
      readyCluster({ service_networks: [{ cidr: '172.30.0.0/16' }, { cidr: 'fd02::/112' }] }),
      'error',
      'A mismatch between the number of Cluster and Service networks',
    ],
    [
      'machine vs service',
      readyCluster({ service_networks: [{ cidr: '192.168.0.0/16' }] }),
      'failure',
      'CIDRS Overlapping: MachineNetworkCIDR and ServiceNetworkCIDR: CIDRS 192.168.127.0/24 and 192.168.0.0/16 overlap.',
    ],
    [
      'machine vs cluster',
      readyCluster({ cluster_networks: [{ cidr: '192.168.0.0/16', host_prefix: 23 }] }),
      'failure',
      'CIDRS Overlapping: MachineNetworkCIDR and ClusterNetworkCidr: CIDRS 192.168.127.0/24 and 192.168.0.0/16 overlap.',
    ],
    [
      'service vs cluster',
      readyCluster({ service_networks: [{ cidr: '10.130.0.0/16' }] }),
      'failure',
      'CIDRS Overlapping: ServiceNetworkCidr and ClusterNetworkCidr: CIDRS 10.130.0.0/16 and 10.128.0.0/14 overlap.',
    ],
    [
      'UMN multi-node skips machine comparisons',
      umn({ machine_networks: [{ cidr: '172.30.0.0/24' }] }),
      'success',
      'No CIDRS are overlapping.',
    ],
  ])('%s', (_, c, status, message) => {
    expect(outcome(c, 'no-cidrs-overlapping')).toEqual([status, message]);
  });
});

describe('networks-same-address-families', () => {
  const dual = {
    machine_networks: [{ cidr: '192.168.127.0/24' }, { cidr: '2001:db8::/64' }],
    cluster_networks: [{ cidr: '10.128.0.0/14', host_prefix: 23 }, v6cn],
    service_networks: [{ cidr: '172.30.0.0/16' }, { cidr: 'fd02::/112' }],
  };
  it.each([
    ['ok', readyCluster(), 'success', 'Same address families for all networks.'],
    ['dual ok', readyCluster(dual), 'success', 'Same address families for all networks.'],
    [
      'dual, IPv6 first still ok',
      readyCluster({ ...dual, service_networks: [...dual.service_networks].reverse() }),
      'success',
      'Same address families for all networks.',
    ],
    [
      'UMN pending',
      umn({ cluster_networks: [] }),
      'pending',
      'At least one of the CIDRs (Cluster Network, Service Network) is undefined.',
    ],
    [
      'pending',
      readyCluster({ machine_networks: [] }),
      'pending',
      'At least one of the CIDRs (Machine Network, Cluster Network, Service Network) is undefined.',
    ],
    [
      'pending service',
      readyCluster({ service_networks: [] }),
      'pending',
      'At least one of the CIDRs (Machine Network, Cluster Network, Service Network) is undefined.',
    ],
    [
      'service vs cluster',
      readyCluster({ service_networks: [{ cidr: 'fd02::/112' }] }),
      'failure',
      'Address families of networks (ServiceNetworks, ClusterNetworks) are not the same.',
    ],
    [
      'cluster list is de-duplicated',
      readyCluster({
        cluster_networks: [
          { cidr: '10.128.0.0/14', host_prefix: 23 },
          { cidr: '10.200.0.0/14', host_prefix: 23 },
        ],
      }),
      'success',
      'Same address families for all networks.',
    ],
    [
      'service list is not (quirk)',
      readyCluster({ service_networks: [{ cidr: '172.30.0.0/16' }, { cidr: '172.31.0.0/16' }] }),
      'failure',
      'Address families of networks (ServiceNetworks, ClusterNetworks) are not the same.',
    ],
    [
      'machine differs',
      readyCluster({ machine_networks: [{ cidr: '2001:db8::/64' }] }),
      'failure',
      'Address families of networks (MachineNetworks, ServiceNetworks, ClusterNetworks) are not the same.',
    ],
    [
      'UMN ignores machine',
      umn({ machine_networks: [{ cidr: '2001:db8::/64' }] }),
      'success',
      'Same address families for all networks.',
    ],
    [
      'bad CIDR',
      readyCluster({ service_networks: [{ cidr: 'nope' }] }),
      'error',
      'Bad CIDR(s) appears in one of the networks',
    ],
    [
      'bad cluster CIDR',
      readyCluster({ cluster_networks: [{ cidr: 'nope', host_prefix: 23 }] }),
      'error',
      'Bad CIDR(s) appears in one of the networks',
    ],
    [
      'bad machine CIDR',
      readyCluster({ machine_networks: [{ cidr: 'nope' }] }),
      'error',
      'Error getting machine address families for cluster c-1',
    ],
  ])('%s', (_, c, status, message) => {
    expect(outcome(c, 'networks-same-address-families')).toEqual([status, message]);
  });
});

describe('network-type-valid', () => {
  it.each<readonly [string, Cluster, string, string]>([
    ['OVN', readyCluster(), 'success', 'The cluster has a valid network type'],
    ['unset', readyCluster({ network_type: undefined }), 'success', 'The cluster has a valid network type'],
    ...['OpenShiftSDN', 'Cilium', 'Calico', 'CiscoACI', 'None'].map(
      (t) =>
        [t, readyCluster({ network_type: t }), 'success', 'The cluster has a valid network type'] as const,
    ),
    [
      'bogus',
      readyCluster({ network_type: 'Flannel' }),
      'failure',
      'The network type is not valid; the valid network types are OpenShiftSDN, OVNKubernetes, Cilium, Calico, CiscoACI, or None',
    ],
    [
      'SDN + IPv6 machine network',
      readyCluster({ network_type: 'OpenShiftSDN', machine_networks: [{ cidr: '2001:db8::/64' }] }),
      'failure',
      'The cluster is configured with IPv6 which is not supported by OpenShiftSDN; use OVNKubernetes instead',
    ],
    [
      'SDN + IPv6 cluster network',
      readyCluster({ network_type: 'OpenShiftSDN', cluster_networks: [v6cn] }),
      'failure',
      'The cluster is configured with IPv6 which is not supported by OpenShiftSDN; use OVNKubernetes instead',
    ],
    [
      'Calico + IPv6',
      readyCluster({ network_type: 'Calico', cluster_networks: [v6cn] }),
      'success',
      'The cluster has a valid network type',
    ],
    [
      'SDN + SNO',
      sno({ network_type: 'OpenShiftSDN' }),
      'failure',
      "Control Plane Count '1' (SNO) is not supported by OpenShiftSDN; use another network type instead",
    ],
    [
      'DHCP + OVN',
      readyCluster({ vip_dhcp_allocation: true }),
      'failure',
      'VIP DHCP allocation is not supported when the cluster is configured to use OVNKubernetes.',
    ],
    [
      'DHCP + SDN',
      readyCluster({ vip_dhcp_allocation: true, network_type: 'OpenShiftSDN' }),
      'success',
      'The cluster has a valid network type',
    ],
  ])('%s', (_, c, status, message) => {
    expect(outcome(c, 'network-type-valid')).toEqual([status, message]);
  });
});

describe('custom-manifests-requirements-satisfied', () => {
  const manifest = [{ folder: 'manifests', file_name: 'cni.yaml' }];
  it.each<readonly [string, Cluster, string, string]>([
    ['OVN', readyCluster(), 'success', 'No custom manifests are required'],
    ['SDN', readyCluster({ network_type: 'OpenShiftSDN' }), 'success', 'No custom manifests are required'],
    ...['Cilium', 'Calico', 'CiscoACI', 'None'].map(
      (t) =>
        [
          `${t} without manifests`,
          readyCluster({ network_type: t }),
          'failure',
          `Custom manifests are required for: ${t} network type. Please upload manifests via the custom manifests API.`,
        ] as const,
    ),
    [
      'Calico with uploaded manifests',
      readyCluster({ network_type: 'Calico', custom_manifests: manifest }),
      'success',
      'Custom manifests are uploaded',
    ],
    [
      'Calico with feature usage',
      readyCluster({
        network_type: 'Calico',
        feature_usage: '{"Custom manifest":{"id":"CUSTOM_MANIFEST","name":"Custom manifest"}}',
      }),
      'success',
      'Custom manifests are uploaded',
    ],
    [
      'feature usage entry found by name',
      readyCluster({
        network_type: 'Calico',
        feature_usage: '{"x":{"id":"CUSTOM_MANIFEST","name":"Custom manifest"}}',
      }),
      'success',
      'Custom manifests are uploaded',
    ],
    [
      'other feature usage',
      readyCluster({ network_type: 'None', feature_usage: '{"SNO":{"id":"SNO","name":"SNO"}}' }),
      'failure',
      'Custom manifests are required for: None network type. Please upload manifests via the custom manifests API.',
    ],
    [
      'null feature usage',
      readyCluster({ network_type: 'None', feature_usage: 'null' }),
      'failure',
      'Custom manifests are required for: None network type. Please upload manifests via the custom manifests API.',
    ],
    [
      'bad feature usage',
      readyCluster({ network_type: 'Cilium', feature_usage: '{' }),
      'failure',
      'Failed to parse feature usages',
    ],
    [
      'override network type',
      readyCluster({ install_config_overrides: '{"networking":{"networkType":"Cilium"}}' }),
      'failure',
      'Custom manifests are required for: Cilium network type. Please upload manifests via the custom manifests API.',
    ],
    [
      'override without networkType',
      readyCluster({ install_config_overrides: '{"networking":{}}', network_type: 'Calico' }),
      'failure',
      'Custom manifests are required for: Calico network type. Please upload manifests via the custom manifests API.',
    ],
  ])('%s', (_, c, status, message) => {
    expect(outcome(c, 'custom-manifests-requirements-satisfied')).toEqual([status, message]);
  });
});
