// The infra-env part of the REST backend (agent-api.md §2.4): GET /v2/infra-envs/{id},
// …/downloads/files (discovery.ign, ipxe-script incl. boot-order-control, static-network-config)
// and …/downloads/minimal-initrd. Everything is built on request from the InfraEnv CR and what
// it references (src/records/infraenvs/inputs.ts, loaded.ts), so it always matches the image the
// InfraEnv status describes. The iPXE scripts are ipxe.ts's.
//
// deps: `{ auth }` — the LocalAuth the REST server authenticates with. It signs the agent token
// in the ignition and the api_key of URLs inside iPXE scripts. On the first request it is also
// handed to the InfraEnv controller (setAuth), in case mountImageRoutes has not done so.

import type { LocalAuth } from '../../auth/index.ts';
import type { OperatorContext } from '../../records/context.ts';
import { infraEnvToRecord } from '../../records/index.ts';
import { staticNetworkArchive, staticNetworkFiles } from '../../records/infraenvs/discovery.ts';
import { DEFAULT_IMAGE_TYPE } from '../../records/infraenvs/inputs.ts';
import { imageServicesOf } from '../../records/infraenvs/services.ts';
import { selectedNmStateConfigs } from '../../records/views.ts';
import type { CallContext, FileDownload, HostApiBackend, InfraEnvRecord, Outcome } from '../api/backend.ts';
import { fail, ok } from '../api/backend.ts';
import { ipxeFile } from './ipxe.ts';
import { ignitionFor, lastModifiedOf, loadInfraEnv, ramdiskFor } from './loaded.ts';

export interface InfraEnvBackendDeps {
  auth: LocalAuth;
}

export type InfraEnvBackend = Pick<
  HostApiBackend,
  'getInfraEnv' | 'downloadInfraEnvFile' | 'downloadMinimalInitrd'
>;

export function infraEnvBackend(ctx: OperatorContext, deps: InfraEnvBackendDeps): InfraEnvBackend {
  const services = imageServicesOf(ctx);
  const ready = () => {
    if (!services.auth) services.setAuth(deps.auth);
  };

  return {
    async getInfraEnv(_call: CallContext, input): Promise<Outcome<InfraEnvRecord>> {
      ready();
      const ie = ctx.infraEnvById(input.infraEnvId);
      if (!ie) return fail(404, `infra-env ${input.infraEnvId} not found`);
      const loaded = await loadInfraEnv(ctx, input.infraEnvId);
      // An InfraEnv whose image cannot be built is still readable.
      const record = loaded.ok
        ? loaded.value.inputs.record
        : infraEnvToRecord(ie, {
            nmStateConfigs: selectedNmStateConfigs(ctx, ie),
            defaultImageType: DEFAULT_IMAGE_TYPE,
          });
      const backend = ie.status?.backend;
      return ok({
        ...record,
        ...(ie.metadata.creationTimestamp
          ? { created_at: new Date(ie.metadata.creationTimestamp).toISOString() }
          : {}),
        ...(lastModifiedOf(ie) ? { updated_at: lastModifiedOf(ie)!.toISOString() } : {}),
        ...(ie.status?.isoDownloadURL ? { download_url: ie.status.isoDownloadURL } : {}),
        ...(backend?.tokenExpiresAt ? { expires_at: backend.tokenExpiresAt } : {}),
      });
    },

    async downloadInfraEnvFile(_call, input): Promise<Outcome<FileDownload>> {
      ready();
      const loaded = await loadInfraEnv(ctx, input.infraEnvId);
      if (!loaded.ok) return loaded;
      const lastModified = lastModifiedOf(loaded.value.infraEnv);
      const modified = lastModified ? { lastModified } : {};
      switch (input.fileName) {
        case 'discovery.ign': {
          const type = input.discoveryIsoType;
          const ignition = ignitionFor(
            ctx,
            services,
            loaded.value,
            type === 'minimal-iso' || type === 'full-iso' ? type : undefined,
          );
          if (!ignition.ok) return ignition;
          return ok({ content: ignition.value, fileName: 'discovery.ign', ...modified });
        }
        case 'ipxe-script':
          return ipxeFile(ctx, deps.auth, loaded.value, input);
        case 'static-network-config': {
          const network = staticNetworkFiles(loaded.value.inputs.record);
          if (network && 'error' in network) return fail(409, network.error);
          return ok({
            content: staticNetworkArchive(network?.files ?? []),
            fileName: 'static-network-config',
            ...modified,
          });
        }
      }
    },

    async downloadMinimalInitrd(_call, input): Promise<Outcome<FileDownload | null>> {
      ready();
      const loaded = await loadInfraEnv(ctx, input.infraEnvId);
      if (!loaded.ok) return loaded;
      const ramdisk = ramdiskFor(loaded.value);
      if (!ramdisk.ok) return ramdisk;
      if (!ramdisk.value) return ok(null);
      const lastModified = lastModifiedOf(loaded.value.infraEnv);
      return ok({
        content: ramdisk.value,
        fileName: 'initrd.img',
        ...(lastModified ? { lastModified } : {}),
      });
    },
  };
}
