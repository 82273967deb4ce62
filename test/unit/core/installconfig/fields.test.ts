// install-config fields and their sources (core.md §7.2) and platform rules (§7.3), rule by rule.

import { describe, expect, it } from 'vitest';
import {
  buildInstallConfig,
  generateNoProxy,
  hyperthreadingFor,
  InstallConfigError,
  type InstallConfigOptions,
} from '../../../../src/core/installconfig/index.ts';
import type { Cluster, Host } from '../../../../src/core/model.ts';
import { makeCluster, makeHost, multiNodeHosts, nic, singleNodeHost } from './fixtures.ts';

const build = (extra: Partial<Cluster>, options: InstallConfigOptions = {}) =>
  buildInstallConfig(makeCluster({ hosts: multiNodeHosts(), ...extra }), options);

const umnNone = {
  platform: { type: 'none' },
  user_managed_networking: true,
  api_vips: [],
  ingress_vips: [],
} satisfies Partial<Cluster>;

const sno = (extra: Partial<Cluster> = {}, host: Host = singleNodeHost()) =>
  makeCluster({ ...umnNone, control_plane_count: 1, machine_networks: [], hosts: [host], ...extra });

describe('hyperthreading', () => {
  const table: [string | undefined, 'masters' | 'workers' | 'arbiters', 'Enabled' | 'Disabled'][] = [
    ['all', 'masters', 'Enabled'],
    ['all', 'arbiters', 'Enabled'],
    [undefined, 'workers', 'Enabled'],
    ['none', 'masters', 'Disabled'],
    ['none', 'workers', 'Disabled'],
    ['masters', 'masters', 'Enabled'],
    ['masters', 'workers', 'Disabled'],
    ['workers', 'workers', 'Enabled'],
    ['workers', 'masters', 'Disabled'],
    ['masters,workers', 'workers', 'Enabled'],
    ['masters,arbiters', 'arbiters', 'Enabled'],
    ['masters,arbiters', 'workers', 'Disabled'],
    ['', 'masters', 'Disabled'],
  ];
  for (const [setting, pool, expected] of table) {
    it(`${String(setting)} → ${pool} ${expected}`, () => {
      expect(hyperthreadingFor(makeCluster({ hyperthreading: setting }), pool)).toBe(expected);
    });
  }

  it('sets every pool', () => {
    const hosts = multiNodeHosts();
    (hosts[0] as Host).role = 'arbiter';
    const cfg = build({ hosts, hyperthreading: 'arbiters', openshift_version: '4.20.0' });
    expect([
      cfg.controlPlane.hyperthreading,
      cfg.compute?.[0]?.hyperthreading,
      cfg.arbiter?.hyperthreading,
    ]).toEqual(['Disabled', 'Disabled', 'Enabled']);
  });
});

describe('replicas by effective role', () => {
  it('counts auto-assign hosts by their suggested role and skips literal bootstrap roles', () => {
    const hosts = multiNodeHosts();
    (hosts[0] as Host).role = 'auto-assign';
    (hosts[0] as Host).suggested_role = 'master';
    (hosts[2] as Host).role = 'bootstrap';
    const cfg = build({ hosts });
    expect(cfg.controlPlane.replicas).toBe(4);
    expect(cfg.compute).toEqual([{ hyperthreading: 'Enabled', name: 'worker', replicas: 0 }]);
    expect(cfg.arbiter).toBeUndefined();
  });
});

describe('arbiter', () => {
  const withArbiter = (version: string) => {
    const hosts = multiNodeHosts().slice(0, 4);
    (hosts[0] as Host).role = 'arbiter';
    return build({ hosts, control_plane_count: 2, openshift_version: version });
  };
  it('adds the arbiter pool and TechPreviewNoUpgrade on 4.19.x', () => {
    const cfg = withArbiter('4.19.2');
    expect(cfg.arbiter).toEqual({ hyperthreading: 'Enabled', name: 'arbiter', replicas: 1 });
    expect(cfg.featureSet).toBe('TechPreviewNoUpgrade');
  });
  it('has no feature set from 4.20', () => {
    expect(withArbiter('4.20.0').featureSet).toBeUndefined();
  });
});

