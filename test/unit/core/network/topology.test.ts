import { describe, expect, it } from 'vitest';
import {
  platformUmnError,
  resolvePlatform,
  resolvePlatformUpdate,
  validateSingleNode,
} from '../../../../src/core/network/platform.ts';
import {
  DEFAULT_CLUSTER_NETWORK,
  DEFAULT_IPV6_CLUSTER_NETWORK,
  DEFAULT_IPV6_SERVICE_NETWORK_CIDR,
  DEFAULT_SERVICE_NETWORK_CIDR,
  defaultNetworkType,
  isArbiterSupported,
  isDay2,
  isFencingSupported,
  isMachineNetworkRequired,
  isMultiNodeUserManagedNetworking,
  isNetworkTypeOffered,
  isSingleNode,
  isUserManagedLoadBalancer,
  isUserManagedLoadBalancerSupported,
  isValidClusterName,
  isVipDhcp,
  registrationDefaults,
  resolveControlPlane,
} from '../../../../src/core/network/topology.ts';
import { baseVersionAtLeast, compareBaseVersions } from '../../../../src/core/version.ts';

describe('defaults', () => {
  it('registration network defaults', () => {
    expect(DEFAULT_CLUSTER_NETWORK).toEqual({ cidr: '10.128.0.0/14', host_prefix: 23 });
    expect(DEFAULT_SERVICE_NETWORK_CIDR).toBe('172.30.0.0/16');
    expect(DEFAULT_IPV6_CLUSTER_NETWORK).toEqual({ cidr: 'fd01::/48', host_prefix: 64 });
    expect(DEFAULT_IPV6_SERVICE_NETWORK_CIDR).toBe('fd02::/112');
  });

  it.each([
    ['4.11.0', false, undefined, 'OpenShiftSDN'],
    ['4.11.0', true, undefined, 'OVNKubernetes'],
    ['4.12.0', false, undefined, 'OVNKubernetes'],
    ['4.12.0-ec.1', false, undefined, 'OVNKubernetes'],
    ['4.14', false, 'Calico', 'Calico'],
  ])('network type for %s sno=%s given=%s', (version, sno, given, expected) => {
    expect(defaultNetworkType(version, sno, given)).toBe(expected);
  });

  it.each([
    ['OpenShiftSDN', '4.14.9', true],
    ['OpenShiftSDN', '4.15.0', false],
    ['OVNKubernetes', '4.20', true],
    ['Flannel', '4.14', false],
  ])('offered %s on %s', (type, version, expected) => {
    expect(isNetworkTypeOffered(type, version)).toBe(expected);
  });
});

describe('topology predicates', () => {
  it.each([
    [{ control_plane_count: 3, user_managed_networking: false }, true, false],
    [{ control_plane_count: 3, user_managed_networking: true }, false, true],
    [{ control_plane_count: 1, user_managed_networking: true }, true, false],
  ])('%j', (c, required, multiUmn) => {
    expect(isMachineNetworkRequired(c)).toBe(required);
    expect(isMultiNodeUserManagedNetworking(c)).toBe(multiUmn);
  });
  it('flags', () => {
    expect(isSingleNode({ control_plane_count: 1 })).toBe(true);
    expect(isUserManagedLoadBalancer({ load_balancer: { type: 'user-managed' } })).toBe(true);
    expect(isUserManagedLoadBalancer({})).toBe(false);
    expect(isVipDhcp({ vip_dhcp_allocation: true })).toBe(true);
    expect(isDay2({ kind: 'AddHostsCluster' })).toBe(true);
    expect(isDay2({ kind: 'Cluster' })).toBe(false);
  });
});

