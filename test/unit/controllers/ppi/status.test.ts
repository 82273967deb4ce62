// PreprovisioningImage status (kubeapi.md §2.6): every outcome's Ready/Error reason and message,
// cleared image fields on failure, ISO and initrd success shapes.
import { describe, expect, it } from 'vitest';
import type { InfraEnv, PreprovisioningImage } from '../../../../src/api/index.ts';
import { ppiStatus } from '../../../../src/controllers/ppi/status.ts';

const now = new Date('2025-01-01T00:10:00Z');

function ppi(acceptFormats: string[], architecture = 'x86_64'): PreprovisioningImage {
  return {
    metadata: {
      name: 'h',
      namespace: 'ns',
      generation: 3,
      labels: { 'infraenvs.agent-install.openshift.io': 'ie' },
    },
    spec: { acceptFormats, architecture },
    status: { imageUrl: 'old', format: 'iso' },
  };
}

function ie(opts: { createdAgoMs?: number; arch?: string; reason?: string } = {}): InfraEnv {
  return {
    metadata: { name: 'ie', namespace: 'ns' },
    spec: {
      pullSecretRef: { name: 'p' },
      cpuArchitecture: opts.arch ?? 'x86_64',
      kernelArguments: [{ operation: 'append', value: 'k=v' }],
    },
    status: {
      isoDownloadURL: 'https://iso',
      bootArtifacts: {
        initrd: 'https://initrd',
        kernel: 'https://kernel',
        rootfs: 'https://rootfs',
        ipxeScript: '',
        discoveryIgnitionURL: '',
      },
      ...(opts.createdAgoMs === undefined
        ? {}
        : { createdTime: new Date(now.getTime() - opts.createdAgoMs).toISOString() }),
      conditions: [
        {
          type: 'ImageCreated',
          status: opts.reason === 'ImageCreationError' ? 'False' : 'True',
          reason: opts.reason ?? 'InfraEnvAvailable',
          message: 'msg',
        },
      ],
    },
  } as unknown as InfraEnv;
}

const cond = (s: { conditions?: { type: string }[] }, type: string) =>
  s.conditions?.find((c) => c.type === type);

function check(
  out: ReturnType<typeof ppiStatus>,
  ready: string,
  error: string,
  reason: string,
  message: string,
) {
  expect(cond(out.status, 'Ready')).toMatchObject({ status: ready, reason, message, observedGeneration: 3 });
  expect(cond(out.status, 'Error')).toMatchObject({ status: error, reason, message });
}

describe('ppiStatus', () => {
  const base = { now, coolDownMs: 60_000 };
  it('unsupported format', () => {
    const out = ppiStatus({ ...base, ppi: ppi(['qcow2']), infraEnv: ie({ createdAgoMs: 1e6 }) });
    check(out, 'False', 'True', 'UnsupportedImageFormat', 'Unsupported image format');
    expect(out.status.imageUrl).toBeUndefined();
    expect(out.status.format).toBeUndefined();
  });
  it('InfraEnv missing', () => {
    check(
      ppiStatus({ ...base, ppi: ppi(['iso']), infraEnv: undefined }),
      'False',
      'False',
      'InfraEnvNotAvailable',
      'InfraEnv ie/ns is not found or is being deleted',
    );
  });
  it('arch mismatch (aarch64 ≡ arm64 is fine)', () => {
    check(
      ppiStatus({ ...base, ppi: ppi(['iso'], 'x86_64'), infraEnv: ie({ arch: 'arm64', createdAgoMs: 1e6 }) }),
      'False',
      'True',
      'InfraEnvArchMismatch',
      'PreprovisioningImage CPU architecture (x86_64) does not match InfraEnv CPU architecture (arm64)',
    );
    expect(
      ppiStatus({ ...base, ppi: ppi(['iso'], 'aarch64'), infraEnv: ie({ arch: 'arm64', createdAgoMs: 1e6 }) })
        .imageSet,
    ).toBe(true);
  });
  it('ironic failure', () => {
    check(
      ppiStatus({ ...base, ppi: ppi(['iso']), infraEnv: ie({ createdAgoMs: 1e6 }), ironicError: 'boom' }),
      'False',
      'True',
      'IronicAgentIgnitionUpdateFailure',
      'Could not add ironic agent to image: boom',
    );
  });
  it('waiting for the image, then cool-down with requeue', () => {
    check(
      ppiStatus({ ...base, ppi: ppi(['iso']), infraEnv: ie() }),
      'False',
      'False',
      'WaitingForInfraEnvImageToBeCreated',
      'Waiting for InfraEnv image to be created',
    );
    const out = ppiStatus({ ...base, ppi: ppi(['iso']), infraEnv: ie({ createdAgoMs: 15_000 }) });
    check(
      out,
      'False',
      'False',
      'WaitingForInfraEnvImageToCoolDown',
      'Waiting for InfraEnv image to cool down',
    );
    expect(out.requeueAfterMs).toBe(45_000);
  });
  it('iso success copies ImageCreated', () => {
    const out = ppiStatus({ ...base, ppi: ppi(['initrd', 'iso']), infraEnv: ie({ createdAgoMs: 1e6 }) });
    expect(out.imageSet).toBe(true);
    expect(out.status).toMatchObject({ imageUrl: 'https://iso', format: 'iso', architecture: 'x86_64' });
    expect(out.status.kernelUrl).toBeUndefined();
    check(out, 'True', 'False', 'InfraEnvAvailable', 'msg');
  });
  it('initrd success with kernel params; ImageCreationError → Error', () => {
    const out = ppiStatus({
      ...base,
      ppi: ppi(['initrd']),
      infraEnv: ie({ createdAgoMs: 1e6, reason: 'ImageCreationError' }),
    });
    expect(out.status).toMatchObject({
      imageUrl: 'https://initrd',
      kernelUrl: 'https://kernel',
      format: 'initrd',
      extraKernelParams: 'coreos.live.rootfs_url=https://rootfs rd.bootif=0 k=v',
    });
    check(out, 'False', 'True', 'ImageCreationError', 'msg');
  });
});
