import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { INFRAENV_TOKEN_GENERATION_ANNOTATION } from '../../../../src/api/index.ts';
import {
  bootArtifactUrl,
  infraEnvFileUrl,
  isoDownloadUrl,
  pxeInitrdUrl,
  withoutToken,
} from '../../../../src/controllers/infraenv/urls.ts';
import { MODE_DIRECTORY, MODE_SYMLINK, readNewc } from '../../../../src/images/cpio.ts';
import { infraEnvToRecord } from '../../../../src/records/index.ts';
import {
  discoveryIgnition,
  minimalInitrd,
  staticNetworkArchive,
  staticNetworkFiles,
} from '../../../../src/records/infraenvs/discovery.ts';
import {
  checkImageInputs,
  type ImageInputs,
  imageDigestOf,
} from '../../../../src/records/infraenvs/inputs.ts';
import {
  DISCOVERY_SETTINGS,
  INFRA_ENV_ID,
  infraEnv,
  nmStateConfig,
  OS_IMAGE_419,
  PULL_SECRET,
  SERVICE_CONFIG_419,
} from '../../records/fixtures.ts';

const OS = OS_IMAGE_419;
const CONFIG = SERVICE_CONFIG_419;
const SETTINGS = DISCOVERY_SETTINGS;

function inputs(
  spec: Parameters<typeof infraEnv>[0] = {},
  nm = [nmStateConfig('a', '52:54:00:00:00:01', '192.168.1.10')],
): ImageInputs {
  const ie = infraEnv(spec);
  const record = infraEnvToRecord(ie, {
    pullSecret: PULL_SECRET,
    nmStateConfigs: nm,
    defaultImageType: 'minimal-iso',
  });
  record.openshift_version = '4.19';
  return {
    infraEnv: ie,
    record,
    imageType: record.type as 'minimal-iso',
    osImage: OS,
    infraEnvMirrors: undefined,
    config: CONFIG,
  };
}

describe('checkImageInputs', () => {
  it('accepts a valid InfraEnv', () => {
    expect(checkImageInputs(inputs())).toBeUndefined();
  });

  it('reports an invalid ignition override with the upstream text', () => {
    expect(checkImageInputs(inputs({ ignitionConfigOverride: '{"ignition": "nope"' }))).toEqual({
      kind: 'error',
      clientError: true,
      message: 'error parsing ignition: config is not valid',
    });
  });

  it('reports static network configurations that nmstate would refuse', () => {
    const bad = nmStateConfig('b', '52:54:00:00:00:02', '192.168.1.11');
    (bad.spec.config as { interfaces: { name: string }[] }).interfaces[0]!.name = 'eth9';
    expect(checkImageInputs(inputs({}, [bad]))).toEqual({
      kind: 'error',
      clientError: true,
      message: 'mac-interface mapping for interface eth9 is missing and not a physical interface',
    });
  });
});

describe('imageDigestOf', () => {
  const service = { serviceBaseUrl: 'http://svc', imageServiceBaseUrl: 'http://img', agentImage: 'a' };
  it('ignores annotations and labels, follows everything in the image', () => {
    const base = imageDigestOf(inputs(), service);
    const annotated = inputs();
    annotated.infraEnv.metadata.annotations = { a: 'b' };
    expect(imageDigestOf(annotated, service)).toBe(base);
    expect(imageDigestOf(inputs({ sshAuthorizedKey: 'ssh-ed25519 AAA' }), service)).not.toBe(base);
    expect(imageDigestOf(inputs(), { ...service, agentImage: 'b' })).not.toBe(base);
    expect(imageDigestOf({ ...inputs(), osImage: { ...OS, url: 'http://y' } }, service)).not.toBe(base);
  });

  it('follows the token-generation annotation: revoking the tokens rebuilds the image', () => {
    const base = imageDigestOf(inputs(), service);
    const revoked = inputs();
    revoked.infraEnv.metadata.annotations = { [INFRAENV_TOKEN_GENERATION_ANNOTATION]: '1' };
    const once = imageDigestOf(revoked, service);
    expect(once).not.toBe(base);
    revoked.infraEnv.metadata.annotations = { [INFRAENV_TOKEN_GENERATION_ANNOTATION]: '2' };
    expect(imageDigestOf(revoked, service)).not.toBe(once);
  });
});