describe('two nodes with fencing', () => {
  const fencingHosts = () => {
    const [m1, m2] = multiNodeHosts().filter((h) => h.role === 'master') as [Host, Host];
    m1.fencing_credentials = JSON.stringify({
      address: 'redfish+https://10.0.0.1/redfish/v1/Systems/1',
      username: 'admin',
      password: 'secret',
      certificate_verification: 'Disabled',
    });
    m2.fencing_credentials = JSON.stringify({
      address: 'redfish+https://10.0.0.2/redfish/v1/Systems/1',
      username: 'root',
      password: 'pw',
      mac_address: 'aa:bb:cc:dd:ee:ff',
    });
    return [m1, m2];
  };

  it('writes one credential per master, MAC when given else hostname', () => {
    const cfg = build({ hosts: fencingHosts(), control_plane_count: 2, openshift_version: '4.20.1' });
    expect(cfg.controlPlane.fencing).toEqual({
      credentials: [
        {
          hostname: 'master-1',
          address: 'redfish+https://10.0.0.1/redfish/v1/Systems/1',
          username: 'admin',
          password: 'secret',
          certificateVerification: 'Disabled',
        },
        {
          macAddress: 'aa:bb:cc:dd:ee:ff',
          address: 'redfish+https://10.0.0.2/redfish/v1/Systems/1',
          username: 'root',
          password: 'pw',
        },
      ],
    });
    expect(cfg.featureSet).toBe('TechPreviewNoUpgrade');
  });

  it('drops the feature set from 4.22', () => {
    expect(
      build({ hosts: fencingHosts(), control_plane_count: 2, openshift_version: '4.22.0' }).featureSet,
    ).toBeUndefined();
  });

  it('is not two-node-with-fencing when one master lacks credentials', () => {
    const hosts = fencingHosts();
    delete (hosts[1] as Host).fencing_credentials;
    expect(build({ hosts, control_plane_count: 2 }).controlPlane.fencing).toBeUndefined();
  });

  it('rejects unreadable stored credentials', () => {
    const hosts = fencingHosts();
    (hosts[0] as Host).fencing_credentials = '{not json';
    expect(() => build({ hosts, control_plane_count: 2 })).toThrow(
      new InstallConfigError(
        'failed to parse fencing credentials of host 00000001-0000-0000-0000-000000000000',
      ),
    );
  });
});

describe('networking.networkType', () => {
  const table: [string, Partial<Cluster>, string][] = [
    ['copied on baremetal', { network_type: 'OpenShiftSDN', openshift_version: '4.14.0' }, 'OpenShiftSDN'],
    ['"None" not copied on cluster-managed platforms', { network_type: 'None' }, ''],
    ['"None" kept on none (UMN re-copy)', { ...umnNone, network_type: 'None' }, 'None'],
    [
      '"None" kept on vSphere with UMN',
      { ...umnNone, platform: { type: 'vsphere' }, network_type: 'None' },
      'None',
    ],
    ['unset on multi-node stays empty', { network_type: undefined }, ''],
  ];
  for (const [name, extra, expected] of table) {
    it(name, () => expect(build(extra).networking.networkType).toBe(expected));
  }
  it('SNO with no type defaults to OVNKubernetes', () => {
    expect(buildInstallConfig(sno({ network_type: undefined })).networking.networkType).toBe('OVNKubernetes');
    expect(buildInstallConfig(sno({ network_type: '' })).networking.networkType).toBe('OVNKubernetes');
  });
  it('SNO keeps "None" when set', () => {
    expect(buildInstallConfig(sno({ network_type: 'None' })).networking.networkType).toBe('None');
  });
});

describe('proxy', () => {
  it('is omitted without http and https proxy', () => {
    expect(build({ no_proxy: 'a.com' }).proxy).toBeUndefined();
  });
  it('is set with only an https proxy', () => {
    expect(build({ https_proxy: 'http://p:1' }).proxy).toEqual({
      httpProxy: '',
      httpsProxy: 'http://p:1',
      noProxy: '.ostest.example.com,10.128.0.0/14,172.30.0.0/16,192.168.111.0/24',
    });
  });
  const table: [string, string][] = [
    ['*', '*'],
    [' * ', '*'],
    ['', '.ostest.example.com,10.128.0.0/14,172.30.0.0/16,192.168.111.0/24'],
    ['a.com,,b.com', 'a.com,b.com,.ostest.example.com,10.128.0.0/14,172.30.0.0/16,192.168.111.0/24'],
    ['10.128.0.0/14', '10.128.0.0/14,.ostest.example.com,10.128.0.0/14,172.30.0.0/16,192.168.111.0/24'],
  ];
  for (const [input, expected] of table) {
    it(`noProxy ${JSON.stringify(input)}`, () =>
      expect(generateNoProxy(makeCluster({ no_proxy: input }))).toBe(expected));
  }
});

