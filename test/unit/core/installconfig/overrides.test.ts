// install-config overrides (core.md §7.4): Go decode-into-struct semantics and error messages.

import { describe, expect, it } from 'vitest';
import { createRootCa } from '../../../../src/core/artifacts/index.ts';
import {
  applyInstallConfigOverrides,
  buildInstallConfig,
  generateInstallConfig,
  InstallConfigOverrideError,
  validateInstallConfigOverrides,
  validatePemCertificateBundle,
} from '../../../../src/core/installconfig/index.ts';
import type { Cluster } from '../../../../src/core/model.ts';
import { makeCluster, multiNodeHosts } from './fixtures.ts';

const cluster = (extra: Partial<Cluster> = {}) => makeCluster({ hosts: multiNodeHosts(), ...extra });
const withOverrides = (overrides: string) =>
  buildInstallConfig(cluster({ install_config_overrides: overrides }));

function errorOf(overrides: string): InstallConfigOverrideError {
  try {
    withOverrides(overrides);
  } catch (err) {
    if (err instanceof InstallConfigOverrideError) return err;
    throw err;
  }
  throw new Error('expected the overrides to be rejected');
}

describe('object merge', () => {
  it('keeps generated keys the override does not mention', () => {
    const cfg = withOverrides('{"networking":{"networkType":"OpenShiftSDN"}}');
    expect(cfg.networking).toEqual({
      networkType: 'OpenShiftSDN',
      clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
      machineNetwork: [{ cidr: '192.168.111.0/24' }],
      serviceNetwork: ['172.30.0.0/16'],
    });
  });
  it('merges into the generated platform section', () => {
    const bm = withOverrides('{"platform":{"baremetal":{"clusterOSImage":"http://x/os.qcow2"}}}').platform
      .baremetal;
    expect(bm?.clusterOSImage).toBe('http://x/os.qcow2');
    expect(bm?.hosts?.length).toBe(5);
    expect(bm?.apiVIPs).toEqual(['192.168.111.5']);
  });
  it('creates absent pointer sections', () => {
    const cfg = withOverrides(
      '{"capabilities":{"baselineCapabilitySet":"None","additionalEnabledCapabilities":["marketplace"]},"proxy":{"httpProxy":"http://p"}}',
    );
    expect(cfg.capabilities).toEqual({
      baselineCapabilitySet: 'None',
      additionalEnabledCapabilities: ['marketplace'],
    });
    expect(cfg.proxy).toEqual({ httpProxy: 'http://p' });
  });
  it('creates pointer elements inside absent pointer sections', () => {
    const cfg = withOverrides(
      '{"controlPlane":{"fencing":{"credentials":[{"address":"a","certificateVerification":"Enabled"},null]}}}',
    );
    expect(cfg.controlPlane.fencing).toEqual({
      credentials: [{ address: 'a', certificateVerification: 'Enabled' }, null],
    });
  });
  it('adds another platform next to the generated one', () => {
    expect(withOverrides('{"platform":{"none":{}}}').platform).toMatchObject({
      none: {},
      baremetal: { provisioningNetwork: 'Disabled' },
    });
  });
  it('replaces scalars of every kind', () => {
    const cfg = withOverrides(
      '{"fips":true,"baseDomain":"other.com","controlPlane":{"replicas":5},"featureSet":"CustomNoUpgrade","featureGates":["A=true"],"cpuPartitioningMode":"AllNodes","additionalTrustBundlePolicy":"Always","osImageStream":"rhel-10"}',
    );
    expect([
      cfg.fips,
      cfg.baseDomain,
      cfg.controlPlane,
      cfg.featureSet,
      cfg.featureGates,
      cfg.cpuPartitioningMode,
      cfg.additionalTrustBundlePolicy,
      cfg.osImageStream,
    ]).toEqual([
      true,
      'other.com',
      { hyperthreading: 'Enabled', name: 'master', replicas: 5 },
      'CustomNoUpgrade',
      ['A=true'],
      'AllNodes',
      'Always',
      'rhel-10',
    ]);
  });
  it('matches keys case-insensitively when there is no exact match, as Go does', () => {
    const cfg = withOverrides('{"FIPS":true,"Platform":{"BareMetal":{"ProvisioningNetwork":"Managed"}}}');
    expect(cfg.fips).toBe(true);
    expect(cfg.platform.baremetal?.provisioningNetwork).toBe('Managed');
  });
  it('decodes duplicate keys in turn', () => {
    expect(withOverrides('{"baseDomain":"a.com","baseDomain":"b.com"}').baseDomain).toBe('b.com');
  });
  it('does not modify the config it was given', () => {
    const base = buildInstallConfig(cluster());
    const before = structuredClone(base);
    applyInstallConfigOverrides(base, '{"compute":[{"replicas":9}],"fips":true}');
    expect(base).toEqual(before);
  });
});

