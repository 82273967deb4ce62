// Infra-env reads used by the image service and PXE (agent-api.md §2.4): the infra-env itself,
// its files (discovery.ign, ipxe-script, static-network-config) and the minimal-ISO initrd.
// Reached through signed URLs in InfraEnv status, or with the agent token as upstream allows.

import type { UrlKind } from '../../auth/types.ts';
import { type ApiRoute, defineRoute, fromOutcome } from './api-route.ts';
import {
  DISCOVERY_ISO_TYPES,
  INFRA_ENV_FILE_NAMES,
  type InfraEnvFileInput,
  IPXE_SCRIPT_TYPES,
} from './backend.ts';
import { infraEnvToWire } from './wire.ts';

const INFRA_ENV_PATH = '/v2/infra-envs/{infra_env_id}';
/** What the image service forwards when serving an ISO or PXE initrd (§9.2). */
const IMAGE_KINDS: readonly UrlKind[] = ['iso', 'pxe-initrd'];

const getInfraEnv = defineRoute({
  method: 'GET',
  path: INFRA_ENV_PATH,
  auth: { agent: true, url: [...IMAGE_KINDS, 'infra-env-files'] },
  async handle(ctx) {
    const outcome = await ctx.deps.backend.getInfraEnv(ctx.call, { infraEnvId: ctx.params.infra_env_id! });
    return fromOutcome(outcome, (infraEnv) => ({
      kind: 'json',
      status: 200,
      body: infraEnvToWire(infraEnv),
    }));
  },
});

type FileQuery = Omit<InfraEnvFileInput, 'infraEnvId'>;

const downloadInfraEnvFiles = defineRoute<FileQuery>({
  method: 'GET',
  path: `${INFRA_ENV_PATH}/downloads/files`,
  auth: { agent: true, url: ['infra-env-files', ...IMAGE_KINDS] },
  query: (q) => {
    const fileName = q.oneOf('file_name', INFRA_ENV_FILE_NAMES, true)!;
    const mac = q.mac('mac');
    const ipxeScriptType = q.oneOf('ipxe_script_type', IPXE_SCRIPT_TYPES);
    const discoveryIsoType = q.oneOf('discovery_iso_type', DISCOVERY_ISO_TYPES);
    if (ipxeScriptType !== undefined && fileName !== undefined && fileName !== 'ipxe-script') {
      q.fail('ipxe_script_type is only valid with file_name ipxe-script');
    }
    return {
      fileName,
      ...(mac !== undefined ? { mac } : {}),
      ...(ipxeScriptType !== undefined ? { ipxeScriptType } : {}),
      ...(discoveryIsoType !== undefined ? { discoveryIsoType } : {}),
    };
  },
  async handle(ctx) {
    const outcome = await ctx.deps.backend.downloadInfraEnvFile(ctx.call, {
      infraEnvId: ctx.params.infra_env_id!,
      ...ctx.query,
    });
    return fromOutcome(outcome, (file) => ({ kind: 'file', file }));
  },
});

const downloadMinimalInitrd = defineRoute({
  method: 'GET',
  path: `${INFRA_ENV_PATH}/downloads/minimal-initrd`,
  auth: { url: IMAGE_KINDS },
  async handle(ctx) {
    const outcome = await ctx.deps.backend.downloadMinimalInitrd(ctx.call, {
      infraEnvId: ctx.params.infra_env_id!,
    });
    // No static network config and no proxy: nothing to add to the image (204).
    return fromOutcome(outcome, (file) => (file ? { kind: 'file', file } : { kind: 'empty', status: 204 }));
  },
});

export const INFRA_ENV_ROUTES: readonly ApiRoute<unknown>[] = [
  getInfraEnv,
  downloadInfraEnvFiles,
  downloadMinimalInitrd,
];
