// Informers of the optional Metal3 kinds (BareMetalHost, PreprovisioningImage): read by the BMAC
// and PPI controllers, which must not import each other.

import type { BareMetalHost, PreprovisioningImage } from '../api/index.ts';
import type { Informer } from '../runtime/index.ts';
import type { OperatorContext } from './context.ts';
import { BARE_METAL_HOST, PREPROVISIONING_IMAGE } from './resources.ts';

/** The BMH informer; only valid once the manager wired an optional controller over BMHs. */
export function bareMetalHosts(ctx: OperatorContext): Informer<BareMetalHost> {
  return ctx.mgr.informer<BareMetalHost>(BARE_METAL_HOST);
}

/** The PPI informer; same caveat as bareMetalHosts. */
export function preprovisioningImages(ctx: OperatorContext): Informer<PreprovisioningImage> {
  return ctx.mgr.informer<PreprovisioningImage>(PREPROVISIONING_IMAGE);
}