describe('image mirrors', () => {
  const registriesConf = `unqualified-search-registries = ["registry.access.redhat.com"]
[[registry]]
  prefix = ""
  location = "quay.io/openshift-release-dev/ocp-v4.0-art-dev"
  mirror-by-digest-only = true
  [[registry.mirror]]
    location = "mirror.local/ocp/art" # primary
  [[registry.mirror]]
    location = 'mirror2.local/ocp/art'
`;
  const service = { sources: [{ source: 'registry.redhat.io', mirrors: ['svc.local/rh'] }] };

  it('uses imageDigestSources from 4.14 with the cluster config winning', () => {
    const cfg = build(
      { openshift_version: '4.14.0' },
      { mirrorRegistries: { service, cluster: { registriesConf } } },
    );
    expect(cfg.imageDigestSources).toEqual([
      {
        source: 'quay.io/openshift-release-dev/ocp-v4.0-art-dev',
        mirrors: ['mirror.local/ocp/art', 'mirror2.local/ocp/art'],
      },
    ]);
    expect(cfg.imageContentSources).toBeUndefined();
  });
  it('uses imageContentSources before 4.14, from the service config when the cluster has none', () => {
    const cfg = build({ openshift_version: '4.13.9' }, { mirrorRegistries: { service } });
    expect(cfg.imageContentSources).toEqual([{ mirrors: ['svc.local/rh'], source: 'registry.redhat.io' }]);
    expect(cfg.imageDigestSources).toBeUndefined();
  });
  it('omits both without mirrors', () => {
    const cfg = build({});
    expect([cfg.imageDigestSources, cfg.imageContentSources]).toEqual([undefined, undefined]);
  });
});

describe('additionalTrustBundle', () => {
  it('joins override, RH root, service mirror, cluster mirror, then per infra-env bundle and mirror CA', () => {
    const cfg = build(
      { install_config_overrides: '{"additionalTrustBundle":"OVERRIDE"}' },
      {
        rhRootCa: 'RH',
        mirrorRegistries: { service: { caBundle: 'SVC' }, cluster: { caBundle: 'CLUSTER' } },
        infraEnvs: [
          { id: 'a', additional_trust_bundle: 'IE-A', mirror_ca_bundle: 'IE-A-MIRROR' },
          { id: 'b', additional_trust_bundle: '' },
          { id: 'c', mirror_ca_bundle: 'IE-C-MIRROR\n\n' },
        ],
      },
    );
    expect(cfg.additionalTrustBundle).toBe('OVERRIDE\nRH\nSVC\nCLUSTER\nIE-A\nIE-A-MIRROR\nIE-C-MIRROR');
  });
  it('is omitted when there is nothing', () => {
    expect(build({}).additionalTrustBundle).toBeUndefined();
  });
});

describe('bootstrapInPlace', () => {
  it('SNO none uses the installation disk id', () => {
    expect(buildInstallConfig(sno()).bootstrapInPlace).toEqual({
      installationDisk: '/dev/disk/by-id/wwn-11111111-1111-1111-1111-111111111111',
    });
  });
  it('SNO external falls back to the disk path', () => {
    const cfg = buildInstallConfig(
      sno(
        { platform: { type: 'external', external: { platform_name: 'oci' } } },
        singleNodeHost({ installation_disk_id: '' }),
      ),
    );
    expect(cfg.bootstrapInPlace).toEqual({ installationDisk: '/dev/sda' });
    expect(cfg.platform).toEqual({ external: { PlatformName: 'oci', CloudControllerManager: '' } });
  });
  it('is not set for multi-node none', () => {
    expect(build(umnNone).bootstrapInPlace).toBeUndefined();
  });
  it('is not set when the SNO cluster has no host', () => {
    expect(buildInstallConfig(sno({ hosts: [] })).bootstrapInPlace).toBeUndefined();
  });
});

