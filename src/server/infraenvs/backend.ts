// The infra-env part of the REST backend (agent-api.md §2.4): GET /v2/infra-envs/{id},
// …/downloads/files (discovery.ign, ipxe-script incl. boot-order-control, static-network-config)
// and …/downloads/minimal-initrd. Everything is built on request from the InfraEnv CR and what
// it references (src/records/infraenvs/inputs.ts), so it always matches the image the InfraEnv status describes.
//
// deps: `{ auth }` — the LocalAuth the REST server authenticates with. It signs the agent token
// in the ignition and the api_key of URLs inside iPXE scripts. On the first request it is also
// handed to the InfraEnv controller (setAuth), in case mountImageRoutes has not done so.
import type { Agent, InfraEnv } from '../../api/index.ts';
import { INFRAENV_LABEL } from '../../api/index.ts';
import type { LocalAuth } from '../../auth/index.ts';
import { ipxeBootOrderControlScript, ipxeScript } from '../../images/pxe.ts';
import type { OperatorContext } from '../../records/context.ts';
import { infraEnvToRecord } from '../../records/index.ts';
import {
  discoveryIgnition,
  minimalInitrd,
  staticNetworkArchive,
  staticNetworkFiles,
} from '../../records/infraenvs/discovery.ts';
import {
  DEFAULT_IMAGE_TYPE,
  gatherImageInputs,
  type ImageInputs,
  type ImageType,
  selectedNmStateConfigs,
} from '../../records/infraenvs/inputs.ts';
import { type ImageServices, imageServicesOf } from '../../records/infraenvs/services.ts';
import { serviceConfigOf } from '../../records/serviceconfig/service-config.ts';
import type {
  CallContext,
  FileDownload,
  HostApiBackend,
  InfraEnvFileInput,
  InfraEnvRecord,
  Outcome,
} from '../api/backend.ts';
import { fail, ok } from '../api/backend.ts';

export interface InfraEnvBackendDeps {
  auth: LocalAuth;
}

export type InfraEnvBackend = Pick<
  HostApiBackend,
  'getInfraEnv' | 'downloadInfraEnvFile' | 'downloadMinimalInitrd'
>;

/** Installation stages after which a BootOrderControl host boots from disk (agent-api.md §9.6). */
const BOOT_FROM_DISK_STAGES = new Set(['Rebooting', 'Waiting for ignition', 'Configuring', 'Joined', 'Done']);

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

function appendKernelArguments(inputs: ImageInputs): string[] {
  return (inputs.record.kernel_arguments ?? []).filter((k) => k.operation === 'append').map((k) => k.value);
}

/** Whether an Agent no longer boots discovery (installed, or past the reboot). */
function bootsFromDisk(agent: Agent): boolean {
  const state = agent.status?.debugInfo?.state;
  if (state === 'installed') return true;
  return (
    state === 'installing-in-progress' &&
    BOOT_FROM_DISK_STAGES.has(agent.status?.progress?.currentStage ?? '')
  );
}

export function infraEnvBackend(ctx: OperatorContext, deps: InfraEnvBackendDeps): InfraEnvBackend {
  const services = imageServicesOf(ctx);
  const ready = () => {
    if (!services.auth) services.setAuth(deps.auth);
  };

  async function ipxe(loaded: LoadedInfraEnv, input: InfraEnvFileInput): Promise<Outcome<FileDownload>> {
    const { infraEnv, inputs } = loaded;
    const id = infraEnv.metadata.uid ?? '';
    const os = inputs.osImage;
    if (!os) return fail(409, 'the image service is disabled: there are no PXE artifacts');
    const lastModified = lastModifiedOf(infraEnv);
    const file = (content: string): Outcome<FileDownload> =>
      ok({ content, fileName: 'ipxe-script', ...(lastModified ? { lastModified } : {}) });
    if (input.ipxeScriptType === 'boot-order-control') {
      if (!input.mac) {
        const { token } = deps.auth.issueUrlToken('infra-env-files', { kind: 'infra-env', id });
        return file(
          ipxeBootOrderControlScript({
            serviceBaseUrl: ctx.urls.serviceBaseUrl,
            infraEnvId: id,
            apiKey: token,
          }),
        );
      }
      const mac = input.mac.toLowerCase();
      const hosts = ctx
        .agentsByMac(mac)
        .filter(
          (a) =>
            a.metadata.namespace === infraEnv.metadata.namespace &&
            a.metadata.labels?.[INFRAENV_LABEL] === infraEnv.metadata.name,
        );
      if (hosts.length > 1) return fail(500, `more than one host has MAC address ${mac}`);
      if (hosts[0] && bootsFromDisk(hosts[0])) {
        return fail(404, `host ${hosts[0].metadata.name} with MAC address ${mac} boots from its disk`);
      }
    }
    const { token } = deps.auth.issueUrlToken('pxe-initrd', { kind: 'infra-env', id });
    return file(
      ipxeScript({
        imageServiceBaseUrl: ctx.urls.imageServiceBaseUrl,
        infraEnvId: id,
        cpuArchitecture: os.cpuArchitecture,
        openshiftVersion: os.openshiftVersion,
        auth: { kind: 'api_key', token },
        kernelArguments: appendKernelArguments(inputs),
        insecureHttp: inputs.config.insecureIpxeUrls,
      }),
    );
  }

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
          return ipxe(loaded.value, input);
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
