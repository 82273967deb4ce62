// The install step's single argument, `InstallCmdRequest` (core.md §9.3, agent-api.md §5.2).

import { disksToFormat, findDiskByPath, installationPath } from '../hardware/installation-disk.ts';
import type { Cluster } from '../model.ts';
import { effectiveRole, hasSavePartitionsArgs } from '../statemachine/hostutil.ts';
import { baseVersionAtLeast } from '../version.ts';
import { day2CoreosImage } from './day2.ts';
import { type StepInput, splitUnique } from './input.ts';
import { constructInstallerArgs } from './installer-args.ts';

export interface InstallCmdRequest {
  cluster_id: string;
  infra_env_id: string;
  host_id: string;
  role: string;
  boot_device: string;
  controller_image: string;
  installer_image: string;
  control_plane_count?: number;
  check_cvo: boolean;
  disks_to_format: string[];
  mco_image?: string;
  must_gather_image?: string;
  openshift_version?: string;
  installer_args?: string;
  skip_installation_disk_cleanup?: boolean;
  enable_skip_mco_reboot?: boolean;
  notify_num_reboots?: boolean;
  coreos_image?: string;
  proxy?: { http_proxy?: string; https_proxy?: string; no_proxy?: string };
  service_ips?: string[];
}

/** OCP from which the installer may skip the MCO reboot. */
export const MIN_VERSION_SKIP_MCO_REBOOT = '4.15';

/** no_proxy for the installer: the user's list plus what in-cluster traffic needs ("*" stays "*"). */
export function installerNoProxy(cluster: Cluster): string {
  const user = cluster.no_proxy ?? '';
  if (user.trim() === '*') return '*';
  return splitUnique(
    user,
    '127.0.0.1',
    'localhost',
    '.svc',
    '.cluster.local',
    `api-int.${cluster.name}.${cluster.base_dns_domain}`,
  ).join(',');
}

/** must_gather_image: the plain image when only "ocp" is known, else a JSON map (sorted keys). */
export function mustGatherImageArg(images: Record<string, string> | undefined): string | undefined {
  const keys = Object.keys(images ?? {}).sort();
  if (keys.length === 0 || !images) return undefined;
  if (keys.length === 1 && keys[0] === 'ocp') return images.ocp;
  return JSON.stringify(Object.fromEntries(keys.map((k) => [k, images[k]])));
}

export function buildInstallCmdRequest(input: StepInput): { request: InstallCmdRequest } | { error: string } {
  const { host, cluster, infraEnv, options } = input;
  if (!cluster) return { error: 'install needs the host cluster' };
  const bootDevice = installationPath(host);
  if (!bootDevice) return { error: `failed to get boot device for host ${host.id}` };
  const disk = findDiskByPath(host.inventory, bootDevice);
  const day2 = host.kind === 'AddToExistingClusterHost';

  const installerArgs = constructInstallerArgs(
    host,
    cluster,
    infraEnv,
    disk,
    options.staticNetworkConfigured ?? false,
  );
  if (installerArgs.error !== undefined) return { error: installerArgs.error };
  const savePartitions = hasSavePartitionsArgs(host.installer_args);
  let formatDisks = disksToFormat(host.inventory, host);
  if (savePartitions) formatDisks = formatDisks.filter((id) => id !== bootDevice && id !== disk?.id);

  const request: InstallCmdRequest = {
    cluster_id: cluster.id,
    infra_env_id: infraEnv.id,
    host_id: host.id,
    role: host.bootstrap ? 'bootstrap' : effectiveRole(host),
    boot_device: bootDevice,
    controller_image: options.controllerImage,
    installer_image: options.installerImage,
    control_plane_count: cluster.control_plane_count,
    check_cvo: options.checkCvo ?? true,
    disks_to_format: formatDisks,
  };
  if (!day2) {
    if (options.release?.mcoImage) request.mco_image = options.release.mcoImage;
    const mustGather = mustGatherImageArg(options.release?.mustGatherImages);
    if (mustGather) request.must_gather_image = mustGather;
    request.openshift_version = cluster.openshift_version;
  }
  if (installerArgs.args.length > 0) request.installer_args = JSON.stringify(installerArgs.args);
  if (savePartitions) request.skip_installation_disk_cleanup = true;
  const arch = cluster.cpu_architecture || host.inventory?.cpu?.architecture;
  if (
    options.enableSkipMcoReboot &&
    arch !== 's390x' &&
    baseVersionAtLeast(cluster.openshift_version, MIN_VERSION_SKIP_MCO_REBOOT) &&
    !(disk?.name ?? '').startsWith('dm-')
  ) {
    request.enable_skip_mco_reboot = true;
  }
  if (!options.kubeApiMode) request.notify_num_reboots = true;
  if (host.inventory?.boot?.device_type === 'persistent') {
    const coreos = options.release?.coreosImage || (day2 ? day2CoreosImage(host) : undefined);
    if (coreos) request.coreos_image = coreos;
  }
  if (cluster.http_proxy || cluster.https_proxy) {
    request.proxy = {
      http_proxy: cluster.http_proxy ?? '',
      https_proxy: cluster.https_proxy ?? '',
      no_proxy: installerNoProxy(cluster),
    };
  }
  if (options.serviceIps?.length) request.service_ips = [...options.serviceIps];
  return { request };
}