describe('user-managed networking machine networks', () => {
  it('keeps the cluster machine networks when set', () => {
    expect(
      build({ ...umnNone, machine_networks: [{ cidr: '10.9.0.0/16' }] }).networking.machineNetwork,
    ).toEqual([{ cidr: '10.9.0.0/16' }]);
  });
  it('takes one network per family from the bootstrap host, primary stack first', () => {
    const cfg = buildInstallConfig(
      sno({
        service_networks: [{ cidr: 'fd02::/112' }],
        cluster_networks: [{ cidr: 'fd01::/48', host_prefix: 64 }],
      }),
    );
    expect(cfg.networking.machineNetwork).toEqual([{ cidr: '2001:db8::/64' }, { cidr: '192.168.122.0/24' }]);
  });
  it('is omitted when no bootstrap host is known', () => {
    const hosts = multiNodeHosts().map((h) => ({ ...h, bootstrap: false }));
    expect(build({ ...umnNone, machine_networks: [], hosts }).networking.machineNetwork).toBeNull();
  });
  it('is omitted when the bootstrap host has no usable address', () => {
    const host = singleNodeHost({
      inventory: { hostname: 'sno', interfaces: [nic('aa', [], ['fe80::2/64'])] },
    });
    expect(buildInstallConfig(sno({}, host)).networking.machineNetwork).toBeNull();
  });
  it('multi-node none replaces the bootstrap family with its node-IP allocation', () => {
    const cfg = build(
      { ...umnNone, machine_networks: [] },
      {
        nodeIpAllocations: {
          '00000003-0000-0000-0000-000000000000': {
            nodeIp: '192.168.111.23',
            hintIp: '192.168.111.0',
            cidr: '192.168.111.0/24',
          },
        },
      },
    );
    expect(cfg.networking.machineNetwork).toEqual([{ cidr: '192.168.111.0/24' }]);
  });
  it('multi-node none appends an allocation of a family it lacks', () => {
    const cfg = build(
      { ...umnNone, machine_networks: [{ cidr: '10.0.0.0/24' }] },
      {
        nodeIpAllocations: {
          '00000003-0000-0000-0000-000000000000': { nodeIp: 'fd00::3', hintIp: 'fd00::', cidr: 'fd00::/64' },
        },
      },
    );
    expect(cfg.networking.machineNetwork).toEqual([{ cidr: '10.0.0.0/24' }, { cidr: 'fd00::/64' }]);
  });
  it('SNO ignores node-IP allocations', () => {
    const cfg = buildInstallConfig(sno(), {
      nodeIpAllocations: {
        '11111111-1111-1111-1111-111111111111': {
          nodeIp: '10.1.1.1',
          hintIp: '10.1.1.0',
          cidr: '10.1.1.0/24',
        },
      },
    });
    expect(cfg.networking.machineNetwork?.[0]).toEqual({ cidr: '192.168.122.0/24' });
  });
});

describe('baremetal platform', () => {
  it('provisioningNetwork is Unmanaged before 4.7', () => {
    expect(build({ openshift_version: '4.6.9' }).platform.baremetal?.provisioningNetwork).toBe('Unmanaged');
  });
  it('before 4.12 (no dual-stack VIPs) writes the first VIP of each list plus the singular fields', () => {
    const bm = build({
      openshift_version: '4.11.0',
      api_vips: [{ ip: '192.168.111.5' }, { ip: 'fd00::5' }],
      ingress_vips: [{ ip: '192.168.111.4' }, { ip: 'fd00::4' }],
    }).platform.baremetal;
    expect([bm?.apiVIPs, bm?.apiVIP, bm?.ingressVIPs, bm?.ingressVIP]).toEqual([
      ['192.168.111.5'],
      '192.168.111.5',
      ['192.168.111.4'],
      '192.168.111.4',
    ]);
  });
  it('the dual-stack-VIPs check can be overridden', () => {
    const bm = build(
      { api_vips: [{ ip: '192.168.111.5' }], ingress_vips: [] },
      { dualStackVipsSupported: false },
    ).platform.baremetal;
    expect([bm?.apiVIP, bm?.ingressVIP, bm?.ingressVIPs]).toEqual(['192.168.111.5', undefined, []]);
  });
  it('sorts hosts by raw role (master, arbiter, others) then hostname', () => {
    const hosts = multiNodeHosts();
    (hosts[0] as Host).role = 'arbiter';
    (hosts[1] as Host).role = 'auto-assign';
    (hosts[1] as Host).suggested_role = 'master';
    const names = build({ hosts }).platform.baremetal?.hosts?.map((h) => `${h.role}:${h.name}`);
    expect(names).toEqual([
      'master:master-2',
      'master:master-3',
      'arbiter:worker-4',
      'auto-assign:master-1',
      'worker:worker-5',
    ]);
  });
  it('uses requested hostnames', () => {
    const hosts = multiNodeHosts();
    (hosts[1] as Host).requested_hostname = 'zz-renamed';
    expect(build({ hosts }).platform.baremetal?.hosts?.[2]?.name).toBe('zz-renamed');
  });
  it('boot MAC matches IPv6 machine networks too', () => {
    const host = makeHost('h', 'h', 'master', [
      nic('11:11', ['10.0.0.1/24']),
      nic('22:22', [], ['fd00::1/64']),
    ]);
    const cfg = build({ hosts: [host], machine_networks: [{ cidr: 'fd00::/64' }] });
    expect(cfg.platform.baremetal?.hosts?.[0]?.bootMACAddress).toBe('22:22');
  });
  it('fails when no interface is inside a machine network', () => {
    const host = makeHost('h', 'h', 'master', [nic('11:11', ['10.0.0.1/24'])]);
    expect(() => build({ hosts: [host] })).toThrow(
      'error while adding Platfom baremetal to install config, error is: Failed to find a network interface matching any machine network',
    );
  });
  it('fails without machine networks', () => {
    expect(() => build({ machine_networks: [] })).toThrow(
      'error while adding Platfom baremetal to install config, error is: Failed to find machine networks for baremetal cluster cluster-1',
    );
  });
  it('NTP: the cluster source list, else the union of the infra-envs sources', () => {
    expect(build({ additional_ntp_source: ' a , ,b' }).platform.baremetal?.additionalNTPServers).toEqual([
      'a',
      'b',
    ]);
    const infraEnvs = [
      { id: '1', additional_ntp_sources: 'x,y' },
      { id: '2', additional_ntp_sources: 'y, z' },
      { id: '3' },
    ];
    expect(
      build({ additional_ntp_source: '' }, { infraEnvs }).platform.baremetal?.additionalNTPServers,
    ).toEqual(['x', 'y', 'z']);
    expect(build({}).platform.baremetal?.additionalNTPServers).toBeUndefined();
  });
  it('user-managed load balancer', () => {
    expect(build({ load_balancer: { type: 'user-managed' } }).platform.baremetal?.loadBalancer).toEqual({
      type: 'UserManaged',
    });
    expect(
      build({ load_balancer: { type: 'cluster-managed' } }).platform.baremetal?.loadBalancer,
    ).toBeUndefined();
  });
  it('rejects an unknown load balancer type', () => {
    expect(() => build({ load_balancer: { type: 'magic' as 'user-managed' } })).toThrow(
      "error while adding Platfom baremetal to install config, error is: load balancer type is set to unsupported value 'magic', supported values are 'cluster-managed' and 'user-managed'",
    );
  });
});

