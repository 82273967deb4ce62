// Platform + user-managed networking (UMN) resolution and the single-node rules (core.md §6.1).

import type { PlatformType } from '../model.ts';
import { baseVersionAtLeast } from '../version.ts';

export interface PlatformRequest {
  control_plane_count: number;
  platform?: PlatformType;
  user_managed_networking?: boolean;
  cpu_architecture?: string;
}

export type PlatformResolution =
  | { platform: PlatformType; user_managed_networking: boolean; error?: undefined }
  | { error: string; platform?: undefined; user_managed_networking?: undefined };

const UMN_ARCHITECTURES = new Set(['s390x', 'ppc64le']);

function umnWord(umn: boolean): string {
  return umn ? 'enabled' : 'disabled';
}

/** Whether a platform accepts the UMN value: none/external need it, baremetal/nutanix forbid it. */
export function platformUmnError(platform: PlatformType, umn: boolean): string | undefined {
  const ok =
    platform === 'none' || platform === 'external'
      ? umn
      : platform === 'baremetal' || platform === 'nutanix'
        ? !umn
        : true;
  return ok ? undefined : `Can't set ${platform} platform with user-managed-networking ${umnWord(umn)}`;
}

/** Registration-time platform/UMN defaults and compatibility. */
export function resolvePlatform(req: PlatformRequest): PlatformResolution {
  const { platform, user_managed_networking: umn } = req;
  if (req.control_plane_count === 1) {
    if (platform === 'baremetal') return { error: "Can't set baremetal platform on single node OpenShift" };
    if (umn === false) return { error: "Can't disable user-managed-networking on single node OpenShift" };
    if (platform === 'vsphere' || platform === 'nutanix') {
      return { error: `Single node cluster is not supported alongside ${platform} platform` };
    }
    return { platform: platform ?? 'none', user_managed_networking: true };
  }
  if (req.cpu_architecture && UMN_ARCHITECTURES.has(req.cpu_architecture)) {
    // s390x / ppc64le: UMN with platform none or external only; default none.
    const p = platform ?? 'none';
    if (p !== 'none' && p !== 'external')
      return { error: platformUmnError(p, true) ?? `Can't set ${p} platform on ${req.cpu_architecture}` };
    if (umn === false) return { error: `Can't set ${p} platform with user-managed-networking disabled` };
    return { platform: p, user_managed_networking: true };
  }
  let resolved: { platform: PlatformType; user_managed_networking: boolean };
  if (platform === 'vsphere' || platform === 'nutanix') {
    resolved = { platform, user_managed_networking: umn ?? false };
  } else if ((platform === undefined || platform === 'baremetal') && umn !== true) {
    resolved = { platform: 'baremetal', user_managed_networking: false };
  } else {
    resolved = { platform: platform ?? 'none', user_managed_networking: umn ?? true };
  }
  const error = platformUmnError(resolved.platform, resolved.user_managed_networking);
  return error ? { error } : resolved;
}

/**
 * Update-time: switching baremetal ↔ none toggles UMN when UMN is not given; an SNO cluster cannot
 * leave none / external (oci).
 */
export function resolvePlatformUpdate(
  current: { platform: PlatformType; user_managed_networking: boolean; control_plane_count: number },
  update: { platform?: PlatformType; user_managed_networking?: boolean },
): PlatformResolution {
  const platform = update.platform ?? current.platform;
  let umn = update.user_managed_networking;
  if (umn === undefined) {
    if (update.platform === 'baremetal') umn = false;
    else if (update.platform === 'none' || update.platform === 'external') umn = true;
    else umn = current.user_managed_networking;
  }
  if (current.control_plane_count === 1) {
    return resolvePlatform({ control_plane_count: 1, platform, user_managed_networking: umn });
  }
  const error = platformUmnError(platform, umn);
  return error ? { error } : { platform, user_managed_networking: umn };
}

export interface SingleNodeRequest {
  openshift_version: string;
  vip_dhcp_allocation?: boolean;
  network_type?: string;
  user_managed_networking?: boolean;
  platform?: PlatformType;
}

/** Extra single-node rules, first failure wins. */
export function validateSingleNode(req: SingleNodeRequest): string | undefined {
  if (!baseVersionAtLeast(req.openshift_version, '4.8')) {
    return `Single node OpenShift is not supported for OpenShift ${req.openshift_version}`;
  }
  if (req.vip_dhcp_allocation) return 'VIP DHCP Allocation cannot be enabled on single node OpenShift';
  if (req.network_type === 'OpenShiftSDN')
    return 'OpenShiftSDN network type is not allowed in single node mode';
  if (req.user_managed_networking === false)
    return 'User Managed Networking must be enabled on single node OpenShift';
  if (req.platform && req.platform !== 'none' && req.platform !== 'external') {
    return `Single node cluster is not supported alongside ${req.platform} platform`;
  }
  return undefined;
}
