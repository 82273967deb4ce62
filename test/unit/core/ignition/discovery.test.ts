import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  buildDiscoveryIgnition,
  canonicalJson,
  chooseStaticNetworkFlavour,
  type DiscoveryIgnitionOptions,
  decodeDataUrl,
  generateStaticNetworkFiles,
  type IgnitionConfig,
  parseIgnition,
  renderDiscoveryTemplate,
  sortStaticNetworkConfig,
} from '../../../../src/core/ignition/index.ts';
import type { InfraEnv } from '../../../../src/core/model.ts';
import { BASE_OPTIONS, CA_PEM, INFRA_ENV_ID, minimalInfraEnv, PULL_SECRET, TWO_HOSTS } from './fixtures.ts';
import { expectGolden } from './golden-file.ts';

const GOLDEN = join(import.meta.dirname, 'golden');

function build(infraEnv: InfraEnv, options: Partial<DiscoveryIgnitionOptions> = {}) {
  const result = buildDiscoveryIgnition(infraEnv, { ...BASE_OPTIONS, ...options });
  if (!result.ok) throw new Error(result.error);
  return result.value;
}

function fileText(config: IgnitionConfig, path: string): string | undefined {
  const f = config.storage?.files?.find((x) => x.path === path);
  const source = f?.contents?.source;
  return source ? decodeDataUrl(source)?.toString('utf8') : undefined;
}

const unitNames = (c: IgnitionConfig) => c.systemd?.units?.map((u) => u.name);
const filePaths = (c: IgnitionConfig) => c.storage?.files?.map((f) => f.path);

describe('discovery ignition goldens', () => {
  const cases: [string, InfraEnv, Partial<DiscoveryIgnitionOptions>][] = [
    ['minimal', minimalInfraEnv(), {}],
    [
      'proxy-ntp-ca-ssh',
      minimalInfraEnv({
        ssh_authorized_key: 'ssh-ed25519 AAAAC3Nza key1\n\n  ssh-rsa AAAAB3Nza key2  \n',
        proxy: {
          http_proxy: 'http://proxy.example.com:3128',
          https_proxy: 'http://user:p%40ss@proxy.example.com:3128',
          no_proxy: 'example.com, .svc,10.0.0.0/8',
        },
        additional_ntp_sources: 'ntp1.example.com, 10.1.1.1',
        additional_trust_bundle: CA_PEM,
      }),
      {
        serviceCaCert: CA_PEM,
        skipCertVerification: true,
        mirrorRegistries: { registriesConf: '[[registry]]\nlocation = "quay.io"\n', caBundle: CA_PEM },
      },
    ],
    [
      'static-network-nmstatectl',
      minimalInfraEnv({ openshift_version: '4.18.2', type: 'full-iso', static_network_config: TWO_HOSTS }),
      {},
    ],
    [
      'static-network-keyfile',
      minimalInfraEnv({ openshift_version: '4.16.0', static_network_config: TWO_HOSTS }),
      {
        keyfileGenerator: (yaml: string) =>
          yaml.includes('bond0')
            ? [
                {
                  name: 'bond0.nmconnection',
                  contents: '[connection]\nid=bond0\ntype=bond\ninterface-name=bond0\n',
                },
                {
                  name: 'nic1',
                  contents: '[connection]\nid=nic1\ntype=ethernet\ninterface-name=nic1\nmaster=bond0\n',
                },
              ]
            : [
                {
                  name: 'eth0.nmconnection',
                  contents: '[connection]\nid=eth0\ninterface-name=eth0\n\n[ipv4]\nmethod=manual\n',
                },
              ],
      },
    ],
    [
      'converged-ironic',
      minimalInfraEnv({ cpu_architecture: 'x86_64', proxy: { http_proxy: 'http://proxy:3128' } }),
      {
        ironicAgent: {
          ironicBaseUrl: 'https://192.168.111.3',
          ironicInspectorBaseUrl: 'https://192.168.111.3:5050/custom',
          ironicAgentImage: 'quay.io/metal3/ironic-agent:latest',
        },
      },
    ],
    [
      'okd-ntp-replace',
      minimalInfraEnv({ ntp_sources: 'clock.example.com', additional_ntp_sources: 'ignored.example.com' }),
      { okdRpmsImage: 'quay.io/okd/rpms:4.15', redHatRootCa: CA_PEM, agentToken: '' },
    ],
  ];

  it.each(cases)('%s', (name, infraEnv, options) => {
    const { config, json } = build(infraEnv, options);
    expect(json).toBe(canonicalJson(config));
    expect(build(infraEnv, options).json).toBe(json);
    // Every generated config must pass our own parser (the agent side runs Ignition on it).
    const reparsed = parseIgnition(json);
    expect(reparsed.ok ? [] : [reparsed.error, ...(reparsed.details ?? [])]).toEqual([]);
    expectGolden(join(GOLDEN, `discovery-${name}.ign`), `${canonicalJson(config, 2)}\n`);
  });
});