describe('vsphere and nutanix', () => {
  it('vSphere without UMN requires API VIPs', () => {
    expect(() => build({ platform: { type: 'vsphere' }, api_vips: [] })).toThrow(
      'error while adding Platfom vsphere to install config, error is: invalid cluster parameters, APIVip must be provided',
    );
  });
  it('Nutanix without UMN requires Ingress VIPs', () => {
    expect(() => build({ platform: { type: 'nutanix' }, ingress_vips: [] })).toThrow(
      'error while adding Platfom nutanix to install config, error is: invalid cluster parameters, IngressVip must be provided',
    );
  });
  it('Nutanix with UMN rewrites machine networks and skips VIPs', () => {
    const cfg = build({ ...umnNone, platform: { type: 'nutanix' }, machine_networks: [] });
    expect(cfg.networking.machineNetwork).toEqual([{ cidr: '10.0.0.0/24' }]);
    expect(cfg.platform.nutanix?.apiVIPs).toBeUndefined();
  });
  it('vSphere wraps load balancer errors', () => {
    expect(() =>
      build({ platform: { type: 'vsphere' }, load_balancer: { type: 'x' as 'user-managed' } }),
    ).toThrow(
      "error while adding Platfom vsphere to install config, error is: failed to set vSphere's cluster install-config.yaml load balancer as user-managed: load balancer type is set to unsupported value 'x', supported values are 'cluster-managed' and 'user-managed'",
    );
  });
  it('rejects unknown platforms', () => {
    expect(() => build({ platform: { type: 'aws' as 'none' } })).toThrow(
      'error while adding Platfom aws to install config, error is: unsupported platform type "aws"',
    );
  });
});

describe('fixed fields', () => {
  it('apiVersion, fips, metadata, secrets', () => {
    const cfg = build({ pull_secret: undefined, ssh_public_key: undefined });
    expect([cfg.apiVersion, cfg.fips, cfg.metadata, cfg.baseDomain, cfg.pullSecret, cfg.sshKey]).toEqual([
      'v1',
      false,
      { name: 'ostest' },
      'example.com',
      '',
      '',
    ]);
  });
  it('empty network lists are nil (null), as Go marshals them', () => {
    const cfg = build({ cluster_networks: [], service_networks: [] });
    expect([cfg.networking.clusterNetwork, cfg.networking.serviceNetwork]).toEqual([null, null]);
  });
});