describe('discovery media', () => {
  it('embeds static networking in the ignition of full ISOs only', () => {
    const full = discoveryIgnition(inputs(), SETTINGS, 'full-iso');
    const minimal = discoveryIgnition(inputs(), SETTINGS, 'minimal-iso');
    if (!full.ok || !minimal.ok) throw new Error('ignition failed');
    expect(full.value.json).toContain('/etc/assisted/network/host0/mac_interface.ini');
    expect(minimal.value.json).not.toContain('/etc/assisted/network');
    expect(minimal.value.json).toContain(`--infra-env-id ${INFRA_ENV_ID}`);
    expect(minimal.value.json).toContain('PULL_SECRET_TOKEN=tok');
  });

  it('builds the minimal-initrd ramdisk: network files, scripts, unit and its symlink, parent directories', () => {
    const out = minimalInitrd(inputs().record);
    if ('error' in out || !out.data) throw new Error('no ramdisk');
    const entries = readNewc(gunzipSync(out.data));
    const names = entries.map((e) => e.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'etc',
        'etc/assisted/network/host0',
        'etc/assisted/network/host0/mac_interface.ini',
        'usr/local/bin/pre-network-manager-config.sh',
        'usr/local/bin/common_network_script.sh',
        'etc/systemd/system/pre-network-manager-config.service',
        'etc/systemd/system/initrd.target.wants/pre-network-manager-config.service',
      ]),
    );
    // Parents come before their files.
    expect(names.indexOf('etc/assisted/network')).toBeLessThan(
      names.indexOf('etc/assisted/network/host0/mac_interface.ini'),
    );
    const ini = entries.find((e) => e.name.endsWith('mac_interface.ini'))!;
    expect(ini.mode & 0o777).toBe(0o600);
    expect(ini.data.toString()).toBe('52:54:00:00:00:01=eth0');
    expect(entries.find((e) => e.name === 'etc')!.mode & 0o170000).toBe(MODE_DIRECTORY);
    const link = entries.find((e) =>
      e.name.endsWith('initrd.target.wants/pre-network-manager-config.service'),
    )!;
    expect(link.mode & 0o170000).toBe(MODE_SYMLINK);
    expect(link.data.toString()).toBe('/etc/systemd/system/pre-network-manager-config.service');
  });

  it('adds a rootfs proxy drop-in, and is empty without network or proxy (→ 204)', () => {
    expect(minimalInitrd(inputs({}, []).record)).toEqual({ data: undefined });
    const out = minimalInitrd(
      inputs({ proxy: { httpProxy: 'http://p:3128', noProxy: '.local' } }, []).record,
    );
    if ('error' in out || !out.data) throw new Error('no ramdisk');
    const dropIn = readNewc(gunzipSync(out.data)).find((e) => e.name.endsWith('10-proxy.conf'));
    expect(dropIn?.name).toBe('etc/systemd/system/coreos-livepxe-rootfs.service.d/10-proxy.conf');
    expect(dropIn?.data.toString()).toBe(
      '[Service]\nEnvironment=HTTP_PROXY=http://p:3128\nEnvironment=http_proxy=http://p:3128\nEnvironment=NO_PROXY=.local\nEnvironment=no_proxy=.local\n',
    );
  });

  it('archives the static network files as a tar at their absolute paths', () => {
    const files = staticNetworkFiles(inputs().record);
    if (!files || 'error' in files) throw new Error('no files');
    const tar = staticNetworkArchive(files.files);
    expect(tar.length % 512).toBe(0);
    expect(tar.subarray(0, 100).toString().replace(/\0+$/, '')).toBe(
      '/etc/assisted/network/host0/mac_interface.ini',
    );
    expect(tar.subarray(257, 263).toString()).toBe('ustar\0');
    // Header checksum: sum of the header bytes with the checksum field read as spaces.
    const header = Buffer.from(tar.subarray(0, 512));
    const stored = Number.parseInt(header.subarray(148, 154).toString(), 8);
    header.fill(0x20, 148, 156);
    expect(stored).toBe(header.reduce((a, b) => a + b, 0));
    expect(tar.toString()).toContain('ip: 192.168.1.10');
  });
});

describe('status URL formats', () => {
  it('builds the ISO, boot artifact, initrd and file URLs of kubeapi.md §3.11', () => {
    const iso = isoDownloadUrl('https://img.example.com/prefix/', {
      token: 'a.b.c',
      openshiftVersion: '4.19',
      cpuArchitecture: 'x86_64',
      imageType: 'full-iso',
    });
    expect(iso).toBe('https://img.example.com/prefix/byapikey/a.b.c/4.19/x86_64/full.iso');
    expect(
      bootArtifactUrl('https://img', 'rootfs', {
        openshiftVersion: '4.19',
        cpuArchitecture: 'arm64',
        insecureHttp: true,
      }),
    ).toBe('http://img/boot-artifacts/rootfs?arch=arm64&version=4.19');
    expect(
      pxeInitrdUrl('https://img', {
        infraEnvId: 'id',
        token: 't',
        openshiftVersion: '4.19',
        cpuArchitecture: 'x86_64',
      }),
    ).toBe('https://img/images/id/pxe-initrd?api_key=t&arch=x86_64&version=4.19');
    expect(
      infraEnvFileUrl('https://svc/', {
        infraEnvId: 'id',
        fileName: 'ipxe-script',
        token: 't',
        extra: { ipxe_script_type: 'boot-order-control' },
      }),
    ).toBe(
      'https://svc/api/assisted-install/v2/infra-envs/id/downloads/files?api_key=t&file_name=ipxe-script&ipxe_script_type=boot-order-control',
    );
    expect(withoutToken(iso)).toBe(withoutToken(iso.replace('a.b.c', 'x.y.z')));
    expect(withoutToken('https://svc/x?api_key=1&b=2')).toBe(withoutToken('https://svc/x?b=2&api_key=3'));
  });
});
