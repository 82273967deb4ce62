import { describe, expect, it } from 'vitest';
import {
  chooseStaticNetworkFlavour,
  generateStaticNetworkFiles,
  nmPolicyYaml,
  sortStaticNetworkConfig,
  validateStaticNetworkConfig,
} from '../../../../src/core/ignition/index.ts';
import { macInterfaceIni, withAutoconnect } from '../../../../src/core/ignition/static-network.ts';
import { HOST_A_YAML, HOST_B_YAML, TWO_HOSTS } from './fixtures.ts';

const host = (yaml: string, map: [string, string][]) => ({
  network_yaml: yaml,
  mac_interface_map: map.map(([mac_address, logical_nic_name]) => ({ mac_address, logical_nic_name })),
});

describe('stored order', () => {
  it('sorts maps by name then MAC, hosts by YAML then map', () => {
    const sorted = sortStaticNetworkConfig([
      host('b', [
        ['m2', 'eth1'],
        ['m1', 'eth0'],
      ]),
      host('a', [
        ['m9', 'x'],
        ['m8', 'x'],
      ]),
      host('a', [['m1', 'a']]),
    ]);
    expect(sorted).toEqual([
      host('a', [['m1', 'a']]),
      host('a', [
        ['m8', 'x'],
        ['m9', 'x'],
      ]),
      host('b', [
        ['m1', 'eth0'],
        ['m2', 'eth1'],
      ]),
    ]);
    // Equal maps of the same length compare by entries.
    expect(
      sortStaticNetworkConfig([host('a', [['m2', 'b']]), host('a', [['m1', 'b']])]).map(
        (h) => h.mac_interface_map[0]?.mac_address,
      ),
    ).toEqual(['m1', 'm2']);
    expect(sortStaticNetworkConfig([host('a', [['m', 'b']]), host('a', [['m', 'b']])])).toHaveLength(2);
  });
});

describe('validation messages', () => {
  const eth = 'interfaces:\n  - name: eth0\n    type: ethernet\n';
  const cases: [string, ReturnType<typeof host>[], string[], boolean?][] = [
    ['valid', [host(eth, [['m', 'eth0']])], []],
    [
      'no map',
      [host(eth, [])],
      [
        'at least one interface for host 0 must be provided',
        'mac-interface mapping for interface eth0 is missing and not a physical interface',
      ],
    ],
    [
      'duplicate MAC',
      [
        host(eth, [
          ['m', 'eth0'],
          ['m', 'eth1'],
        ]),
      ],
      ['MACs and Interfaces for host 0 must be unique'],
    ],
    [
      'duplicate name',
      [
        host(eth, [
          ['m1', 'eth0'],
          ['m2', 'eth0'],
        ]),
      ],
      ['MACs and Interfaces for host 0 must be unique'],
    ],
    [
      'empty yaml',
      [host('', [['m', 'eth0']])],
      ['failed to validate network yaml for host 0, cannot generate configuration with an empty host YAML'],
    ],
    [
      'not a mapping',
      [host('- a', [['m', 'eth0']])],
      [
        'failed to validate network yaml for host 0, InvalidArgument: Invalid YAML string: invalid type: sequence, expected struct NetworkState',
      ],
    ],
    [
      'yaml syntax',
      [host('a: [b', [['m', 'eth0']])],
      [
        'failed to validate network yaml for host 0, InvalidArgument: Invalid YAML string: Flow sequence in block collection must be sufficiently indented and end with a ] at line 1, column 6',
      ],
    ],
    [
      'interfaces not a sequence',
      [host('interfaces: eth0\n', [['m', 'eth0']])],
      [
        'failed to validate network yaml for host 0, InvalidArgument: Invalid YAML string: interfaces: invalid type: string "eth0", expected a sequence',
      ],
    ],
    [
      'interface entry not a mapping',
      [host('interfaces:\n  - eth0\n', [['m', 'eth0']])],
      [
        'failed to validate network yaml for host 0, InvalidArgument: Invalid YAML string: interfaces[0]: invalid type: string "eth0", expected a mapping',
      ],
    ],
    [
      'ipv4 flag not a boolean',
      [
        host('interfaces:\n  - name: eth0\n    type: ethernet\n    ipv4:\n      enabled: "yes"\n', [
          ['m', 'eth0'],
        ]),
      ],
      [
        'failed to validate network yaml for host 0, InvalidArgument: Invalid YAML string: interfaces[0].ipv4.enabled: invalid type: string "yes", expected a boolean',
      ],
    ],
    [
      'interface without name',
      [host('interfaces:\n  - type: ethernet\n', [['m', 'eth0']])],
      ['interface name not found in networks configuration'],
    ],
    [
      'hardware name needs no map entry',
      [host('interfaces:\n  - name: enp1s0\n    type: ethernet\n', [['m', 'eth0']])],
      [],
    ],
    [
      'mac identifier needs no map entry',
      [
        host('interfaces:\n  - name: foo\n    type: ethernet\n    identifier: mac-address\n', [
          ['m', 'eth0'],
        ]),
      ],
      [],
    ],
    [
      'mac identifier rejected with nmstatectl',
      [
        host('interfaces:\n  - name: foo\n    type: ethernet\n    identifier: mac-address\n', [
          ['m', 'eth0'],
        ]),
      ],
      ['Mac-address identifier is not supported'],
      true,
    ],
    [
      'bond port missing',
      [
        host('interfaces:\n  - name: bond0\n    type: bond\n    link-aggregation:\n      port: [nic9]\n', [
          ['m', 'eth0'],
        ]),
      ],
      ['mac-interface mapping for interface bond0 is missing and not a physical interface'],
    ],
    [
      'bond ports mapped',
      [
        host(HOST_B_YAML, [
          ['m1', 'nic1'],
          ['m2', 'nic2'],
        ]),
      ],
      [],
    ],
  ];
  it.each(cases)('%s', (_name, configs, expected, nmstatectl) => {
    expect(validateStaticNetworkConfig(configs, { useNmstatectl: nmstatectl })).toEqual(expected);
  });
});