describe('control plane count', () => {
  it.each([
    [{}, '4.14', {}, { mode: 'Full', count: 3 }],
    [{ high_availability_mode: 'None' as const }, '4.14', {}, { mode: 'None', count: 1 }],
    [{ high_availability_mode: 'Full' as const }, '4.14', {}, { mode: 'Full', count: 3 }],
    [{ control_plane_count: 1 }, '4.14', {}, { mode: 'None', count: 1 }],
    [{ control_plane_count: 3 }, '4.17', {}, { mode: 'Full', count: 3 }],
    [{ control_plane_count: 5 }, '4.18', {}, { mode: 'Full', count: 5 }],
    [{ control_plane_count: 2 }, '4.19', { arbiter: true }, { mode: 'Full', count: 2 }],
    [{ control_plane_count: 2 }, '4.19', { fencing: true }, { mode: 'Full', count: 2 }],
  ])('%j on %s %j', (input, version, features, expected) => {
    expect(resolveControlPlane(input, version, features)).toEqual(expected);
  });
  it.each([
    [
      { high_availability_mode: 'None' as const, control_plane_count: 3 },
      '4.18',
      {},
      "High availability mode 'None' requires a control plane count of 1, got 3",
    ],
    [{ control_plane_count: 4 }, '4.17', {}, 'The control plane count must be 3 for OpenShift 4.17, got 4'],
    [
      { control_plane_count: 6 },
      '4.18',
      {},
      'The control plane count must be between 3 and 5 for OpenShift 4.18, got 6',
    ],
    [
      { control_plane_count: 2 },
      '4.18',
      { arbiter: true },
      'The control plane count must be between 3 and 5 for OpenShift 4.18, got 2',
    ],
    [
      { control_plane_count: 2 },
      '4.19',
      {},
      'The control plane count must be between 3 and 5 for OpenShift 4.19, got 2',
    ],
  ])('%j on %s rejected', (input, version, features, error) => {
    expect(resolveControlPlane(input, version, features)).toEqual({ error });
  });
  it('feature versions', () => {
    expect(isArbiterSupported('4.18', 'baremetal')).toBe(false);
    expect(isArbiterSupported('4.19', 'baremetal')).toBe(true);
    expect(isArbiterSupported('4.21', 'none')).toBe(false);
    expect(isArbiterSupported('4.22', 'none')).toBe(true);
    expect(isArbiterSupported('4.22', 'vsphere')).toBe(false);
    expect(isFencingSupported('4.19', 'baremetal')).toBe(false);
    expect(isFencingSupported('4.20', 'none')).toBe(true);
    expect(isFencingSupported('4.20', 'external')).toBe(false);
    expect(isUserManagedLoadBalancerSupported('4.15.9')).toBe(false);
    expect(isUserManagedLoadBalancerSupported('4.16.0')).toBe(true);
  });
});

describe('cluster name', () => {
  it.each([
    ['my-cluster', 'baremetal', true],
    ['', 'baremetal', true],
    ['My-cluster', 'baremetal', false],
    ['-bad', 'baremetal', false],
    ['a.b', 'baremetal', false],
    ['a.b', 'none', true],
    ['a..b', 'none', false],
  ] as const)('%j on %s', (name, platform, ok) => {
    expect(isValidClusterName(name, platform)).toBe(ok);
  });
});

