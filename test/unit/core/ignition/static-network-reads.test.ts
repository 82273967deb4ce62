// Each host YAML is parsed once for validation, the flavour and the files (issue 16), and what is
// remembered stays bounded: a few recent texts, no large ones.

import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as yaml from 'yaml';
import {
  chooseStaticNetworkFlavour,
  generateStaticNetworkFiles,
  sortStaticNetworkConfig,
  validateStaticNetworkConfig,
} from '../../../../src/core/ignition/index.ts';

// The real yaml module, its parseDocument wrapped so the test can count the calls.
vi.mock('yaml', async (importOriginal) => {
  const actual = await importOriginal<typeof import('yaml')>();
  return { ...actual, parseDocument: vi.fn(actual.parseDocument) };
});

const host = (network_yaml: string, nic = 'eth0') => ({
  network_yaml,
  mac_interface_map: [{ mac_address: '52:54:00:00:00:01', logical_nic_name: nic }],
});

let texts = 0;
/** A valid host YAML no earlier read saw. */
function freshYaml(padding = ''): string {
  texts += 1;
  return `interfaces:\n  - name: eth0\n    type: ethernet\n    state: up\n# text ${texts}${padding}\n`;
}

const parses = (text: string) =>
  vi.mocked(yaml.parseDocument).mock.calls.filter(([source]) => source === text).length;

describe('host YAML reads', () => {
  beforeEach(() => {
    vi.mocked(yaml.parseDocument).mockClear();
  });

  it('validation, the flavour and the nmpolicies parse each host YAML once', () => {
    const configs = sortStaticNetworkConfig([host(freshYaml()), host(freshYaml()), host(freshYaml())]);
    expect(validateStaticNetworkConfig(configs)).toEqual([]);
    const flavour = chooseStaticNetworkFlavour(configs, '4.19');
    expect(flavour).toBe('nmstatectl');
    expect(generateStaticNetworkFiles(configs, flavour).files).toHaveLength(6);
    expect(generateStaticNetworkFiles(configs, flavour).files).toHaveLength(6);
    expect(configs.map((c) => parses(c.network_yaml))).toEqual([1, 1, 1]);
  });

  it('remembers recent texts only', () => {
    const first = freshYaml();
    validateStaticNetworkConfig([host(first)]);
    const others = Array.from({ length: 100 }, () => freshYaml());
    for (const text of others) validateStaticNetworkConfig([host(text)]);
    validateStaticNetworkConfig([host(first)]);
    validateStaticNetworkConfig([host(others.at(-1)!)]);
    expect(parses(first)).toBe(2);
    expect(parses(others.at(-1)!)).toBe(1);
  });

  it('does not keep large texts', () => {
    const large = freshYaml(`\n# ${'x'.repeat(1024 * 1024)}`);
    expect(validateStaticNetworkConfig([host(large)])).toEqual([]);
    expect(validateStaticNetworkConfig([host(large)])).toEqual([]);
    expect(parses(large)).toBe(2);
  });
});
