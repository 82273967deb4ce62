// Builders for the preparation, installation and failure steps (core.md §9.3).

import { installationPath } from '../hardware/installation-disk.ts';
import type { Host } from '../model.ts';
import { findHostAddressInCidr, hostAddresses } from '../network/host-networks.ts';
import { effectiveRole, hasSavePartitionsArgs } from '../statemachine/hostutil.ts';
import { fail, jsonArg, type StepBuilder, skip, stripPrefix } from './input.ts';
import { buildInstallCmdRequest } from './install-cmd.ts';

export const DEFAULT_DISK_CHECK_TIMEOUT_SECONDS = 480;
export const DEFAULT_IMAGE_AVAILABILITY_TIMEOUT_SECONDS = 960;
export const DEFAULT_HOST_FS_MOUNT_DIR = '/host';

export const diskSpeedCheckStep: StepBuilder = ({ host, options }) => {
  if (host.inventory?.boot?.device_type === 'persistent') return skip('host boots from a persistent disk');
  const bootDevice = installationPath(host);
  if (!bootDevice) return skip('no installation disk');
  if (host.disks_info?.[bootDevice]?.disk_speed?.tested) return skip('disk speed already measured');
  if (hasSavePartitionsArgs(host.installer_args)) return skip('installer keeps partitions');
  const timeout = options.diskCheckTimeoutSeconds ?? DEFAULT_DISK_CHECK_TIMEOUT_SECONDS;
  return { args: [JSON.stringify({ path: bootDevice }), timeout.toFixed(2)] };
};

/** Images the host must be able to pull before installing: release, MCO, "ocp" must-gather, installer. */
export function imagesToCheck({ cluster, options }: Parameters<StepBuilder>[0]): string[] {
  const images = [
    options.release?.releaseImage || cluster?.ocp_release_image,
    options.release?.mcoImage,
    options.release?.mustGatherImages?.ocp,
    options.installerImage,
  ];
  const out: string[] = [];
  for (const image of images) if (image && !out.includes(image)) out.push(image);
  return out;
}

export const containerImageAvailabilityStep: StepBuilder = (input) => {
  const pending = imagesToCheck(input).filter((image) => !input.host.images_status?.[image]);
  if (pending.length === 0) return skip('all images already checked');
  const timeout = input.options.imageAvailabilityTimeoutSeconds ?? DEFAULT_IMAGE_AVAILABILITY_TIMEOUT_SECONDS;
  return jsonArg({ images: pending, timeout });
};

export const installStep: StepBuilder = (input) => {
  const request = buildInstallCmdRequest(input);
  if ('error' in request) return fail(request.error);
  return jsonArg(request.request);
};

/** Never collected = no timestamp (or Go's zero time). */
export function logsNeverCollected(host: Host): boolean {
  return !host.logs_collected_at || host.logs_collected_at.startsWith('0001-01-01');
}

/** The other masters' IPs for the bootstrap's log gathering: machine-network IPs, or all IPs (UMN). */
export function otherMasterIps(
  host: Host,
  cluster: NonNullable<Parameters<StepBuilder>[0]['cluster']>,
): string[] {
  const ips: string[] = [];
  for (const other of cluster.hosts) {
    if (other.id === host.id || effectiveRole(other) !== 'master') continue;
    const found = cluster.user_managed_networking
      ? hostAddresses(other).map(stripPrefix)
      : cluster.machine_networks.flatMap((m) => {
          const address = findHostAddressInCidr(other, m.cidr);
          return address ? [address.ip] : [];
        });
    for (const ip of found) if (!ips.includes(ip)) ips.push(ip);
  }
  return ips;
}

export const logsGatherStep: StepBuilder = ({ host, cluster, infraEnv }) => {
  if (!logsNeverCollected(host)) return skip('logs already collected');
  if (!cluster) return fail('logs-gather needs the host cluster');
  const bootstrap = host.bootstrap === true;
  return jsonArg({
    cluster_id: cluster.id,
    host_id: host.id,
    infra_env_id: infraEnv.id,
    bootstrap,
    installer_gather: true,
    ...(bootstrap ? { master_ips: otherMasterIps(host, cluster) } : {}),
  });
};

export const stopInstallationStep: StepBuilder = () => ({ args: [] });

export const downloadBootArtifactsStep: StepBuilder = ({ options }) => {
  if (!options.bootArtifacts) return fail('boot artifact URLs are not available');
  return jsonArg({
    initrd_url: options.bootArtifacts.initrd_url,
    rootfs_url: options.bootArtifacts.rootfs_url,
    kernel_url: options.bootArtifacts.kernel_url,
    host_fs_mount_dir: options.hostFsMountDir ?? DEFAULT_HOST_FS_MOUNT_DIR,
  });
};

export const rebootForReclaimStep: StepBuilder = ({ options }) =>
  jsonArg({ host_fs_mount_dir: options.hostFsMountDir ?? DEFAULT_HOST_FS_MOUNT_DIR });