describe('platform resolution', () => {
  it.each([
    [{ control_plane_count: 3 }, { platform: 'baremetal', user_managed_networking: false }],
    [
      { control_plane_count: 3, user_managed_networking: true },
      { platform: 'none', user_managed_networking: true },
    ],
    [
      { control_plane_count: 3, platform: 'none' as const },
      { platform: 'none', user_managed_networking: true },
    ],
    [
      { control_plane_count: 3, platform: 'external' as const },
      { platform: 'external', user_managed_networking: true },
    ],
    [
      { control_plane_count: 3, platform: 'vsphere' as const },
      { platform: 'vsphere', user_managed_networking: false },
    ],
    [
      { control_plane_count: 3, platform: 'vsphere' as const, user_managed_networking: true },
      { platform: 'vsphere', user_managed_networking: true },
    ],
    [
      { control_plane_count: 3, platform: 'nutanix' as const },
      { platform: 'nutanix', user_managed_networking: false },
    ],
    [{ control_plane_count: 1 }, { platform: 'none', user_managed_networking: true }],
    [
      { control_plane_count: 1, platform: 'external' as const },
      { platform: 'external', user_managed_networking: true },
    ],
    [
      { control_plane_count: 3, cpu_architecture: 's390x' },
      { platform: 'none', user_managed_networking: true },
    ],
    [
      { control_plane_count: 3, cpu_architecture: 'ppc64le', platform: 'external' as const },
      { platform: 'external', user_managed_networking: true },
    ],
  ])('%j', (req, expected) => {
    expect(resolvePlatform(req)).toEqual(expected);
  });
  it.each([
    [
      { control_plane_count: 3, platform: 'baremetal' as const, user_managed_networking: true },
      "Can't set baremetal platform with user-managed-networking enabled",
    ],
    [
      { control_plane_count: 3, platform: 'none' as const, user_managed_networking: false },
      "Can't set none platform with user-managed-networking disabled",
    ],
    [
      { control_plane_count: 3, platform: 'nutanix' as const, user_managed_networking: true },
      "Can't set nutanix platform with user-managed-networking enabled",
    ],
    [
      { control_plane_count: 1, platform: 'baremetal' as const },
      "Can't set baremetal platform on single node OpenShift",
    ],
    [
      { control_plane_count: 1, user_managed_networking: false },
      "Can't disable user-managed-networking on single node OpenShift",
    ],
    [
      { control_plane_count: 1, platform: 'vsphere' as const },
      'Single node cluster is not supported alongside vsphere platform',
    ],
    [
      { control_plane_count: 3, cpu_architecture: 's390x', platform: 'baremetal' as const },
      "Can't set baremetal platform with user-managed-networking enabled",
    ],
    [
      { control_plane_count: 3, cpu_architecture: 's390x', platform: 'vsphere' as const },
      "Can't set vsphere platform on s390x",
    ],
    [
      { control_plane_count: 3, cpu_architecture: 's390x', user_managed_networking: false },
      "Can't set none platform with user-managed-networking disabled",
    ],
  ])('%j rejected', (req, error) => {
    expect(resolvePlatform(req)).toEqual({ error });
  });
  it('platformUmnError for vsphere accepts both', () => {
    expect(platformUmnError('vsphere', true)).toBeUndefined();
    expect(platformUmnError('vsphere', false)).toBeUndefined();
  });
  it('updates toggle UMN with the platform', () => {
    const current = {
      platform: 'baremetal' as const,
      user_managed_networking: false,
      control_plane_count: 3,
    };
    expect(resolvePlatformUpdate(current, { platform: 'none' })).toEqual({
      platform: 'none',
      user_managed_networking: true,
    });
    expect(
      resolvePlatformUpdate(
        { ...current, platform: 'none', user_managed_networking: true },
        { platform: 'baremetal' },
      ),
    ).toEqual({
      platform: 'baremetal',
      user_managed_networking: false,
    });
    expect(resolvePlatformUpdate(current, { platform: 'external' })).toEqual({
      platform: 'external',
      user_managed_networking: true,
    });
    expect(resolvePlatformUpdate(current, { platform: 'vsphere' })).toEqual({
      platform: 'vsphere',
      user_managed_networking: false,
    });
    expect(resolvePlatformUpdate(current, {})).toEqual({
      platform: 'baremetal',
      user_managed_networking: false,
    });
    expect(resolvePlatformUpdate(current, { user_managed_networking: true })).toEqual({
      error: "Can't set baremetal platform with user-managed-networking enabled",
    });
    const sno = { platform: 'none' as const, user_managed_networking: true, control_plane_count: 1 };
    expect(resolvePlatformUpdate(sno, { platform: 'baremetal' })).toEqual({
      error: "Can't set baremetal platform on single node OpenShift",
    });
    expect(resolvePlatformUpdate(sno, { platform: 'external' })).toEqual({
      platform: 'external',
      user_managed_networking: true,
    });
  });
});

describe('single node rules', () => {
  const ok = { openshift_version: '4.8.0', user_managed_networking: true, platform: 'none' as const };
  it.each([
    [ok, undefined],
    [{ ...ok, openshift_version: '4.7.9' }, 'Single node OpenShift is not supported for OpenShift 4.7.9'],
    [{ ...ok, vip_dhcp_allocation: true }, 'VIP DHCP Allocation cannot be enabled on single node OpenShift'],
    [{ ...ok, network_type: 'OpenShiftSDN' }, 'OpenShiftSDN network type is not allowed in single node mode'],
    [
      { ...ok, user_managed_networking: false },
      'User Managed Networking must be enabled on single node OpenShift',
    ],
    [
      { ...ok, platform: 'baremetal' as const },
      'Single node cluster is not supported alongside baremetal platform',
    ],
    [{ ...ok, platform: 'external' as const }, undefined],
  ])('%j', (req, expected) => {
    expect(validateSingleNode(req)).toBe(expected);
  });
});