describe('arrays merge by position', () => {
  it('element i is decoded on top of generated element i', () => {
    expect(withOverrides('{"compute":[{"replicas":0}]}').compute).toEqual([
      { hyperthreading: 'Enabled', name: 'worker', replicas: 0 },
    ]);
  });
  it('extra elements start empty', () => {
    expect(withOverrides('{"compute":[{},{"name":"infra","replicas":2}]}').compute).toEqual([
      { hyperthreading: 'Enabled', name: 'worker', replicas: 2 },
      { name: 'infra', replicas: 2 },
    ]);
  });
  it('truncates to the override length', () => {
    const hosts = withOverrides('{"platform":{"baremetal":{"hosts":[{"bootMode":"legacy"}]}}}').platform
      .baremetal?.hosts;
    expect(hosts).toHaveLength(1);
    expect(hosts?.[0]).toMatchObject({
      name: 'master-1',
      role: 'master',
      bootMode: 'legacy',
      bootMACAddress: '52:54:00:00:01:01',
    });
  });
  it('nested merge inside an element keeps its other fields', () => {
    const host = withOverrides(
      '{"platform":{"baremetal":{"hosts":[{"bmc":{"address":"redfish://1.2.3.4"}}]}}}',
    ).platform.baremetal?.hosts?.[0];
    expect(host?.bmc).toEqual({
      username: '',
      password: '',
      address: 'redfish://1.2.3.4',
      disableCertificateVerification: false,
    });
  });
  it('string arrays are replaced element by element and truncated', () => {
    expect(
      withOverrides('{"networking":{"serviceNetwork":["10.96.0.0/12"]}}').networking.serviceNetwork,
    ).toEqual(['10.96.0.0/12']);
  });
  it('an empty array empties the list (kept as an empty list)', () => {
    const cfg = withOverrides('{"compute":[]}');
    expect(cfg.compute).toEqual([]);
    expect(
      generateInstallConfig(cluster({ install_config_overrides: '{"compute":[]}' }), {}, 'json'),
    ).toContain('"compute":[]');
  });
});

describe('null', () => {
  it('resets slices and pointers', () => {
    const cfg = withOverrides('{"compute":null,"proxy":null,"platform":{"baremetal":null}}');
    expect([cfg.compute, cfg.proxy, cfg.platform.baremetal]).toEqual([null, null, null]);
    const json = generateInstallConfig(
      cluster({ install_config_overrides: '{"compute":null,"platform":{"baremetal":null}}' }),
      {},
      'json',
    );
    expect(json).toContain('"compute":null');
    expect(json).toContain('"platform":{}');
  });
  it('is a no-op for scalars and structs', () => {
    const cfg = withOverrides(
      '{"baseDomain":null,"fips":null,"networking":null,"controlPlane":{"replicas":null}}',
    );
    expect([cfg.baseDomain, cfg.fips, cfg.networking.networkType, cfg.controlPlane.replicas]).toEqual([
      'example.com',
      false,
      'OVNKubernetes',
      3,
    ]);
  });
  it('a null document changes nothing', () => {
    expect(withOverrides('null')).toEqual(buildInstallConfig(cluster()));
  });
});

