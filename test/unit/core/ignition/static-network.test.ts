import { describe, expect, it } from 'vitest';
import { isMap, isSeq, parseDocument, stringify } from 'yaml';
import {
  chooseStaticNetworkFlavour,
  generateStaticNetworkFiles,
  nmPolicyYaml,
  sortStaticNetworkConfig,
  validateStaticNetworkConfig,
} from '../../../../src/core/ignition/index.ts';
import { macInterfaceIni, withAutoconnect } from '../../../../src/core/ignition/static-network.ts';
import { HOST_A_YAML, HOST_B_YAML, TWO_HOSTS } from './fixtures.ts';

/**
 * nmPolicyYaml as it was when it always edited the parsed yaml Document: the reference its output
 * must match byte for byte, whichever way it now takes.
 */
function nmPolicyYamlOnDocument(host: {
  network_yaml: string;
  mac_interface_map: { mac_address: string; logical_nic_name: string }[];
}): string {
  const doc = parseDocument(host.network_yaml);
  const placeholders = new Map<string, string>();
  const capture: Record<string, string> = {};
  host.mac_interface_map.forEach((entry, j) => {
    capture[`iface${j}`] = `interfaces.mac-address == "${entry.mac_address.toUpperCase()}"`;
    placeholders.set(entry.logical_nic_name, `{{ capture.iface${j}.interfaces.0.name }}`);
  });
  const interfaces = doc.get('interfaces');
  if (isSeq(interfaces)) {
    for (const nic of interfaces.items) {
      if (!isMap(nic) || nic.get('state') === 'absent') continue;
      for (const family of ['ipv4', 'ipv6']) {
        if (!nic.has(family)) nic.set(family, doc.createNode({ enabled: false }));
      }
    }
  }
  const replaceNames = (value: unknown): unknown => {
    if (typeof value === 'string') return placeholders.get(value) ?? value;
    if (Array.isArray(value)) return value.map(replaceNames);
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaceNames(v)]));
    }
    return value;
  };
  return stringify({ capture, desiredState: replaceNames(doc.toJS() as unknown) }, { lineWidth: 0 });
}

/** The output, or the error thrown, so both ways can be compared on any input. */
function outcome(generate: () => string): { yaml: string } | { threw: string } {
  try {
    return { yaml: generate() };
  } catch (err) {
    return { threw: String(err) };
  }
}

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

  // Plain documents are edited as their parsed value; anything where that could differ (aliases,
  // tags, YAML 1.1 merge keys, warnings, errors) goes through the Document as before.
  const nmPolicyCases: [string, string][] = [
    ['two hosts A', HOST_A_YAML],
    ['two hosts B', HOST_B_YAML],
    ['absent interface', 'interfaces:\n  - name: eth0\n    state: absent\n  - name: eth1\n    state: up\n'],
    [
      'absent quoted and tagged',
      'interfaces:\n  - {name: eth0, state: "absent"}\n  - {name: eth1, state: !!str absent}\n',
    ],
    ['ipv4 present, ipv6 missing', 'interfaces:\n  - name: eth0\n    ipv4: {enabled: true, dhcp: true}\n'],
    [
      'ipv6 present, ipv4 missing',
      'interfaces:\n  - name: eth0\n    ipv6: {enabled: true, autoconf: true}\n',
    ],
    ['empty and null sections', 'interfaces:\n  - name: eth0\n    ipv4:\n    ipv6: ~\n'],
    ['quoted section keys', 'interfaces:\n  - name: eth0\n    "ipv4": {enabled: true}\n'],
    ['entries that are not maps', 'interfaces:\n  - eth0\n  - [eth1]\n  -\n  - name: eth2\n'],
    ['flow style', 'interfaces: [{name: eth0, type: ethernet}, {name: eth1, state: absent}]\n'],
    ['interfaces a map', 'interfaces:\n  eth0: {type: ethernet}\n'],
    ['no interfaces', 'dns-resolver:\n  config:\n    server: [1.1.1.1]\n'],
    ['top level sequence', '- name: eth0\n'],
    ['top level scalar', 'eth0\n'],
    ['empty', ''],
    ['comment only', '# nothing\n'],
    [
      'integer-like and prototype keys',
      'interfaces:\n  - 2: b\n    name: eth0\n    1: a\n    __proto__: {state: absent}\n    toString: x\n',
    ],
    ['number and string keys alike', 'interfaces:\n  - 1: a\n    "1": b\n    name: eth0\n'],
    [
      'merge key is a plain key in YAML 1.2',
      'interfaces:\n  - <<: {ipv4: {enabled: true}}\n    name: eth0\n',
    ],
    ['anchor without alias', 'interfaces:\n  - &nic\n    name: eth0\n'],
    ['interface repeated by alias', 'interfaces:\n  - &nic\n    name: eth0\n  - *nic\n'],
    ['interface anchored elsewhere', 'base: &nic\n  name: eth0\ninterfaces:\n  - *nic\n'],
    ['interface aliased elsewhere', 'interfaces:\n  - &nic\n    name: eth0\nother: *nic\n'],
    ['interfaces list aliased', 'a: &list\n  - name: eth0\ninterfaces: *list\n'],
    [
      'YAML 1.1 merge keys',
      '%YAML 1.1\n---\nbase: &b {ipv4: {enabled: true}}\ninterfaces:\n  - <<: *b\n    name: eth0\n  - <<: {ipv6: {enabled: true}}\n    name: eth1\n',
    ],
    [
      'YAML 1.1 merge key without alias',
      '%YAML 1.1\n---\ninterfaces:\n  - <<: {ipv6: {enabled: true}}\n    name: eth1\n',
    ],
    ['YAML 1.3 directive (warning)', '%YAML 1.3\n---\ninterfaces:\n  - name: eth0\n'],
    ['custom tag (warning)', 'interfaces:\n  - !nic {name: eth0}\n'],
    ['explicit standard tags', 'interfaces: !!seq\n  - !!map {name: eth0}\n'],
    ['set', 'interfaces:\n  - !!set {eth0, ipv4}\n'],
    ['ordered map', 'interfaces:\n  - !!omap [name: eth0]\n'],
    ['pairs', 'interfaces:\n  - !!pairs [name: eth0]\n'],
    ['binary scalar', 'interfaces:\n  - name: !!binary ZXRoMA==\n'],
    ['syntax error', 'interfaces: [eth0\n'],
    ['two documents', 'interfaces: []\n---\ninterfaces: []\n'],
    ['unresolved alias', 'interfaces:\n  - *nic\n'],
  ];
  it.each(nmPolicyCases)('nmpolicy is what editing the document gives: %s', (_name, yaml) => {
    const h = host(yaml, [
      ['52:54:00:00:00:01', 'eth0'],
      ['52:54:00:00:00:02', 'eth1'],
    ]);
    const expected = outcome(() => nmPolicyYamlOnDocument(h));
    expect(outcome(() => nmPolicyYaml(h))).toEqual(expected);
    // Again, after validation and the flavour read the same text (some of them throw, as before).
    outcome(() => validateStaticNetworkConfig([h]).join());
    outcome(() => chooseStaticNetworkFlavour([h], '4.18'));
    expect(outcome(() => nmPolicyYaml(h))).toEqual(expected);
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
