// What one infra-env's discovery media carry (agent-api.md §8, §9.5, §9.6), built from the
// gathered inputs: the discovery ignition (core buildDiscoveryIgnition), the minimal ISO / PXE
// ramdisk (`…/downloads/minimal-initrd`: static networking and the rootfs proxy for media that
// fetch the rootfs over the network) and the `static-network-config` archive.
import {
  buildDiscoveryIgnition,
  chooseStaticNetworkFlavour,
  type DiscoveryIgnition,
  type GeneratedStaticNetwork,
  generateStaticNetworkFiles,
  type IgnitionResult,
  type StaticNetworkFile,
  sortStaticNetworkConfig,
} from '../../core/ignition/index.ts';
import {
  COMMON_NETWORK_SCRIPT,
  COMMON_NETWORK_SCRIPT_PATH,
  PRE_NETWORK_SCRIPT_KEYFILES,
  PRE_NETWORK_SCRIPT_NMSTATECTL,
  PRE_NETWORK_SCRIPT_PATH,
  STATIC_NETWORK_DIR,
} from '../../core/ignition/static-network-scripts.ts';
import type { InfraEnv as InfraEnvRecord } from '../../core/model.ts';
import { type CpioEntry, MODE_DIRECTORY, MODE_REGULAR, MODE_SYMLINK, writeNewc } from '../../images/cpio.ts';
import { gzipDeterministic } from '../../images/embed.ts';
import type { ImageInputs, ImageType } from './inputs.ts';

export interface DiscoveryServiceSettings {
  serviceBaseUrl: string;
  agentImage: string;
  /** The infra-env's agent token (PULL_SECRET_TOKEN). */
  agentToken: string;
}

/**
 * The discovery ignition. `imageType` decides whether static networking is embedded (full ISO
 * only; minimal ISO and PXE carry it in the ramdisk); default: the infra-env's type.
 * `staticNetwork`: staticNetworkFiles(inputs.record) when the caller has computed it already, so
 * the files are not generated a second time.
 */
export function discoveryIgnition(
  inputs: ImageInputs,
  settings: DiscoveryServiceSettings,
  imageType: ImageType = inputs.imageType,
  staticNetwork?: GeneratedStaticNetwork,
): IgnitionResult<DiscoveryIgnition> {
  return buildDiscoveryIgnition(inputs.record, {
    serviceBaseUrl: settings.serviceBaseUrl,
    agentImage: settings.agentImage,
    agentToken: settings.agentToken,
    ...(inputs.infraEnvMirrors ? { infraEnvMirrorRegistries: inputs.infraEnvMirrors } : {}),
    ...(inputs.config.mirrorRegistries ? { mirrorRegistries: inputs.config.mirrorRegistries } : {}),
    imageType,
    ...(staticNetwork ? { staticNetwork } : {}),
  });
}

/** The static network files under /etc/assisted/network (core.md §8.3), or why not. */
export function staticNetworkFiles(
  record: InfraEnvRecord,
): GeneratedStaticNetwork | { error: string } | undefined {
  const configs = record.static_network_config ?? [];
  if (configs.length === 0) return undefined;
  const sorted = sortStaticNetworkConfig(configs);
  const flavour = chooseStaticNetworkFlavour(sorted, record.openshift_version);
  const generated = generateStaticNetworkFiles(sorted, flavour);
  if (generated.error) return { error: generated.error };
  return { files: generated.files ?? [], flavour };
}

/** Runs in the live initramfs: keyfiles go to the first-boot network directory CoreOS copies. */
const INITRD_PRE_NETWORK_SERVICE = `[Unit]
Description=Assisted static network configuration (initramfs)
DefaultDependencies=no
After=systemd-udev-settle.service
Before=coreos-livepxe-rootfs.service network-pre.target
Wants=network-pre.target
[Service]
Type=oneshot
TimeoutSec=60
Environment=ETC_NETWORK_MANAGER=/etc/coreos-firstboot-network
ExecStart=${PRE_NETWORK_SCRIPT_PATH}
[Install]
WantedBy=initrd.target
`;

const SYSTEMD_DIR = 'etc/systemd/system';