describe('rejections name the key and where it is', () => {
  const table: [string, string, string][] = [
    [
      '{"bogus":1}',
      '',
      'unknown field "bogus" at the top level (known fields: apiVersion, baseDomain, proxy, networking, metadata, compute, controlPlane, arbiter, platform, bootstrapInPlace, fips, cpuPartitioningMode, pullSecret, sshKey, additionalTrustBundle, additionalTrustBundlePolicy, imageContentSources, imageDigestSources, capabilities, featureSet, featureGates, osImageStream)',
    ],
    [
      '{"platform":{"aws":{}}}',
      'platform',
      'unknown field "aws" at platform (known fields: baremetal, none, vsphere, nutanix, external)',
    ],
    [
      '{"compute":[{},{"platform":{}}]}',
      'compute[1]',
      'unknown field "platform" at compute[1] (known fields: hyperthreading, name, replicas)',
    ],
    [
      '{"controlPlane":{"platform":{"baremetal":{}}}}',
      'controlPlane',
      'unknown field "platform" at controlPlane (known fields: hyperthreading, name, replicas, fencing)',
    ],
    [
      '{"platform":{"none":{"x":1}}}',
      'platform.none',
      'unknown field "x" at platform.none (it accepts no fields)',
    ],
    [
      '{"platform":{"baremetal":{"hosts":[{"bmc":{"user":"a"}}]}}}',
      'platform.baremetal.hosts[0].bmc',
      'unknown field "user" at platform.baremetal.hosts[0].bmc (known fields: username, password, address, disableCertificateVerification)',
    ],
    ['{"fips":"true"}', 'fips', 'wrong type at fips: expected boolean, got string "true"'],
    [
      '{"controlPlane":{"replicas":"3"}}',
      'controlPlane.replicas',
      'wrong type at controlPlane.replicas: expected integer, got string "3"',
    ],
    [
      '{"controlPlane":{"replicas":1.5}}',
      'controlPlane.replicas',
      'wrong type at controlPlane.replicas: expected integer, got number 1.5',
    ],
    [
      '{"controlPlane":{"replicas":1e2}}',
      'controlPlane.replicas',
      'wrong type at controlPlane.replicas: expected integer, got number 1e2',
    ],
    [
      '{"compute":[{"replicas":9223372036854775808}]}',
      'compute[0].replicas',
      'wrong type at compute[0].replicas: expected integer, got number 9223372036854775808',
    ],
    [
      '{"platform":{"nutanix":{"prismCentral":{"endpoint":{"port":2147483648}}}}}',
      'platform.nutanix.prismCentral.endpoint.port',
      'wrong type at platform.nutanix.prismCentral.endpoint.port: expected int32, got number 2147483648',
    ],
    ['{"baseDomain":5}', 'baseDomain', 'wrong type at baseDomain: expected string, got number 5'],
    [
      '{"compute":{"replicas":1}}',
      'compute',
      'wrong type at compute: expected array of object (Compute), got object',
    ],
    ['{"proxy":"x"}', 'proxy', 'wrong type at proxy: expected object (Proxy), got string "x"'],
    ['{"networking":[]}', 'networking', 'wrong type at networking: expected object (Networking), got array'],
    [
      '{"featureGates":[true]}',
      'featureGates[0]',
      'wrong type at featureGates[0]: expected string, got boolean true',
    ],
    ['[1]', '', 'install config overrides must be a JSON object, got array'],
    ['"x"', '', 'install config overrides must be a JSON object, got string "x"'],
  ];
  for (const [overrides, path, message] of table) {
    it(overrides, () => {
      const err = errorOf(overrides);
      expect(err.message).toBe(message);
      expect(err.path).toBe(path);
    });
  }
});