describe('flavour', () => {
  it('nmstatectl from 4.18 (configurable), keyfiles before, for unknown versions and MAC identifiers', () => {
    expect(chooseStaticNetworkFlavour(TWO_HOSTS, '4.18.0')).toBe('nmstatectl');
    expect(chooseStaticNetworkFlavour(TWO_HOSTS, '4.19.0-ec.1')).toBe('nmstatectl');
    expect(chooseStaticNetworkFlavour(TWO_HOSTS, '4.17.9')).toBe('keyfile');
    expect(chooseStaticNetworkFlavour(TWO_HOSTS, undefined)).toBe('keyfile');
    expect(chooseStaticNetworkFlavour(TWO_HOSTS, '4.18', '4.19')).toBe('keyfile');
    const macId = [
      host('interfaces:\n  - name: x\n    type: ethernet\n    identifier: mac-address\n', [['m', 'x']]),
    ];
    expect(chooseStaticNetworkFlavour(macId, '4.20')).toBe('keyfile');
  });
});

describe('files', () => {
  it('mac_interface.ini: sorted lines, no trailing newline', () => {
    expect(
      macInterfaceIni([
        { mac_address: 'bb', logical_nic_name: 'x' },
        { mac_address: 'aa', logical_nic_name: 'y' },
      ]),
    ).toBe('aa=y\nbb=x');
  });

  it('nmpolicy: captures by upper-case MAC, names replaced, ipv4/ipv6 disabled when missing', () => {
    expect(nmPolicyYaml(TWO_HOSTS[1]!)).toBe(`capture:
  iface0: interfaces.mac-address == "52:54:00:00:00:A1"
desiredState:
  dns-resolver:
    config:
      server:
        - 192.168.126.1
  interfaces:
    - name: "{{ capture.iface0.interfaces.0.name }}"
      type: ethernet
      state: up
      ipv4:
        enabled: true
        dhcp: false
        address:
          - ip: 192.168.126.30
            prefix-length: 24
      ipv6:
        enabled: false
    - name: eth0.100
      type: vlan
      state: up
      vlan:
        base-iface: "{{ capture.iface0.interfaces.0.name }}"
        id: 100
      ipv4:
        enabled: false
      ipv6:
        enabled: false
  routes:
    config:
      - destination: 0.0.0.0/0
        next-hop-address: 192.168.126.1
        next-hop-interface: "{{ capture.iface0.interfaces.0.name }}"
`);
    const absent = nmPolicyYaml(
      host('interfaces:\n  - name: eth1\n    state: absent\n', [['aa:bb', 'eth1']]),
    );
    expect(absent).not.toContain('enabled');
    expect(
      nmPolicyYaml(
        host(HOST_B_YAML, [
          ['m1', 'nic1'],
          ['m2', 'nic2'],
        ]),
      ),
    ).toContain(
      '      port:\n          - "{{ capture.iface0.interfaces.0.name }}"\n          - "{{ capture.iface1.interfaces.0.name }}"\n',
    );
  });

  it('keyfiles get autoconnect settings in [connection]', () => {
    expect(withAutoconnect('[connection]\nid=a\nautoconnect=false\n\n[ipv4]\nmethod=auto\n')).toBe(
      '[connection]\nid=a\nautoconnect=true\nautoconnect-priority=1\n\n[ipv4]\nmethod=auto\n',
    );
    expect(withAutoconnect('[ipv4]\nmethod=auto')).toBe(
      '[ipv4]\nmethod=auto\n\n[connection]\nautoconnect=true\nautoconnect-priority=1\n',
    );
  });

  it('keyfile generator failures', () => {
    const configs = [host(HOST_A_YAML, [['m', 'eth0']])];
    expect(generateStaticNetworkFiles(configs, 'keyfile', () => [])).toEqual({
      error:
        'failed to create static config for host 0: nmstate generated an empty NetworkManager config file content',
    });
    expect(
      generateStaticNetworkFiles(configs, 'keyfile', () => {
        throw new Error('boom');
      }),
    ).toEqual({ error: 'failed to create static config for host 0: boom' });
    expect(generateStaticNetworkFiles(configs, 'keyfile')).toEqual({
      error: 'static network keyfiles need an nmstate keyfile generator (OCP < 4.18)',
    });
  });
});