describe('discovery ignition content', () => {
  it('minimal: units, files, modes and agent.service', () => {
    const { config } = build(minimalInfraEnv());
    expect(config.ignition).toEqual({ version: '3.1.0' });
    expect(config.passwd).toEqual({ users: [] });
    expect(unitNames(config)).toEqual([
      'agent.service',
      'selinux.service',
      'multipathd.service',
      'iscsistart.service',
      'oci-eval-user-data.service',
    ]);
    expect(config.systemd?.units?.[2]).toEqual({ name: 'multipathd.service', enabled: true });
    expect(filePaths(config)).toEqual([
      '/usr/local/bin/agent-fix-bz1964591',
      '/usr/local/bin/agent-pull-image',
      '/etc/motd',
      '/etc/multipath.conf',
      '/usr/local/bin/oci-eval-user-data.sh',
      '/etc/NetworkManager/conf.d/01-ipv6.conf',
      '/root/.docker/config.json',
      '/root/assisted.te',
    ]);
    expect(config.storage?.files?.map((f) => f.mode)).toEqual([493, 493, 420, 420, 493, 420, 420, 420]);
    expect(config.storage?.files?.every((f) => f.user?.name === 'root')).toBe(true);
    expect(fileText(config, '/root/.docker/config.json')).toBe(PULL_SECRET);
    expect(config.storage?.files?.find((f) => f.path === '/root/.docker/config.json')?.contents?.source).toBe(
      'data:,%7B%22auths%22:%7B%22cloud.openshift.com%22:%7B%22auth%22:%22dXNlcjpwYXNz%22%2C%22email%22:%22a@b.c%22%7D%7D%7D',
    );
    expect(fileText(config, '/etc/NetworkManager/conf.d/01-ipv6.conf')).toBe(
      '[connection]\nipv6.dhcp-iaid=mac\nipv6.dhcp-duid=ll\n',
    );
    const agent = config.systemd?.units?.[0];
    expect(agent?.enabled).toBe(true);
    const img = BASE_OPTIONS.agentImage;
    expect(agent?.contents?.split('\n')).toEqual([
      '[Service]',
      'Type=simple',
      'Restart=always',
      'RestartSec=3',
      'StartLimitInterval=0',
      `Environment=PULL_SECRET_TOKEN=${BASE_OPTIONS.agentToken}`,
      'TimeoutStartSec=600',
      `ExecStartPre=/usr/local/bin/agent-fix-bz1964591 ${img}`,
      `ExecStartPre=/usr/local/bin/agent-pull-image ${img}`,
      `ExecStartPre=podman run --pull=never --privileged --rm -v /usr/local/bin:/hostbin ${img} cp /usr/bin/agent /hostbin`,
      `ExecStart=/usr/local/bin/agent --url https://assisted.example.com:8090 --infra-env-id ${INFRA_ENV_ID} --agent-version ${img} --insecure=false`,
      '',
      '[Unit]',
      'Wants=network-online.target',
      'After=network-online.target',
      '',
      '[Install]',
      'WantedBy=multi-user.target',
      '',
    ]);
  });

  it('proxy, NTP (append), CA bundles, SSH keys, mirrors', () => {
    const { config } = build(
      minimalInfraEnv({
        ssh_authorized_key: 'ssh-ed25519 K1\n ssh-rsa K2 \n',
        proxy: { http_proxy: 'http://p:3128', https_proxy: 'http://u:50%@p:3128', no_proxy: 'a, b,,' },
        additional_ntp_sources: 'n1, n2',
        additional_trust_bundle: CA_PEM,
      }),
      {
        serviceCaCert: CA_PEM,
        agentTimeoutStartSeconds: 900,
        mirrorRegistries: { registriesConf: 'svc', caBundle: 'svc-ca' },
        infraEnvMirrorRegistries: { registriesConf: 'ie', insecurePolicy: true },
      },
    );
    expect(config.ignition.proxy).toEqual({
      httpProxy: 'http://p:3128',
      httpsProxy: 'http://u:50%@p:3128',
      noProxy: ['a', 'b'],
    });
    expect(config.passwd?.users).toEqual([
      {
        name: 'core',
        passwordHash: '!',
        sshAuthorizedKeys: ['ssh-ed25519 K1', 'ssh-rsa K2'],
        groups: ['sudo'],
      },
    ]);
    const agent = config.systemd?.units?.[0]?.contents ?? '';
    expect(agent).toContain(
      [
        'Environment=HTTP_PROXY=http://p:3128',
        'Environment=http_proxy=http://p:3128',
        'Environment=HTTPS_PROXY=http://u:50%%@p:3128',
        'Environment=https_proxy=http://u:50%%@p:3128',
        'Environment=NO_PROXY=a, b,,',
        'Environment=no_proxy=a, b,,',
      ].join('\n'),
    );
    expect(agent).toContain('TimeoutStartSec=900\n');
    expect(agent).toContain('--insecure=false --cacert /etc/assisted-service/service-ca-cert.crt\n');
    expect(unitNames(config)?.at(-1)).toBe('add-ntp-sources.service');
    expect(filePaths(config)?.slice(8)).toEqual([
      '/etc/assisted-service/service-ca-cert.crt',
      '/etc/pki/ca-trust/source/anchors/assisted-infraenv-additional-trust-bundle.pem',
      '/etc/containers/registries.conf',
      '/etc/pki/ca-trust/source/anchors/domain.crt',
      '/etc/containers/policy.json',
      '/etc/profile.d/proxy.sh',
      '/usr/local/bin/add-ntp-sources.sh',
    ]);
    expect(fileText(config, '/etc/containers/registries.conf')).toBe('ie');
    expect(fileText(config, '/etc/pki/ca-trust/source/anchors/domain.crt')).toBe('');
    const proxyFile = config.storage?.files?.find((f) => f.path === '/etc/profile.d/proxy.sh');
    expect(proxyFile?.mode).toBe(644);
    expect(proxyFile?.overwrite).toBeUndefined();
    expect(fileText(config, '/etc/profile.d/proxy.sh')).toBe(
      'export HTTP_PROXY="http://p:3128"\nexport http_proxy="http://p:3128"\n' +
        'export HTTPS_PROXY="http://u:50%@p:3128"\nexport https_proxy="http://u:50%@p:3128"\n' +
        'export NO_PROXY="a, b,,"\nexport no_proxy="a, b,,"\n',
    );
    const ntp = fileText(config, '/usr/local/bin/add-ntp-sources.sh') ?? '';
    expect(ntp).toContain(`grep -qxF 'server n1 iburst' "$conf" || echo 'server n1 iburst' >> "$conf"`);
    expect(ntp).toContain(`echo 'server n2 iburst'`);
    expect(ntp).toContain('makestep 1.0 -1');
    expect(fileText(config, '/etc/assisted-service/service-ca-cert.crt')).toBe(CA_PEM);
  });

  it('proxy block only with http(s) proxy; noProxy only when non-empty', () => {
    expect(build(minimalInfraEnv({ proxy: { no_proxy: 'x' } })).config.ignition.proxy).toBeUndefined();
    expect(build(minimalInfraEnv({ proxy: { https_proxy: 'http://s' } })).config.ignition.proxy).toEqual({
      httpsProxy: 'http://s',
    });
  });

  it('NTP replace mode rewrites chrony.conf', () => {
    const { config } = build(minimalInfraEnv({ ntp_sources: 'a.example.com,b.example.com' }));
    expect(fileText(config, '/usr/local/bin/add-ntp-sources.sh')).toBe(
      [
        '#!/usr/bin/sh',
        '# Use only the NTP sources configured for this infra-env.',
        "cat > /etc/chrony.conf <<'EOF'",
        'server a.example.com iburst',
        'server b.example.com iburst',
        'sourcedir /run/chrony-dhcp',
        'driftfile /var/lib/chrony/drift',
        'makestep 1.0 -1',
        'rtcsync',
        'logdir /var/log/chrony',
        'EOF',
        '',
      ].join('\n'),
    );
  });

  it('no token → no PULL_SECRET_TOKEN line', () => {
    const { config } = build(minimalInfraEnv(), { agentToken: undefined });
    expect(config.systemd?.units?.[0]?.contents).not.toContain('PULL_SECRET_TOKEN');
  });

  it('static networking: nmstatectl flavour from 4.18, layout per host', () => {
    const { config } = build(
      minimalInfraEnv({ openshift_version: '4.18.0', static_network_config: TWO_HOSTS }),
    );
    expect(unitNames(config)?.at(-1)).toBe('pre-network-manager-config.service');
    expect(config.systemd?.units?.at(-1)?.contents).toContain('Before=nmstate.service');
    const paths = filePaths(config) ?? [];
    expect(paths.slice(8)).toEqual([
      '/usr/local/bin/pre-network-manager-config.sh',
      '/usr/local/bin/common_network_script.sh',
      '/etc/assisted/network/host0/mac_interface.ini',
      '/etc/assisted/network/host0/ymlFile0.yml',
      '/etc/assisted/network/host1/mac_interface.ini',
      '/etc/assisted/network/host1/ymlFile1.yml',
    ]);
    const modes = config.storage?.files?.slice(10).map((f) => f.mode);
    expect(modes).toEqual([384, 384, 384, 384]);
    // Sorted by YAML: HOST_A_YAML ("dns-resolver…") < HOST_B_YAML ("interfaces…").
    expect(fileText(config, '/etc/assisted/network/host0/mac_interface.ini')).toBe('52:54:00:00:00:a1=eth0');
    expect(fileText(config, '/etc/assisted/network/host1/mac_interface.ini')).toBe(
      '52:54:00:00:00:b1=nic1\n52:54:00:00:00:b2=nic2',
    );
    expect(fileText(config, '/etc/assisted/network/host1/ymlFile1.yml')).toContain(
      'capture:\n  iface0: interfaces.mac-address == "52:54:00:00:00:B1"\n  iface1: interfaces.mac-address == "52:54:00:00:00:B2"\ndesiredState:\n',
    );
  });

  it('static networking: keyfile flavour below 4.18 needs a generator', () => {
    const result = buildDiscoveryIgnition(
      minimalInfraEnv({ openshift_version: '4.17', static_network_config: TWO_HOSTS }),
      BASE_OPTIONS,
    );
    expect(result).toEqual({
      ok: false,
      error: 'static network keyfiles need an nmstate keyfile generator (OCP < 4.18)',
    });
  });

  it('static networking: files generated by the caller are embedded as given, not generated again', () => {
    const ie = minimalInfraEnv({ openshift_version: '4.18.0', static_network_config: TWO_HOSTS });
    const sorted = sortStaticNetworkConfig(TWO_HOSTS);
    const generated = generateStaticNetworkFiles(sorted, chooseStaticNetworkFlavour(sorted, '4.18.0'));
    const staticNetwork = { flavour: 'nmstatectl' as const, files: generated.files ?? [] };
    expect(build(ie, { staticNetwork }).json).toBe(build(ie).json);
    // What is given is what is embedded: the flavour's scripts and unit, the files as they are.
    const given = {
      flavour: 'keyfile' as const,
      files: [{ path: 'host0/eth0.nmconnection', contents: '[connection]\nid=given\n' }],
    };
    const { config } = build(ie, { staticNetwork: given });
    expect(fileText(config, '/etc/assisted/network/host0/eth0.nmconnection')).toBe(
      '[connection]\nid=given\n',
    );
    expect(filePaths(config)).not.toContain('/etc/assisted/network/host0/ymlFile0.yml');
    expect(config.systemd?.units?.at(-1)?.contents).toContain('Before=NetworkManager.service');
    // Still only for full ISOs with a static network config.
    expect(build(ie, { staticNetwork: given, imageType: 'minimal-iso' }).json).toBe(
      build(ie, { imageType: 'minimal-iso' }).json,
    );
    expect(build(minimalInfraEnv(), { staticNetwork: given }).json).toBe(build(minimalInfraEnv()).json);
  });

  it('static networking is left out of minimal ISOs', () => {
    const ie = minimalInfraEnv({
      openshift_version: '4.18',
      static_network_config: TWO_HOSTS,
      type: 'minimal-iso',
    });
    expect(filePaths(build(ie).config)).toHaveLength(8);
    expect(filePaths(build(ie, { imageType: 'full-iso' }).config)).toHaveLength(14);
  });

  it('internal override disables agent.service and merges first; user override last', () => {
    const internal = JSON.stringify({
      ignition: { version: '3.1.0' },
      storage: { files: [{ path: '/etc/motd', contents: { source: 'data:,internal' } }] },
    });
    const user = JSON.stringify({
      ignition: { version: '3.2.0' },
      storage: { files: [{ path: '/etc/motd', mode: 384 }] },
      systemd: { units: [{ name: 'agent.service', enabled: true }] },
    });
    const { config } = build(
      minimalInfraEnv({ internal_ignition_config_override: internal, ignition_config_override: user }),
    );
    expect(config.ignition.version).toBe('3.2.0');
    const motd = config.storage?.files?.find((f) => f.path === '/etc/motd');
    expect(motd?.contents?.source).toBe('data:,internal');
    expect(motd?.mode).toBe(384);
    expect(config.systemd?.units?.[0]?.enabled).toBe(true);
    const templateOnly = renderDiscoveryTemplate(minimalInfraEnv(), BASE_OPTIONS, false);
    expect(templateOnly.ok && templateOnly.value.systemd?.units?.[0]?.enabled).toBe(false);
    const internalOnly = build(minimalInfraEnv({ internal_ignition_config_override: internal }));
    expect(internalOnly.config.systemd?.units?.[0]?.enabled).toBe(false);
    expect(internalOnly.config.ignition.version).toBe('3.1.0');
  });

  it('converged flow: ironic agent added, agent.service disabled, version 3.2.0', () => {
    const { config } = build(minimalInfraEnv({ cpu_architecture: 'arm64' }), {
      ironicAgent: { ironicBaseUrl: 'https://10.0.0.3,https://[fd00::3]' },
    });
    expect(config.ignition.version).toBe('3.2.0');
    expect(config.systemd?.units?.[0]).toMatchObject({ name: 'agent.service', enabled: false });
    expect(unitNames(config)?.at(-1)).toBe('ironic-agent.service');
    expect(config.systemd?.units?.at(-1)?.contents).toContain(
      '--tls-verify=false --name ironic-agent quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:cb0edf19',
    );
    expect(fileText(config, '/etc/ironic-python-agent.conf')).toContain(
      'api_url = https://10.0.0.3:6385,https://[fd00::3]:6385\n' +
        'inspection_callback_url = https://10.0.0.3:5050/v1/continue,https://[fd00::3]:5050/v1/continue\n',
    );
  });

  it('user override errors and the 256 KiB archive limit', () => {
    const bad = buildDiscoveryIgnition(
      minimalInfraEnv({ ignition_config_override: '{"ignition":{"version":"3.3.0"}}' }),
      BASE_OPTIONS,
    );
    expect(bad).toEqual({ ok: false, error: 'error parsing ignition: unsupported config version' });
    const badInternal = buildDiscoveryIgnition(
      minimalInfraEnv({ internal_ignition_config_override: '{' }),
      BASE_OPTIONS,
    );
    expect(badInternal.ok || badInternal.error).toBe('error parsing ignition: config is not valid');
    // Random bytes do not compress: ~400 KiB of base64 guarantees an archive over the limit.
    let seed = 1;
    const noise = Buffer.alloc(300 * 1024).map(() => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed >> 16;
    });
    const big = JSON.stringify({
      ignition: { version: '3.1.0' },
      storage: {
        files: [
          { path: '/big', contents: { source: `data:;base64,${Buffer.from(noise).toString('base64')}` } },
        ],
      },
    });
    const tooBig = buildDiscoveryIgnition(minimalInfraEnv({ ignition_config_override: big }), BASE_OPTIONS);
    expect(tooBig.ok).toBe(false);
    expect(tooBig.ok || tooBig.error).toMatch(
      /^The ignition archive size \((\d+) KiB\) is over the maximum allowable size \(256 KiB\)$/,
    );
    // Without a user override the size is not checked.
    const internalBig = buildDiscoveryIgnition(
      minimalInfraEnv({ internal_ignition_config_override: big }),
      BASE_OPTIONS,
    );
    expect(internalBig.ok).toBe(true);
  });
});
