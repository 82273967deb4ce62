// GET /v2/infra-envs/{id}/downloads/files?file_name=ipxe-script (agent-api.md §9.6): the iPXE
// script that chain-loads the PXE artifacts with a signed `pxe-initrd` api_key, or with
// ipxe_script_type=boot-order-control the script that sends hosts past the reboot to their disk.

import type { Agent } from '../../api/index.ts';
import { INFRAENV_LABEL } from '../../api/index.ts';
import type { LocalAuth } from '../../auth/index.ts';
import { ipxeBootOrderControlScript, ipxeScript } from '../../images/pxe.ts';
import type { OperatorContext } from '../../records/context.ts';
import type { ImageInputs } from '../../records/infraenvs/inputs.ts';
import type { FileDownload, InfraEnvFileInput, Outcome } from '../api/backend.ts';
import { fail, ok } from '../api/backend.ts';
import { type LoadedInfraEnv, lastModifiedOf } from './loaded.ts';

/** Installation stages after which a BootOrderControl host boots from disk (agent-api.md §9.6). */
const BOOT_FROM_DISK_STAGES = new Set(['Rebooting', 'Waiting for ignition', 'Configuring', 'Joined', 'Done']);

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

/** The iPXE script of an infra-env, or for boot-order-control with a MAC, the host's answer. */
export function ipxeFile(
  ctx: OperatorContext,
  auth: LocalAuth,
  loaded: LoadedInfraEnv,
  input: InfraEnvFileInput,
): Outcome<FileDownload> {
  const { infraEnv, inputs } = loaded;
  const id = infraEnv.metadata.uid ?? '';
  const os = inputs.osImage;
  if (!os) return fail(409, 'the image service is disabled: there are no PXE artifacts');
  const lastModified = lastModifiedOf(infraEnv);
  const file = (content: string): Outcome<FileDownload> =>
    ok({ content, fileName: 'ipxe-script', ...(lastModified ? { lastModified } : {}) });
  if (input.ipxeScriptType === 'boot-order-control') {
    if (!input.mac) {
      const { token } = auth.issueUrlToken('infra-env-files', { kind: 'infra-env', id });
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
  const { token } = auth.issueUrlToken('pxe-initrd', { kind: 'infra-env', id });
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
