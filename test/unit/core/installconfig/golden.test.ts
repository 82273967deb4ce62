// Golden install-configs, one per platform/topology. Regenerate with UPDATE_GOLDEN=1 and review the diff.

import { join } from 'node:path';
import { describe, it } from 'vitest';
import {
  generateInstallConfig,
  type InstallConfigOptions,
} from '../../../../src/core/installconfig/index.ts';
import type { Cluster } from '../../../../src/core/model.ts';
import { expectGolden } from '../golden.ts';
import { makeCluster, makeHost, multiNodeHosts, nic, singleNodeHost } from './fixtures.ts';

// `.golden` keeps formatters away from the expected bytes.
const golden = (name: string) => join(import.meta.dirname, 'golden', `${name}.golden`);

const umn = { user_managed_networking: true, api_vips: [], ingress_vips: [] } satisfies Partial<Cluster>;

const dualStackHosts = () =>
  [1, 2, 3].map((n) =>
    makeHost(
      `d${n}`,
      `ds-master-${n}`,
      'master',
      [nic(`52:54:00:00:00:1${n}`, [`192.168.111.${20 + n}/24`], [`fd2e:6f44:5dd8:c956::${20 + n}/64`])],
      {
        bootstrap: n === 1,
      },
    ),
  );

const cases: { name: string; cluster: Cluster; options?: InstallConfigOptions }[] = [
  {
    name: 'baremetal-multinode.yaml',
    cluster: makeCluster({
      hosts: multiNodeHosts(),
      additional_ntp_source: 'clock.example.com, ntp2.example.com',
    }),
  },
  {
    name: 'none-sno.yaml',
    cluster: makeCluster({
      ...umn,
      control_plane_count: 1,
      platform: { type: 'none' },
      machine_networks: [],
      network_type: undefined,
      hosts: [singleNodeHost()],
    }),
  },
  {
    name: 'baremetal-dualstack.yaml',
    cluster: makeCluster({
      cluster_networks: [
        { cidr: '10.128.0.0/14', host_prefix: 23 },
        { cidr: 'fd01::/48', host_prefix: 64 },
      ],
      service_networks: [{ cidr: '172.30.0.0/16' }, { cidr: 'fd02::/112' }],
      machine_networks: [{ cidr: '192.168.111.0/24' }, { cidr: 'fd2e:6f44:5dd8:c956::/64' }],
      api_vips: [{ ip: '192.168.111.5' }, { ip: 'fd2e:6f44:5dd8:c956::5' }],
      ingress_vips: [{ ip: '192.168.111.4' }, { ip: 'fd2e:6f44:5dd8:c956::4' }],
      hosts: dualStackHosts(),
    }),
  },
  {
    name: 'baremetal-proxy-mirror.yaml',
    cluster: makeCluster({
      hosts: multiNodeHosts(),
      http_proxy: 'http://proxy.example.com:3128',
      https_proxy: 'http://proxy.example.com:3129',
      no_proxy: 'internal.example.com,,.corp',
      hyperthreading: 'masters',
    }),
    options: {
      mirrorRegistries: {
        cluster: {
          registriesConf:
            '[[registry]]\nlocation = "quay.io/openshift-release-dev/ocp-release"\n[[registry.mirror]]\nlocation = "mirror.example.com:5000/ocp/release"\n',
          caBundle: '-----BEGIN CERTIFICATE-----\nMIRROR\n-----END CERTIFICATE-----',
        },
      },
      infraEnvs: [
        {
          id: 'ie1',
          additional_trust_bundle: '-----BEGIN CERTIFICATE-----\nINFRAENV\n-----END CERTIFICATE-----\n',
        },
      ],
    },
  },
  {
    name: 'vsphere.yaml',
    cluster: makeCluster({
      platform: { type: 'vsphere' },
      hosts: multiNodeHosts(),
      load_balancer: { type: 'user-managed' },
    }),
  },
  {
    name: 'vsphere-umn-4.12.yaml',
    cluster: makeCluster({
      ...umn,
      platform: { type: 'vsphere' },
      openshift_version: '4.12.10',
      hosts: multiNodeHosts(),
    }),
  },
  {
    name: 'nutanix.yaml',
    cluster: makeCluster({ platform: { type: 'nutanix' }, hosts: multiNodeHosts() }),
  },
  {
    name: 'external-oci.yaml',
    cluster: makeCluster({
      ...umn,
      platform: {
        type: 'external',
        external: { platform_name: 'oci', cloud_controller_manager: 'External' },
      },
      machine_networks: [],
      hosts: multiNodeHosts(),
    }),
    options: {
      nodeIpAllocations: {
        '00000003-0000-0000-0000-000000000000': {
          nodeIp: '192.168.111.23',
          hintIp: '192.168.111.0',
          cidr: '192.168.111.0/24',
        },
      },
    },
  },
];

describe('install-config goldens', () => {
  for (const c of cases) {
    it(c.name, () => {
      expectGolden(golden(c.name), generateInstallConfig(c.cluster, c.options));
    });
  }

  it('baremetal multi-node as upstream JSON bytes', () => {
    const cluster = makeCluster({ hosts: multiNodeHosts(), ssh_public_key: 'ssh-rsa AAA <x>&y' });
    expectGolden(golden('baremetal-multinode.json'), `${generateInstallConfig(cluster, {}, 'json')}\n`);
  });
});
