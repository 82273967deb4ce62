import { beforeAll, describe, expect, it } from 'vitest';
import type { InfraEnv } from '../../../../src/api/index.ts';
import { LocalAuth, MemoryKeyStore, peekClaims } from '../../../../src/auth/index.ts';
import {
  desiredInfraEnvStatus,
  type ImageFacts,
  type StatusEnv,
} from '../../../../src/controllers/infraenv/status.ts';
import { INFRA_ENV_ID, infraEnv, NOW } from '../../records/fixtures.ts';

const URLS = { serviceBaseUrl: 'https://api.example.com', imageServiceBaseUrl: 'https://images.example.com' };
const HOUR = 3600_000;
const DAY = 24 * HOUR;

let auth: LocalAuth;
beforeAll(async () => {
  auth = await LocalAuth.create({
    keyStore: new MemoryKeyStore(),
    resolver: { exists: async () => true, covers: async () => true },
    events: { authFailure: () => {} },
  });
});

function env(now: Date, urls = URLS): StatusEnv {
  return { now, urls, issuer: auth };
}

const IMAGE: ImageFacts = {
  digest: 'd1',
  openshiftVersion: '4.19',
  cpuArchitecture: 'x86_64',
  imageType: 'minimal-iso',
  hasStaticNetwork: false,
  bootOrderControl: false,
  insecureHttp: false,
};

/** The object as the API would hold it after writing `status`. */
function written(ie: InfraEnv, status: InfraEnv['status']): InfraEnv {
  return { ...ie, status: JSON.parse(JSON.stringify(status)) };
}

function tokenOf(url: string): string {
  const m = /\/byapikey\/([^/]+)\//.exec(url);
  return m ? m[1]! : (new URL(url).searchParams.get('api_key') ?? '');
}

