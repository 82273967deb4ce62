// Informers of the optional Metal3 kinds (BareMetalHost, PreprovisioningImage): read by the BMAC
// and PPI controllers, which must not import each other. Their lookups go through indexes, added
// the first time one is asked for (the informers exist only once an optional controller is wired):
// a mapper that walked a namespace's BMHs for every Agent or InfraEnv event was quadratic in a hub
// that keeps many clusters' hosts in one namespace.

import type { BareMetalHost, InfraEnv, PreprovisioningImage } from '../api/index.ts';
import { BMH_CREATE_FENCING_CREDENTIALS_SECRET_ANNOTATION, INFRAENV_LABEL } from '../api/index.ts';
import { type IndexFunc, type Informer, type KubeObject, keyOf } from '../runtime/index.ts';
import type { OperatorContext } from './context.ts';
import { BARE_METAL_HOST, PREPROVISIONING_IMAGE } from './resources.ts';
import { normalizeArch } from './serviceconfig/os-images.ts';

/** The BMH informer; only valid once the manager wired an optional controller over BMHs. */
export function bareMetalHosts(ctx: OperatorContext): Informer<BareMetalHost> {
  return ctx.mgr.informer<BareMetalHost>(BARE_METAL_HOST);
}

/** The PPI informer; same caveat as bareMetalHosts. */
export function preprovisioningImages(ctx: OperatorContext): Informer<PreprovisioningImage> {
  return ctx.mgr.informer<PreprovisioningImage>(PREPROVISIONING_IMAGE);
}

const BMH_BY_BOOT_MAC = 'bmh-by-boot-mac';
const BMH_BY_INFRAENV = 'bmh-by-infraenv';
const BMH_BY_FENCING_SECRET = 'bmh-by-fencing-secret';
const PPI_BY_INFRAENV = 'ppi-by-infraenv';

/** `ns/mac`, lower case: Agents report MACs in any case. */
const bmhByBootMac: IndexFunc<BareMetalHost> = (b) => {
  const mac = (b.spec?.bootMACAddress ?? '').toLowerCase();
  return mac ? [keyOf(b.metadata.namespace, mac)] : [];
};

/** `ns/infraenv`, lower case, as BMAC compares the label with the InfraEnv's name. */
const bmhByInfraEnv: IndexFunc<BareMetalHost> = (b) => {
  const name = (b.metadata.labels?.[INFRAENV_LABEL] ?? '').toLowerCase();
  return name ? [keyOf(b.metadata.namespace, name)] : [];
};

/** `ns/secret` of the BMC credentials, only for BMHs that generate fencing credentials from them. */
const bmhByFencingSecret: IndexFunc<BareMetalHost> = (b) => {
  const secret = b.spec?.bmc?.credentialsName;
  const fencing = b.metadata.annotations?.[BMH_CREATE_FENCING_CREDENTIALS_SECRET_ANNOTATION] !== undefined;
  return secret && fencing ? [keyOf(b.metadata.namespace, secret)] : [];
};

const ppiByInfraEnv: IndexFunc<PreprovisioningImage> = (p) => {
  const name = p.metadata.labels?.[INFRAENV_LABEL];
  return name ? [keyOf(p.metadata.namespace, name)] : [];
};

function indexed<T extends KubeObject>(
  informer: Informer<T>,
  name: string,
  fn: IndexFunc<T>,
  value: string,
): T[] {
  // The same function each time: a no-op once the index exists.
  informer.store.addIndex(name, fn);
  return informer.store.byIndex(name, value);
}

/** The BMHs of `namespace` booting from any of `macs`. */
export function bmhsBootingFrom(
  ctx: OperatorContext,
  namespace: string,
  macs: Iterable<string>,
): BareMetalHost[] {
  const informer = bareMetalHosts(ctx);
  const lowered = new Set([...macs].map((m) => m.toLowerCase()).filter(Boolean));
  return [...lowered].flatMap((mac) =>
    indexed(informer, BMH_BY_BOOT_MAC, bmhByBootMac, keyOf(namespace, mac)),
  );
}

/** The BMHs labelled with the InfraEnv (the label compared without case, as BMAC does). */
export function bmhsOfInfraEnv(ctx: OperatorContext, ie: InfraEnv): BareMetalHost[] {
  const value = keyOf(ie.metadata.namespace, (ie.metadata.name ?? '').toLowerCase());
  return indexed(bareMetalHosts(ctx), BMH_BY_INFRAENV, bmhByInfraEnv, value);
}

/** The BMHs of the Secret's namespace that generate fencing credentials from it (their BMC Secret). */
export function bmhsFencingWith(ctx: OperatorContext, secret: KubeObject): BareMetalHost[] {
  const value = keyOf(secret.metadata.namespace, secret.metadata.name ?? '');
  return indexed(bareMetalHosts(ctx), BMH_BY_FENCING_SECRET, bmhByFencingSecret, value);
}

/** The PreprovisioningImages labelled with the InfraEnv (from the PPI informer, by default). */
export function ppisOfInfraEnv(
  ctx: OperatorContext,
  ie: InfraEnv,
  informer: Informer<PreprovisioningImage> = preprovisioningImages(ctx),
): PreprovisioningImage[] {
  const value = keyOf(ie.metadata.namespace, ie.metadata.name ?? '');
  return indexed(informer, PPI_BY_INFRAENV, ppiByInfraEnv, value);
}

/** The preferred format a PPI accepts: iso over initrd; undefined if neither. */
export function ppiImageFormat(ppi: PreprovisioningImage): 'iso' | 'initrd' | undefined {
  const formats = ppi.spec?.acceptFormats ?? [];
  if (formats.includes('iso')) return 'iso';
  if (formats.includes('initrd')) return 'initrd';
  return undefined;
}

/**
 * Whether the PPI controller serves the InfraEnv's image to this PPI, and so marks the InfraEnv
 * for the ironic agent: a format it serves, and no architecture or the InfraEnv's.
 */
export function ppiServedFrom(ppi: PreprovisioningImage, ie: InfraEnv): boolean {
  const arch = ppi.spec?.architecture;
  return (
    ppiImageFormat(ppi) !== undefined &&
    (!arch || normalizeArch(arch) === normalizeArch(ie.spec.cpuArchitecture || 'x86_64'))
  );
}

/**
 * Converged flow: whether a PreprovisioningImage in the cache will have the PPI controller enable
 * the ironic agent on this InfraEnv (its next pass adds the annotation). The InfraEnv's image then
 * carries the agent from its first build, instead of being built before the annotation and again
 * after it. Reads only an informer that exists: the PPI controller's.
 */
export function ironicAgentAwaited(ctx: OperatorContext, ie: InfraEnv): boolean {
  if (!ctx.convergedFlow || ie.metadata.deletionTimestamp) return false;
  const informer = ctx.mgr.existingInformer<PreprovisioningImage>(PREPROVISIONING_IMAGE);
  if (!informer) return false;
  return ppisOfInfraEnv(ctx, ie, informer).some((p) => !p.metadata.deletionTimestamp && ppiServedFrom(p, ie));
}
