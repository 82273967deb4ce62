// The InfraEnv image cool-down (kubeapi.md §2.6, §3.10, §5 "Constants"): a host must not be
// booted from an image younger than 60 s, so that a burst of InfraEnv edits (NMStateConfigs
// arriving one by one) does not reboot BareMetalHosts once per edit. The BareMetalHost and
// PreprovisioningImage controllers wait with these helpers; the InfraEnv controller makes
// `status.createdTime` move only when the image content changes, which is what they measure.
import type { InfraEnv } from '../../api/index.ts';

export const INFRAENV_IMAGE_COOLDOWN_MS = 60_000;

/**
 * Milliseconds until the InfraEnv's image may be used: 0 when it is old enough, undefined when
 * there is no image yet (no `createdTime`).
 */
export function imageCoolDownRemainingMs(ie: InfraEnv, now: Date): number | undefined {
  const created = ie.status?.createdTime;
  if (!created) return undefined;
  const t = Date.parse(created);
  if (Number.isNaN(t)) return undefined;
  return Math.max(0, t + INFRAENV_IMAGE_COOLDOWN_MS - now.getTime());
}