describe('versions', () => {
  it.each([
    ['4.12', '4.12.0', 0],
    ['4.12.1', '4.12.0', 1],
    ['4.9', '4.12', -1],
    ['v4.14.0-rc.1', '4.14', 0],
    ['4.x', '4.0', -1],
  ])('%s vs %s', (a, b, sign) => {
    expect(Math.sign(compareBaseVersions(a, b))).toBe(sign);
  });
  it('empty never qualifies', () => {
    expect(baseVersionAtLeast('', '4.0')).toBe(false);
    expect(baseVersionAtLeast(undefined, '4.0')).toBe(false);
  });
});

describe('registrationDefaults', () => {
  it('fills the IPv4 defaults and the other registration defaults', () => {
    expect(
      registrationDefaults(
        { openshift_version: '4.14', control_plane_count: 3 },
        { defaultNtpServer: 'ntp.example' },
      ),
    ).toEqual({
      cluster_networks: [{ cidr: '10.128.0.0/14', host_prefix: 23 }],
      service_networks: [{ cidr: '172.30.0.0/16' }],
      machine_networks: [],
      network_type: 'OVNKubernetes',
      vip_dhcp_allocation: false,
      hyperthreading: 'all',
      schedulable_masters: false,
      disk_encryption: { enable_on: 'none', mode: 'tpmv2' },
      additional_ntp_source: 'ntp.example',
    });
  });
  it('keeps given values and honours the configured defaults', () => {
    const result = registrationDefaults(
      {
        openshift_version: '4.11',
        control_plane_count: 3,
        cluster_networks: [{ cidr: 'fd01::/48', host_prefix: 64 }],
        service_networks: [{ cidr: 'fd02::/112' }],
        machine_networks: [{ cidr: '2001:db8::/64' }],
        vip_dhcp_allocation: true,
        hyperthreading: 'masters',
        schedulable_masters: true,
        disk_encryption: { enable_on: 'all', mode: 'tang', tang_servers: '[]' },
        ntp_sources: 'a,b',
      },
      { defaultNtpServer: 'ntp.example' },
    );
    expect(result).toMatchObject({
      cluster_networks: [{ cidr: 'fd01::/48', host_prefix: 64 }],
      service_networks: [{ cidr: 'fd02::/112' }],
      machine_networks: [{ cidr: '2001:db8::/64' }],
      network_type: 'OpenShiftSDN',
      vip_dhcp_allocation: true,
      hyperthreading: 'masters',
      schedulable_masters: true,
      disk_encryption: { enable_on: 'all', mode: 'tang', tang_servers: '[]' },
      additional_ntp_source: '',
    });
    expect(
      registrationDefaults(
        { openshift_version: '4.14', control_plane_count: 1, cluster_networks: [] },
        { clusterNetwork: { cidr: '10.200.0.0/14', host_prefix: 24 }, serviceNetworkCidr: '172.31.0.0/16' },
      ),
    ).toMatchObject({
      cluster_networks: [{ cidr: '10.200.0.0/14', host_prefix: 24 }],
      service_networks: [{ cidr: '172.31.0.0/16' }],
      additional_ntp_source: '',
    });
  });
  it('additional_ntp_source and ntp_sources are mutually exclusive', () => {
    expect(
      registrationDefaults({
        openshift_version: '4.14',
        control_plane_count: 3,
        additional_ntp_source: 'a',
        ntp_sources: 'b',
      }),
    ).toEqual({
      error: 'additional_ntp_source and ntp_sources cannot be set together',
    });
    expect(
      registrationDefaults({ openshift_version: '4.14', control_plane_count: 3, additional_ntp_source: 'a' }),
    ).toMatchObject({
      additional_ntp_source: 'a',
    });
  });
});
