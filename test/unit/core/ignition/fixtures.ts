import type { DiscoveryIgnitionOptions } from '../../../../src/core/ignition/index.ts';
import type { InfraEnv } from '../../../../src/core/model.ts';

export const INFRA_ENV_ID = '5c4a7c8e-1b2d-4e5f-8a9b-0c1d2e3f4a5b';
export const PULL_SECRET = '{"auths":{"cloud.openshift.com":{"auth":"dXNlcjpwYXNz","email":"a@b.c"}}}';
export const CA_PEM = '-----BEGIN CERTIFICATE-----\nMIIBtest\n-----END CERTIFICATE-----\n';

export function minimalInfraEnv(overrides: Partial<InfraEnv> = {}): InfraEnv {
  return { id: INFRA_ENV_ID, name: 'ie', pull_secret: PULL_SECRET, ...overrides };
}

export const BASE_OPTIONS: DiscoveryIgnitionOptions = {
  serviceBaseUrl: 'https://assisted.example.com:8090',
  agentImage: 'quay.io/edge-infrastructure/assisted-installer-agent:latest',
  agentToken: 'eyJhbGciOiJFUzI1NiJ9.eyJpbmZyYV9lbnZfaWQiOiJ4In0.sig',
};

export const HOST_A_YAML = `dns-resolver:
  config:
    server:
      - 192.168.126.1
interfaces:
  - name: eth0
    type: ethernet
    state: up
    ipv4:
      enabled: true
      dhcp: false
      address:
        - ip: 192.168.126.30
          prefix-length: 24
  - name: eth0.100
    type: vlan
    state: up
    vlan:
      base-iface: eth0
      id: 100
routes:
  config:
    - destination: 0.0.0.0/0
      next-hop-address: 192.168.126.1
      next-hop-interface: eth0
`;

export const HOST_B_YAML = `interfaces:
  - name: bond0
    type: bond
    state: up
    ipv4:
      enabled: true
      address:
        - ip: 192.168.126.31
          prefix-length: 24
    link-aggregation:
      mode: active-backup
      port:
        - nic1
        - nic2
  - name: nic1
    type: ethernet
    state: up
  - name: nic2
    type: ethernet
    state: up
`;

export const TWO_HOSTS: NonNullable<InfraEnv['static_network_config']> = [
  {
    network_yaml: HOST_B_YAML,
    mac_interface_map: [
      { mac_address: '52:54:00:00:00:b2', logical_nic_name: 'nic2' },
      { mac_address: '52:54:00:00:00:b1', logical_nic_name: 'nic1' },
    ],
  },
  {
    network_yaml: HOST_A_YAML,
    mac_interface_map: [{ mac_address: '52:54:00:00:00:a1', logical_nic_name: 'eth0' }],
  },
];