function proxyDropIn(record: InfraEnvRecord): string | undefined {
  const p = record.proxy;
  const lines: string[] = [];
  const add = (names: string[], value: string | undefined) => {
    if (!value) return;
    for (const n of names) lines.push(`Environment=${n}=${value.replaceAll('%', '%%')}`);
  };
  add(['HTTP_PROXY', 'http_proxy'], p?.http_proxy);
  add(['HTTPS_PROXY', 'https_proxy'], p?.https_proxy);
  if (lines.length === 0) return undefined;
  add(['NO_PROXY', 'no_proxy'], p?.no_proxy);
  return `[Service]\n${lines.join('\n')}\n`;
}

/** Directory entries for every parent of `paths` (the kernel does not create them on unpack). */
function parentDirectories(paths: readonly string[]): CpioEntry[] {
  const dirs = new Set<string>();
  for (const p of paths) {
    const parts = p.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  return [...dirs].sort().map((name) => ({ name, mode: MODE_DIRECTORY | 0o755, data: Buffer.alloc(0) }));
}

/**
 * `…/downloads/minimal-initrd`: a gzip'd newc cpio (not 4-byte padded, as upstream) with the
 * static network files, scripts and an initramfs unit, and/or a proxy drop-in for the rootfs
 * download; undefined (→ 204) when there is neither static networking nor a proxy.
 */
export function minimalInitrd(record: InfraEnvRecord): { data: Buffer | undefined } | { error: string } {
  const files: CpioEntry[] = [];
  const network = staticNetworkFiles(record);
  if (network && 'error' in network) return { error: network.error };
  const file = (name: string, mode: number, text: string): CpioEntry => ({
    name,
    mode: MODE_REGULAR | mode,
    data: Buffer.from(text, 'utf8'),
  });
  if (network) {
    for (const f of network.files)
      files.push(file(`${STATIC_NETWORK_DIR.slice(1)}/${f.path}`, 0o600, f.contents));
    const script =
      network.flavour === 'keyfile' ? PRE_NETWORK_SCRIPT_KEYFILES : PRE_NETWORK_SCRIPT_NMSTATECTL;
    files.push(file(PRE_NETWORK_SCRIPT_PATH.slice(1), 0o755, script));
    files.push(file(COMMON_NETWORK_SCRIPT_PATH.slice(1), 0o755, COMMON_NETWORK_SCRIPT));
    files.push(file(`${SYSTEMD_DIR}/pre-network-manager-config.service`, 0o644, INITRD_PRE_NETWORK_SERVICE));
    files.push({
      name: `${SYSTEMD_DIR}/initrd.target.wants/pre-network-manager-config.service`,
      mode: MODE_SYMLINK | 0o777,
      data: Buffer.from(`/${SYSTEMD_DIR}/pre-network-manager-config.service`),
    });
  }
  const proxy = proxyDropIn(record);
  if (proxy) files.push(file(`${SYSTEMD_DIR}/coreos-livepxe-rootfs.service.d/10-proxy.conf`, 0o644, proxy));
  if (files.length === 0) return { data: undefined };
  const entries = [...parentDirectories(files.map((f) => f.name)), ...files];
  return { data: gzipDeterministic(writeNewc(entries)) };
}

/** One ustar header block (names here are always shorter than 100 bytes). */
function tarHeader(name: string, mode: number, size: number): Buffer {
  const h = Buffer.alloc(512);
  const put = (text: string, offset: number, length: number) => {
    h.write(text.slice(0, length), offset, length, 'utf8');
  };
  const octal = (n: number, length: number) => n.toString(8).padStart(length - 1, '0');
  put(name, 0, 100);
  put(octal(mode, 8), 100, 8);
  put(octal(0, 8), 108, 8);
  put(octal(0, 8), 116, 8);
  put(octal(size, 12), 124, 12);
  put(octal(0, 12), 136, 12);
  h.fill(0x20, 148, 156); // checksum field counts as spaces while summing
  put('0', 156, 1);
  put('ustar\u000000', 257, 8);
  let sum = 0;
  for (const byte of h) sum += byte;
  put(`${octal(sum, 7)}\u0000 `, 148, 8);
  return h;
}

/**
 * `…/downloads/files?file_name=static-network-config`: an uncompressed tar whose entries are the
 * static network files at their absolute paths (`/etc/assisted/network/host0/…`, mode 0600).
 */
export function staticNetworkArchive(files: readonly StaticNetworkFile[]): Buffer {
  const blocks: Buffer[] = [];
  for (const f of files) {
    const data = Buffer.from(f.contents, 'utf8');
    blocks.push(tarHeader(`${STATIC_NETWORK_DIR}/${f.path}`, 0o600, data.length));
    blocks.push(data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}
