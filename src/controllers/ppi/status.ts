// The PreprovisioningImage status the converged flow writes (kubeapi.md §2.6, §3.7): pure, from
// the PPI, its InfraEnv and the clock. Every non-success outcome clears the image fields; the
// success outcome copies the InfraEnv ImageCreated condition into Ready/Error.
import type { InfraEnv, MetaV1Condition, PreprovisioningImage } from '../../api/index.ts';
import { IMAGE_CREATED_CONDITION } from '../../records/index.ts';
import { ppiImageFormat } from '../../records/metal3.ts';
import { normalizeArch } from '../../records/serviceconfig/os-images.ts';
import { setCondition } from '../../runtime/index.ts';

type PpiStatus = NonNullable<PreprovisioningImage['status']>;

export interface PpiOutcome {
  status: PpiStatus;
  /** Cool-down remainder. */
  requeueAfterMs?: number;
  /** Success path: the image fields were set. */
  imageSet: boolean;
}

export interface PpiStatusInput {
  ppi: PreprovisioningImage;
  /** The labelled InfraEnv if it exists and is not being deleted. */
  infraEnv: InfraEnv | undefined;
  /** Adding the ironic agent failed (e.g. no ironic URL). */
  ironicError?: string | undefined;
  now: Date;
  coolDownMs: number;
}

function withConditions(
  ppi: PreprovisioningImage,
  base: PpiStatus,
  ready: { status: 'True' | 'False'; reason: string; message: string },
  error: boolean,
  now: Date,
): PpiStatus {
  const generation = ppi.metadata.generation;
  const common = {
    reason: ready.reason,
    message: ready.message,
    ...(generation ? { observedGeneration: generation } : {}),
  };
  let conditions = setCondition<MetaV1Condition>(
    ppi.status?.conditions,
    { type: 'Ready', status: ready.status, ...common },
    now,
  );
  conditions = setCondition<MetaV1Condition>(
    conditions,
    { type: 'Error', status: error ? 'True' : 'False', ...common },
    now,
  );
  return { ...base, conditions };
}

/** Status with the image fields cleared and the given Ready=False/Error condition pair. */
function failure(input: PpiStatusInput, reason: string, message: string, error: boolean): PpiStatus {
  const {
    imageUrl: _i,
    kernelUrl: _k,
    extraKernelParams: _e,
    format: _f,
    architecture: _a,
    ...rest
  } = input.ppi.status ?? {};
  return withConditions(input.ppi, rest, { status: 'False', reason, message }, error, input.now);
}

export function ppiStatus(input: PpiStatusInput): PpiOutcome {
  const { ppi, infraEnv } = input;
  const fail = (reason: string, message: string, error: boolean): PpiOutcome => ({
    status: failure(input, reason, message, error),
    imageSet: false,
  });
  const format = ppiImageFormat(ppi);
  if (!format) return fail('UnsupportedImageFormat', 'Unsupported image format', true);
  if (!infraEnv) {
    const label = ppi.metadata.labels?.['infraenvs.agent-install.openshift.io'] ?? '';
    return fail(
      'InfraEnvNotAvailable',
      `InfraEnv ${label}/${ppi.metadata.namespace} is not found or is being deleted`,
      false,
    );
  }
  const ieArch = infraEnv.spec.cpuArchitecture || 'x86_64';
  const ppiArch = ppi.spec?.architecture;
  if (ppiArch && normalizeArch(ppiArch) !== normalizeArch(ieArch)) {
    return fail(
      'InfraEnvArchMismatch',
      `PreprovisioningImage CPU architecture (${ppiArch}) does not match InfraEnv CPU architecture (${ieArch})`,
      true,
    );
  }
  if (input.ironicError) {
    return fail(
      'IronicAgentIgnitionUpdateFailure',
      `Could not add ironic agent to image: ${input.ironicError}`,
      true,
    );
  }
  const created = infraEnv.status?.createdTime;
  if (!created)
    return fail('WaitingForInfraEnvImageToBeCreated', 'Waiting for InfraEnv image to be created', false);
  const remaining = Date.parse(created) + input.coolDownMs - input.now.getTime();
  if (remaining > 0) {
    return {
      ...fail('WaitingForInfraEnvImageToCoolDown', 'Waiting for InfraEnv image to cool down', false),
      requeueAfterMs: remaining,
    };
  }
  const ie = infraEnv.status;
  const base: PpiStatus = { ...(ppi.status ?? {}), architecture: ieArch, format };
  if (format === 'iso') {
    base.imageUrl = ie?.isoDownloadURL ?? '';
    delete base.kernelUrl;
    delete base.extraKernelParams;
  } else {
    const artifacts = ie?.bootArtifacts;
    base.imageUrl = artifacts?.initrd ?? '';
    base.kernelUrl = artifacts?.kernel ?? '';
    const appended = (infraEnv.spec.kernelArguments ?? [])
      .filter((k) => (k.operation ?? 'append') === 'append' && k.value)
      .map((k) => k.value);
    base.extraKernelParams = [
      `coreos.live.rootfs_url=${artifacts?.rootfs ?? ''}`,
      'rd.bootif=0',
      ...appended,
    ].join(' ');
  }
  const imageCreated = (ie?.conditions ?? []).find((c) => c.type === IMAGE_CREATED_CONDITION);
  const status = withConditions(
    ppi,
    base,
    {
      status: imageCreated?.status === 'True' ? 'True' : 'False',
      reason: imageCreated?.reason || 'WaitingForInfraEnvImageToBeCreated',
      message: imageCreated?.message || 'Waiting for InfraEnv image to be created',
    },
    imageCreated?.reason === 'ImageCreationError',
    input.now,
  );
  return { status, imageSet: true };
}