describe('invalid JSON', () => {
  const table: [string, string][] = [
    [
      '{"fips":tru}',
      'install config overrides are not valid JSON: unexpected character "t" where a value should start at line 1, column 9',
    ],
    [
      '{"fips":true',
      "install config overrides are not valid JSON: expected ',' or '}' after the value of \"fips\" at line 1, column 13",
    ],
    [
      '{\n  "a": 1,\n  b: 2}',
      'install config overrides are not valid JSON: expected a quoted key but found character "b" at line 3, column 3',
    ],
    [
      '{"a" 1}',
      'install config overrides are not valid JSON: expected \':\' after key "a" but found character "1" at line 1, column 6',
    ],
    [
      '[1 2]',
      "install config overrides are not valid JSON: expected ',' or ']' after array element 0 at line 1, column 4",
    ],
    ['{"a":"x', 'install config overrides are not valid JSON: unterminated string at line 1, column 6'],
    [
      '{"a":"\\q"}',
      'install config overrides are not valid JSON: invalid escape "\\q" in string at line 1, column 7',
    ],
    [
      '{"a":"\\u12"}',
      'install config overrides are not valid JSON: invalid \\u escape in string at line 1, column 7',
    ],
    [
      '{"a":"\u0001"}',
      'install config overrides are not valid JSON: control character in string at line 1, column 7',
    ],
    ['{"a":-}', 'install config overrides are not valid JSON: invalid number at line 1, column 6'],
    ['   ', 'install config overrides are not valid JSON: empty document at line 1, column 1'],
  ];
  for (const [overrides, message] of table) {
    it(JSON.stringify(overrides), () => expect(errorOf(overrides).message).toBe(message));
  }

  it('reads only the first JSON value, like Go json.Decoder', () => {
    expect(withOverrides('{"fips":true} {"bogus":1} trailing').fips).toBe(true);
  });
  it('decodes escapes', () => {
    expect(withOverrides('{"sshKey":"a\\"b\\\\c\\/d\\n\\t\\u00e9\\b\\f\\r"}').sshKey).toBe(
      'a"b\\c/d\n\té\b\f\r',
    );
  });
  it('an empty string changes nothing', () => {
    expect(applyInstallConfigOverrides(buildInstallConfig(cluster()), '')).toEqual(
      buildInstallConfig(cluster()),
    );
  });
});

describe('validateInstallConfigOverrides', () => {
  it('accepts a bundle of valid certificates, with text before a block', async () => {
    const a = (await createRootCa(new Date('2026-01-01T00:00:00Z'), () => Buffer.alloc(16, 1))).certPem;
    const b = (await createRootCa(new Date('2026-01-01T00:00:00Z'), () => Buffer.alloc(16, 2))).certPem;
    const bundle = `# corp CA\n${a.trim()}\n${b.trim()}`;
    expect(() =>
      validateInstallConfigOverrides(cluster(), JSON.stringify({ additionalTrustBundle: bundle })),
    ).not.toThrow();
  });
  it('rejects trailing text after the last block', async () => {
    const a = (await createRootCa(new Date('2026-01-01T00:00:00Z'), () => Buffer.alloc(16, 1))).certPem;
    expect(() =>
      validateInstallConfigOverrides(cluster(), JSON.stringify({ additionalTrustBundle: `${a.trim()}\n\n` })),
    ).toThrow('additionalTrustBundle: invalid block');
  });
  it('rejects a bundle without PEM blocks', () => {
    expect(() => validateInstallConfigOverrides(cluster(), '{"additionalTrustBundle":"not a cert"}')).toThrow(
      new InstallConfigOverrideError('additionalTrustBundle: invalid block', 'additionalTrustBundle'),
    );
  });
  it('rejects blocks glued to the next one on the END line', async () => {
    const a = (
      await createRootCa(new Date('2026-01-01T00:00:00Z'), () => Buffer.alloc(16, 1))
    ).certPem.trim();
    expect(() => validatePemCertificateBundle(`${a}${a}`)).toThrow('invalid block');
  });
  it('rejects a block that is not base64', () => {
    expect(() =>
      validatePemCertificateBundle('-----BEGIN CERTIFICATE-----\n***\n-----END CERTIFICATE-----'),
    ).toThrow('invalid block');
  });
  it('rejects a block that is not a certificate', () => {
    expect(() =>
      validatePemCertificateBundle('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----'),
    ).toThrow(/^parse failed: /);
  });
  it('checks the stored overrides too (the new document is applied on top of them)', () => {
    const c = cluster({ install_config_overrides: '{"additionalTrustBundle":"junk"}' });
    expect(() => validateInstallConfigOverrides(c, '{"fips":true}')).toThrow(
      'additionalTrustBundle: invalid block',
    );
  });
  it('ignores the RH root CA and accepts configs without a bundle', () => {
    expect(() =>
      validateInstallConfigOverrides(cluster(), '{"fips":true}', { rhRootCa: 'junk' }),
    ).not.toThrow();
  });
  it('passes unknown keys through as errors', () => {
    expect(() => validateInstallConfigOverrides(cluster(), '{"nope":1}')).toThrow(
      /^unknown field "nope" at the top level/,
    );
  });
});
