// The hub ICC Secret (kubeapi.md §3.7.1): parsing, the TTL'd live read, the image only for the
// architectures its manifest lists, and how it ranks among the ironic URL and image sources.
import { describe, expect, it } from 'vitest';
import type { InfraEnv } from '../../../../src/api/index.ts';
import { ironicAgentImageFor } from '../../../../src/core/ignition/ironic.ts';
import type { OperatorContext } from '../../../../src/records/context.ts';
import { IccSecret, parseIccData } from '../../../../src/records/hub/icc.ts';
import { ironicAgentOptions, ironicSettingsOf } from '../../../../src/records/hub/ironic.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const ICC_DATA = {
  IRONIC_BASE_URL: 'https://icc-ironic:6385',
  IRONIC_INSPECTOR_BASE_URL: 'https://icc-inspector:5050',
  IRONIC_AGENT_IMAGE: 'registry.example/ironic-agent@sha256:icc',
};

function fakeCtx(secret: Record<string, string> | undefined | Error) {
  const gets: string[] = [];
  const warnings: string[] = [];
  let now = 0;
  const ctx = {
    now: () => new Date(now),
    logger: { info: () => {}, warn: (_o: unknown, msg: string) => warnings.push(msg) },
    settings: {
      iccSecretNamespace: 'openshift-machine-api',
      iccSecretName: 'metal3-image-customization-config',
      ironicBaseUrl: 'https://settings-ironic:6385',
      ironicInspectorBaseUrl: 'https://settings-inspector:5050',
      ironicAgentImage: '',
      ironicAgentImageArm: '',
    },
    client: {
      getIfExists: async (_res: unknown, name: string, ns: string) => {
        gets.push(`${ns}/${name}`);
        if (secret instanceof Error) throw secret;
        if (!secret) return undefined;
        return {
          metadata: { name, namespace: ns, resourceVersion: '1' },
          data: Object.fromEntries(Object.entries(secret).map(([k, v]) => [k, b64(v)])),
        };
      },
    },
  } as unknown as OperatorContext;
  return { ctx, gets, warnings, advance: (ms: number) => (now += ms) };
}

describe('parseIccData', () => {
  it('needs IRONIC_BASE_URL and IRONIC_AGENT_IMAGE; the inspector URL is optional', () => {
    expect(parseIccData(ICC_DATA)).toEqual({
      ok: true,
      config: {
        ironicBaseUrl: 'https://icc-ironic:6385',
        ironicInspectorBaseUrl: 'https://icc-inspector:5050',
        ironicAgentImage: 'registry.example/ironic-agent@sha256:icc',
      },
    });
    expect(parseIccData({ IRONIC_BASE_URL: 'u', IRONIC_AGENT_IMAGE: 'i' })).toMatchObject({
      ok: true,
      config: { ironicInspectorBaseUrl: '' },
    });
    expect(parseIccData({ IRONIC_BASE_URL: 'u' })).toEqual({
      ok: false,
      error: 'missing IRONIC_AGENT_IMAGE',
    });
    expect(parseIccData({})).toEqual({ ok: false, error: 'missing IRONIC_BASE_URL, IRONIC_AGENT_IMAGE' });
  });
});