describe('desiredInfraEnvStatus', () => {
  it('describes a new image: URLs, createdTime, condition, selector, digest and expiry', () => {
    const ie = infraEnv();
    const { status, reissueInMs } = desiredInfraEnvStatus(ie, { kind: 'image', image: IMAGE }, env(NOW));
    expect(status.agentLabelSelector).toEqual({
      matchLabels: { 'infraenvs.agent-install.openshift.io': 'ie' },
    });
    expect(status.createdTime).toBe('2025-03-01T10:00:00Z');
    expect(status.isoDownloadURL).toMatch(
      /^https:\/\/images\.example\.com\/byapikey\/[\w-]+\.[\w-]+\.[\w-]+\/4\.19\/x86_64\/minimal\.iso$/,
    );
    expect(status.bootArtifacts).toEqual({
      kernel: 'https://images.example.com/boot-artifacts/kernel?arch=x86_64&version=4.19',
      rootfs: 'https://images.example.com/boot-artifacts/rootfs?arch=x86_64&version=4.19',
      initrd: expect.stringMatching(
        new RegExp(
          `^https://images\\.example\\.com/images/${INFRA_ENV_ID}/pxe-initrd\\?api_key=[^&]+&arch=x86_64&version=4\\.19$`,
        ),
      ),
      ipxeScript: expect.stringMatching(
        new RegExp(
          `^https://api\\.example\\.com/api/assisted-install/v2/infra-envs/${INFRA_ENV_ID}/downloads/files\\?api_key=[^&]+&file_name=ipxe-script$`,
        ),
      ),
      discoveryIgnitionURL: expect.stringMatching(
        /downloads\/files\?api_key=[^&]+&file_name=discovery\.ign$/,
      ),
    });
    expect(status.debugInfo?.eventsURL).toMatch(
      new RegExp(
        `^https://api\\.example\\.com/api/assisted-install/v2/events\\?api_key=[^&]+&infra_env_id=${INFRA_ENV_ID}$`,
      ),
    );
    expect(status.debugInfo?.staticNetworkDownloadURL).toBeUndefined();
    expect(status.conditions).toEqual([
      {
        type: 'ImageCreated',
        status: 'True',
        reason: 'InfraEnvAvailable',
        message: 'InfraEnv is available: Image has been created',
        lastTransitionTime: '2025-03-01T10:00:00Z',
      },
    ]);
    // Each URL's token opens only its own kind of URL, for this infra-env.
    expect(peekClaims(tokenOf(status.isoDownloadURL!))).toMatchObject({
      infra_env_id: INFRA_ENV_ID,
      url_kind: 'iso',
    });
    expect(peekClaims(tokenOf(status.bootArtifacts!.initrd))).toMatchObject({ url_kind: 'pxe-initrd' });
    expect(peekClaims(tokenOf(status.bootArtifacts!.ipxeScript))).toMatchObject({
      url_kind: 'infra-env-files',
    });
    expect(peekClaims(tokenOf(status.debugInfo!.eventsURL))).toMatchObject({ url_kind: 'events' });
    expect(status.backend).toEqual({ imageDigest: 'd1', tokenExpiresAt: '2025-03-08T10:00:00.000Z' });
    // Re-issue 2 days before the 7-day expiry.
    expect(reissueInMs).toBe(5 * DAY);
  });

  it('writes nothing new when the image and its tokens are unchanged (annotation-only edits)', () => {
    const first = desiredInfraEnvStatus(infraEnv(), { kind: 'image', image: IMAGE }, env(NOW));
    const ie = written(infraEnv({}, { annotations: { note: 'x' } }), first.status);
    const again = desiredInfraEnvStatus(
      ie,
      { kind: 'image', image: IMAGE },
      env(new Date(NOW.getTime() + DAY)),
    );
    expect(JSON.parse(JSON.stringify(again.status))).toEqual(ie.status);
    expect(again.reissueInMs).toBe(4 * DAY);
  });

  it('re-signs every URL and moves createdTime when the image changes', () => {
    const first = desiredInfraEnvStatus(infraEnv(), { kind: 'image', image: IMAGE }, env(NOW));
    const ie = written(infraEnv(), first.status);
    const later = new Date(NOW.getTime() + HOUR);
    const next = desiredInfraEnvStatus(
      ie,
      { kind: 'image', image: { ...IMAGE, digest: 'd2' } },
      env(later),
    ).status;
    expect(next.createdTime).toBe('2025-03-01T11:00:00Z');
    expect(next.isoDownloadURL).not.toBe(first.status.isoDownloadURL);
    expect(next.bootArtifacts?.initrd).not.toBe(first.status.bootArtifacts?.initrd);
    expect(next.debugInfo?.eventsURL).not.toBe(first.status.debugInfo?.eventsURL);
    expect(next.backend?.imageDigest).toBe('d2');
    // The condition did not change status, so its transition time stays.
    expect(next.conditions?.[0]?.lastTransitionTime).toBe('2025-03-01T10:00:00Z');
  });

  it('re-issues tokens before they expire without touching createdTime', () => {
    const first = desiredInfraEnvStatus(infraEnv(), { kind: 'image', image: IMAGE }, env(NOW));
    const ie = written(infraEnv(), first.status);
    const due = new Date(NOW.getTime() + 5 * DAY + 1000);
    const next = desiredInfraEnvStatus(ie, { kind: 'image', image: IMAGE }, env(due));
    expect(next.status.createdTime).toBe(first.status.createdTime);
    expect(next.status.isoDownloadURL).not.toBe(first.status.isoDownloadURL);
    expect(new Date(next.status.backend!.tokenExpiresAt!).getTime()).toBe(
      Math.floor(due.getTime() / 1000) * 1000 + 7 * DAY,
    );
  });

  it('re-signs when a URL names another target (base URL, version, BootOrderControl, static network)', () => {
    const first = desiredInfraEnvStatus(infraEnv(), { kind: 'image', image: IMAGE }, env(NOW));
    const ie = written(infraEnv(), first.status);
    const image = { ...IMAGE, bootOrderControl: true, hasStaticNetwork: true };
    const next = desiredInfraEnvStatus(
      ie,
      { kind: 'image', image },
      env(NOW, { ...URLS, serviceBaseUrl: 'http://10.0.0.1:8090' }),
    ).status;
    expect(next.createdTime).toBe(first.status.createdTime);
    expect(next.bootArtifacts?.ipxeScript).toMatch(
      /^http:\/\/10\.0\.0\.1:8090\/api\/assisted-install\/v2\/infra-envs\/[^/]+\/downloads\/files\?api_key=[^&]+&file_name=ipxe-script&ipxe_script_type=boot-order-control$/,
    );
    expect(next.debugInfo?.staticNetworkDownloadURL).toMatch(/file_name=static-network-config$/);
  });

  it('forces http on iPXE artifacts when insecure iPXE URLs are on, except the discovery ignition', () => {
    const { status } = desiredInfraEnvStatus(
      infraEnv(),
      { kind: 'image', image: { ...IMAGE, insecureHttp: true } },
      env(NOW),
    );
    expect(status.bootArtifacts?.kernel).toMatch(/^http:\/\/images\.example\.com\//);
    expect(status.bootArtifacts?.rootfs).toMatch(/^http:\/\//);
    expect(status.bootArtifacts?.initrd).toMatch(/^http:\/\//);
    expect(status.bootArtifacts?.ipxeScript).toMatch(/^http:\/\/api\./);
    expect(status.bootArtifacts?.discoveryIgnitionURL).toMatch(/^https:\/\//);
    expect(status.isoDownloadURL).toMatch(/^https:\/\//);
  });

  it('reports an image creation error and drops the image URLs and createdTime', () => {
    const first = desiredInfraEnvStatus(infraEnv(), { kind: 'image', image: IMAGE }, env(NOW));
    const ie = written(infraEnv(), first.status);
    const later = new Date(NOW.getTime() + HOUR);
    const { status } = desiredInfraEnvStatus(
      ie,
      {
        kind: 'problem',
        problem: { kind: 'error', clientError: true, message: 'error parsing ignition: config is not valid' },
      },
      env(later),
    );
    expect(status.conditions?.[0]).toEqual({
      type: 'ImageCreated',
      status: 'False',
      reason: 'ImageCreationError',
      message: 'Failed to create image: error parsing ignition: config is not valid',
      lastTransitionTime: '2025-03-01T11:00:00Z',
    });
    expect(status.isoDownloadURL).toBeUndefined();
    expect(status.createdTime).toBeUndefined();
    expect(status.backend?.imageDigest).toBeUndefined();
    expect(status.bootArtifacts).toEqual({
      initrd: '',
      rootfs: '',
      kernel: '',
      ipxeScript: '',
      discoveryIgnitionURL: '',
    });
    expect(status.debugInfo?.eventsURL).toBe(first.status.debugInfo?.eventsURL);

    // Fixed: a new image, so a new createdTime.
    const fixed = desiredInfraEnvStatus(
      written(infraEnv(), status),
      { kind: 'image', image: IMAGE },
      env(new Date(later.getTime() + HOUR)),
    );
    expect(fixed.status.createdTime).toBe('2025-03-01T12:00:00Z');
  });

  it('words internal errors as upstream', () => {
    const { status } = desiredInfraEnvStatus(
      infraEnv(),
      {
        kind: 'problem',
        problem: { kind: 'error', clientError: false, message: 'failed to get pull secret' },
      },
      env(NOW),
    );
    expect(status.conditions?.[0]?.message).toBe(
      'Failed to create image due to an internal error: failed to get pull secret',
    );
  });

  it('reports a missing ClusterDeployment and keeps the last image URLs', () => {
    const first = desiredInfraEnvStatus(infraEnv(), { kind: 'image', image: IMAGE }, env(NOW));
    const ie = written(infraEnv(), first.status);
    const message =
      'failed to get clusterDeployment with name cd in namespace spoke: clusterdeployments.hive.openshift.io "cd" not found';
    const { status } = desiredInfraEnvStatus(
      ie,
      { kind: 'problem', problem: { kind: 'missing-cluster-deployment', message } },
      env(new Date(NOW.getTime() + HOUR)),
    );
    expect(status.conditions?.[0]).toMatchObject({
      status: 'Unknown',
      reason: 'MissingClusterDeployment',
      message: `ClusterDeployment is missing: ${message}`,
    });
    expect(status.isoDownloadURL).toBe(first.status.isoDownloadURL);
    expect(status.createdTime).toBe(first.status.createdTime);
    expect(status.bootArtifacts).toEqual(first.status.bootArtifacts);
  });

  it('with the image service disabled: only the events URL and "InfraEnv is available"', () => {
    const { status } = desiredInfraEnvStatus(infraEnv(), { kind: 'disabled' }, env(NOW));
    expect(status.conditions?.[0]).toMatchObject({
      status: 'True',
      reason: 'InfraEnvAvailable',
      message: 'InfraEnv is available',
    });
    expect(status.isoDownloadURL).toBeUndefined();
    expect(status.debugInfo?.eventsURL).toContain('infra_env_id=');
    expect(status.bootArtifacts?.initrd).toBe('');
    // Errors are not reported while it is disabled.
    const quiet = desiredInfraEnvStatus(
      infraEnv(),
      { kind: 'disabled', problem: { kind: 'error', clientError: true, message: 'x' } },
      env(NOW),
    );
    expect(quiet.status.conditions).toBeUndefined();
  });
});
