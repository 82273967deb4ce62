// An infra-env as an image request needs it: the InfraEnv with its image inputs (or the error to
// answer), and what is built from them per request — the ignition, the minimal ISO / PXE ramdisk,
// the Last-Modified time. Shared by the REST backend, the iPXE script and the image routes.

import type { InfraEnv } from '../../api/index.ts';
import type { OperatorContext } from '../../records/context.ts';
import { discoveryIgnition, minimalInitrd } from '../../records/infraenvs/discovery.ts';
import { gatherImageInputs, type ImageInputs, type ImageType } from '../../records/infraenvs/inputs.ts';
import type { ImageServices } from '../../records/infraenvs/services.ts';
import { serviceConfigOf } from '../../records/serviceconfig/service-config.ts';
import { fail, type Outcome, ok } from '../api/backend.ts';

export interface LoadedInfraEnv {
  infraEnv: InfraEnv;
  inputs: ImageInputs;
}

/**
 * The InfraEnv of an infra-env id with its image inputs, or the error to answer: 404 unknown,
 * 503 while the service configuration is loading or for transient problems, 409 when the
 * InfraEnv's spec cannot produce an image (its ImageCreated condition says why).
 */
export async function loadInfraEnv(
  ctx: OperatorContext,
  infraEnvId: string,
): Promise<Outcome<LoadedInfraEnv>> {
  const infraEnv = ctx.infraEnvById(infraEnvId);
  if (!infraEnv || infraEnv.metadata.deletionTimestamp) return fail(404, `infra-env ${infraEnvId} not found`);
  const config = serviceConfigOf(ctx).current;
  if (!config.loaded) return fail(503, 'the service configuration is not loaded yet, try again later');
  const gathered = await gatherImageInputs(ctx, infraEnv, config);
  if (gathered.ok) return ok({ infraEnv, inputs: gathered.inputs });
  const { problem } = gathered;
  if (problem.kind === 'error' && !problem.clientError) return fail(503, problem.message);
  return fail(409, `infra-env ${infraEnvId} has no image: ${problem.message}`);
}

/** When the infra-env last changed what it serves (Last-Modified). */
export function lastModifiedOf(ie: InfraEnv): Date | undefined {
  const text = ie.status?.createdTime ?? ie.metadata.creationTimestamp;
  const t = text ? Date.parse(text) : Number.NaN;
  return Number.isNaN(t) ? undefined : new Date(t);
}

/** The ignition served for one image type, or the 409 it cannot be built with. */
export function ignitionFor(
  ctx: OperatorContext,
  services: ImageServices,
  loaded: LoadedInfraEnv,
  imageType?: ImageType,
): Outcome<string> {
  const built = discoveryIgnition(
    loaded.inputs,
    {
      serviceBaseUrl: ctx.urls.serviceBaseUrl,
      agentImage: ctx.settings.agentImage,
      agentToken: services.agentToken(loaded.infraEnv.metadata.uid ?? ''),
    },
    imageType,
  );
  return built.ok ? ok(built.value.json) : fail(409, built.error);
}

/** The minimal ISO / PXE ramdisk; undefined when there is nothing to add. */
export function ramdiskFor(loaded: LoadedInfraEnv): Outcome<Buffer | undefined> {
  const initrd = minimalInitrd(loaded.inputs.record);
  return 'error' in initrd ? fail(409, initrd.error) : ok(initrd.data);
}