describe('IccSecret', () => {
  it('reads the Secret live at most once per recheck interval; absent is undefined', async () => {
    const f = fakeCtx(undefined);
    const icc = new IccSecret(f.ctx, { recheckMs: 1000 });
    expect(await icc.current()).toBeUndefined();
    expect(await icc.current()).toBeUndefined();
    expect(f.gets).toEqual(['openshift-machine-api/metal3-image-customization-config']);
    f.advance(1500);
    await icc.current();
    expect(f.gets).toHaveLength(2);
    expect(f.warnings).toEqual([]);
  });

  it('ignores an incomplete Secret and a read error, logged once', async () => {
    const bad = fakeCtx({ IRONIC_BASE_URL: 'https://x' });
    const icc = new IccSecret(bad.ctx, { recheckMs: 0 });
    expect(await icc.current()).toBeUndefined();
    expect(await icc.current()).toBeUndefined();
    expect(bad.warnings).toEqual([
      'ignoring Secret openshift-machine-api/metal3-image-customization-config: missing IRONIC_AGENT_IMAGE',
    ]);
    const err = fakeCtx(new Error('forbidden'));
    expect(await new IccSecret(err.ctx).current()).toBeUndefined();
    expect(err.warnings).toHaveLength(1);
  });

  it('gives its image only for an architecture the manifest lists; lookups cached', async () => {
    const f = fakeCtx(ICC_DATA);
    let lookups = 0;
    const icc = new IccSecret(f.ctx, {
      architectures: async () => {
        lookups++;
        return ['amd64', 'arm64'];
      },
    });
    const cfg = await icc.current();
    expect(await icc.agentImageFor(cfg, 'x86_64')).toBe(ICC_DATA.IRONIC_AGENT_IMAGE);
    expect(await icc.agentImageFor(cfg, 'aarch64')).toBe(ICC_DATA.IRONIC_AGENT_IMAGE);
    expect(await icc.agentImageFor(cfg, 'ppc64le')).toBeUndefined();
    expect(await icc.agentImageFor(undefined, 'x86_64')).toBeUndefined();
    expect(lookups).toBe(1);
  });

  it('a failed manifest lookup falls through, logged once, retried after the interval', async () => {
    const f = fakeCtx(ICC_DATA);
    let lookups = 0;
    const icc = new IccSecret(f.ctx, {
      recheckMs: 1000,
      architectures: async () => {
        lookups++;
        throw new Error('registry down');
      },
    });
    const cfg = await icc.current();
    expect(await icc.agentImageFor(cfg, 'x86_64')).toBeUndefined();
    expect(await icc.agentImageFor(cfg, 'x86_64')).toBeUndefined();
    expect(lookups).toBe(1);
    f.advance(1500);
    expect(await icc.agentImageFor(cfg, 'x86_64')).toBeUndefined();
    expect(lookups).toBe(2);
    expect(f.warnings).toHaveLength(1);
  });
});

describe('ICC among the ironic sources', () => {
  it('the ICC URLs replace the settings as a pair', async () => {
    const f = fakeCtx(ICC_DATA);
    const cfg = await new IccSecret(f.ctx).current();
    expect(ironicSettingsOf(f.ctx, cfg)).toMatchObject({
      ironicBaseUrl: 'https://icc-ironic:6385',
      ironicInspectorBaseUrl: 'https://icc-inspector:5050',
    });
    const noInspector = { ...cfg!, ironicInspectorBaseUrl: '' };
    expect(ironicSettingsOf(f.ctx, noInspector).ironicInspectorBaseUrl).toBe('');
    expect(ironicSettingsOf(f.ctx, undefined)).toMatchObject({
      ironicBaseUrl: 'https://settings-ironic:6385',
      ironicInspectorBaseUrl: 'https://settings-inspector:5050',
    });
  });

  it('image: override annotation → ICC/hub image → settings default', () => {
    const f = fakeCtx(undefined);
    const ie = (annotations: Record<string, string> = {}) =>
      ({ metadata: { name: 'ie', namespace: 'ns', annotations }, spec: {} }) as unknown as InfraEnv;
    const image = (i: InfraEnv, hub: string | undefined) => {
      const o = ironicAgentOptions(ironicSettingsOf(f.ctx), i, undefined, hub);
      if (!o.ok) throw new Error(o.error);
      return ironicAgentImageFor({ cpu_architecture: 'x86_64' } as never, o.options);
    };
    const override = { 'infraenv.agent-install.openshift.io/ironic-agent-image-override': 'override/img' };
    expect(image(ie(override), ICC_DATA.IRONIC_AGENT_IMAGE)).toBe('override/img');
    expect(image(ie(), ICC_DATA.IRONIC_AGENT_IMAGE)).toBe(ICC_DATA.IRONIC_AGENT_IMAGE);
  });
});
