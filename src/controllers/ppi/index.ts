// PreprovisioningImage controller (converged flow, kubeapi.md §3.7): gives each labelled PPI the
// discovery image of its InfraEnv (ISO, or kernel + initrd), after marking the InfraEnv so its
// image carries the ironic agent (ppi/ironic.ts), and mirrors the InfraEnv ImageCreated condition
// into the PPI Ready/Error conditions. Optional controller over the metal3 kinds; registered only
// in the converged flow (ctx.convergedFlow, decided once at start: src/operator/converged-flow.ts).
import type { BareMetalHost, InfraEnv, PreprovisioningImage } from '../../api/index.ts';
import {
  BMH_REBOOT_ANNOTATION,
  BMH_REBOOT_FORCE_VALUE,
  INFRAENV_ENABLE_IRONIC_AGENT_ANNOTATION,
  INFRAENV_LABEL,
  PREPROVISIONINGIMAGE_FINALIZER,
  VELERO_EXCLUDE_FROM_BACKUP_LABEL,
} from '../../api/index.ts';
import type { OperatorContext } from '../../records/context.ts';
import { iccSecretOf } from '../../records/hub/icc.ts';
import {
  boundClusterFamilies,
  ironicAgentEnabled,
  ironicAgentOptions,
  ironicSettingsOf,
} from '../../records/hub/ironic.ts';
import {
  bareMetalHosts,
  ppiServedFrom,
  ppisOfInfraEnv,
  preprovisioningImages,
} from '../../records/metal3.ts';
import { BARE_METAL_HOST, INFRA_ENV, PREPROVISIONING_IMAGE } from '../../records/resources.ts';
import { isNotFound, objectKey, removeFinalizer, updateStatus } from '../../runtime/index.ts';
import { ppiStatus } from './status.ts';

/** The owning BMH's name (ownerReference of kind BareMetalHost). */
function ownerBmhName(ppi: PreprovisioningImage): string | undefined {
  return ppi.metadata.ownerReferences?.find((r) => r.kind === 'BareMetalHost')?.name;
}

export function register(ctx: OperatorContext): void {
  if (!ctx.convergedFlow) return;
  const coolDownMs = ctx.settings.imageCoolDownMs;
  const log = ctx.logger.child({ controller: 'preprovisioningimage' });
  ctx.mgr
    .controller('preprovisioningimage')
    .for(PREPROVISIONING_IMAGE)
    .watches<InfraEnv>(INFRA_ENV, (ie) => ppisOfInfraEnv(ctx, ie).map((p) => objectKey(p)))
    .watches<BareMetalHost>(BARE_METAL_HOST, (b) => [objectKey(b)])
    .optional()
    .complete(async (req) => {
      const ppi = preprovisioningImages(ctx).get(req.namespace, req.name);
      if (!ppi) return;
      const ns = req.namespace ?? '';
      const bmhName = ownerBmhName(ppi);
      const bmh = bmhName ? bareMetalHosts(ctx).get(ns, bmhName) : undefined;
      const finalizers = ppi.metadata.finalizers ?? [];
      if (ppi.metadata.deletionTimestamp) {
        if (!finalizers.includes(PREPROVISIONINGIMAGE_FINALIZER)) return;
        // The image must stay while the BMO may still boot from it: until the BMH is going away.
        const state = bmh?.status?.provisioning?.state ?? '';
        const bmhGone = !bmh?.metadata.deletionTimestamp
          ? false
          : state === 'powering off before delete' || state === 'deleting';
        if (bmh && bmh.spec.automatedCleaningMode !== 'disabled' && !bmhGone) return { requeueAfter: 5_000 };
        await removeFinalizer(ctx.client, PREPROVISIONING_IMAGE, ppi, PREPROVISIONINGIMAGE_FINALIZER);
        return;
      }
      const ieName = ppi.metadata.labels?.[INFRAENV_LABEL];
      if (!ieName) return; // upstream caches only labelled PPIs
      const needsFinalizer = !finalizers.includes(PREPROVISIONINGIMAGE_FINALIZER);
      const needsLabel = ppi.metadata.labels?.[VELERO_EXCLUDE_FROM_BACKUP_LABEL] !== 'true';
      let current = ppi;
      if (needsFinalizer || needsLabel) {
        try {
          current = await ctx.client.patch<PreprovisioningImage>(
            PREPROVISIONING_IMAGE,
            req.name,
            ns,
            'merge',
            {
              metadata: {
                labels: { [VELERO_EXCLUDE_FROM_BACKUP_LABEL]: 'true' },
                finalizers: needsFinalizer ? [...finalizers, PREPROVISIONINGIMAGE_FINALIZER] : finalizers,
                resourceVersion: ppi.metadata.resourceVersion,
              },
            },
          );
        } catch (err) {
          if (isNotFound(err)) return;
          throw err;
        }
      }

      const found = ctx.informers.infraEnvs.get(ns, ieName);
      const infraEnv = found && !found.metadata.deletionTimestamp ? found : undefined;
      let ironicError: string | undefined;
      if (infraEnv && ppiServedFrom(current, infraEnv)) {
        const icc = await iccSecretOf(ctx).current();
        const opts = ironicAgentOptions(
          ironicSettingsOf(ctx, icc),
          infraEnv,
          boundClusterFamilies(ctx, infraEnv),
        );
        if (!opts.ok) ironicError = opts.error;
        else if (!ironicAgentEnabled(infraEnv)) {
          // The InfraEnv controller rebuilds the image when this annotation changes in its cache
          // (unless the image already has the agent: ironicAgentAwaited); the InfraEnv's update
          // event brings this PPI back.
          await ctx.client.patch(INFRA_ENV, ieName, ns, 'merge', {
            metadata: { annotations: { [INFRAENV_ENABLE_IRONIC_AGENT_ANNOTATION]: 'true' } },
          });
          return;
        }
      }
      const outcome = ppiStatus({ ppi: current, infraEnv, ironicError, now: ctx.now(), coolDownMs });
      if (outcome.imageSet && !bmhName) throw new Error('failed to find BMH owner for preprovisioningimage');
      const previousUrl = current.status?.imageUrl ?? '';
      const written = await updateStatus(
        ctx.client,
        PREPROVISIONING_IMAGE,
        current,
        (cur) => ppiStatus({ ppi: cur, infraEnv, ironicError, now: ctx.now(), coolDownMs }).status,
      );
      const newUrl = written.object.status?.imageUrl ?? '';
      if (written.written && previousUrl && newUrl && newUrl !== previousUrl && bmh) {
        if (bmh.status?.provisioning?.state !== 'provisioned') {
          log.info({ ppi: req.key }, 'image changed; rebooting the BareMetalHost');
          await ctx.client.patch(BARE_METAL_HOST, bmh.metadata.name ?? '', ns, 'merge', {
            metadata: { annotations: { [BMH_REBOOT_ANNOTATION]: BMH_REBOOT_FORCE_VALUE } },
          });
        }
      }
      return outcome.requeueAfterMs !== undefined ? { requeueAfter: outcome.requeueAfterMs } : undefined;
    });
}
