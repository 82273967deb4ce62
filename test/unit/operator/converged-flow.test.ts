// The converged-flow decision (kubeapi.md §3.6): the version compare, and the hub check through a
// fake client (the test control plane serves no config.openshift.io).
import { describe, expect, it } from 'vitest';
import { compareReleaseVersions } from '../../../src/core/version.ts';
import { decideConvergedFlow } from '../../../src/operator/converged-flow.ts';
import { ApiError } from '../../../src/runtime/index.ts';

describe('compareReleaseVersions', () => {
  it.each([
    ['4.12.0', '4.12.0-0.alpha', 1],
    ['4.12.0-0.alpha', '4.12.0-0.alpha', 0],
    ['4.12.0-0.nightly-2022-09-01-000000', '4.12.0-0.alpha', 1],
    ['4.12.0-rc.1', '4.12.0-0.alpha', 1],
    ['4.12.0-0.alpha', '4.12.0-0.alpha.1', -1],
    ['4.11.9', '4.12.0-0.alpha', -1],
    ['4.11.0-0.nightly', '4.12.0-0.alpha', -1],
    ['4.13.0-ec.2', '4.12.0-0.alpha', 1],
    ['4.12', '4.12.0-0.alpha', 1],
    ['v4.12.1+build.5', '4.12.0-0.alpha', 1],
    ['4.10.12', '4.9.30', 1],
    ['1.0.0-2', '1.0.0-10', -1],
    ['4.12.0-beta', '4.12.0-alpha', 1],
  ] as const)('%s vs %s → %d', (a, b, want) => {
    expect(compareReleaseVersions(a, b)).toBe(want);
  });

  it('does not parse garbage', () => {
    expect(compareReleaseVersions('latest', '4.12.0')).toBeUndefined();
    expect(compareReleaseVersions('', '4.12.0')).toBeUndefined();
  });
});

type Request = (method: string, path: string) => Promise<unknown>;

function fakeClient(opts: { served: boolean; baremetal?: unknown; getError?: Error; request?: Request }) {
  const paths: string[] = [];
  return {
    paths,
    client: {
      request: (async (method: string, path: string) => {
        paths.push(path);
        if (opts.request) return opts.request(method, path);
        if (path !== '/apis/config.openshift.io/v1' || !opts.served) {
          throw new ApiError(404, { reason: 'NotFound' } as never, `GET ${path}: not found`);
        }
        return { resources: [{ name: 'clusteroperators' }, { name: 'clusterversions' }] };
      }) as never,
      getIfExists: (async (_res: unknown, name: string) => {
        paths.push(`get ${name}`);
        if (opts.getError) throw opts.getError;
        return opts.baremetal;
      }) as never,
    },
  };
}

const co = (version: string | undefined) => ({
  metadata: { name: 'baremetal' },
  status: {
    versions: [{ name: 'other', version: '9.9.9' }, ...(version ? [{ name: 'operator', version }] : [])],
  },
});

describe('decideConvergedFlow', () => {
  it('ALLOW_CONVERGED_FLOW off: non-converged without asking the hub', async () => {
    const f = fakeClient({ served: true, baremetal: co('4.16.0') });
    expect((await decideConvergedFlow(f.client, false)).converged).toBe(false);
    expect(f.paths).toEqual([]);
  });

  it('no ClusterOperators served (plain Kubernetes): the setting alone decides', async () => {
    const f = fakeClient({ served: false });
    const d = await decideConvergedFlow(f.client, true);
    expect(d).toMatchObject({ converged: true });
    expect(d.reason).toContain('not OpenShift');
    expect(f.paths).not.toContain('get baremetal');
  });

  it.each([
    ['4.12.0-0.alpha', true],
    ['4.14.3', true],
    ['4.12.0-0.nightly-2022-08-01-000000', true],
    ['4.11.30', false],
    ['not-a-version', false],
    [undefined, false],
  ] as const)('baremetal operator version %s → converged %s', async (version, want) => {
    const f = fakeClient({ served: true, baremetal: co(version) });
    const d = await decideConvergedFlow(f.client, true);
    expect(d.converged).toBe(want);
    expect(f.paths).toContain('get baremetal');
  });

  it('served but no baremetal ClusterOperator, or a read error: non-converged', async () => {
    expect((await decideConvergedFlow(fakeClient({ served: true }).client, true)).converged).toBe(false);
    const forbidden = new ApiError(403, { reason: 'Forbidden' } as never, 'forbidden');
    const d = await decideConvergedFlow(fakeClient({ served: true, getError: forbidden }).client, true);
    expect(d.converged).toBe(false);
    expect(d.reason).toContain('cannot read the baremetal ClusterOperator');
    const down = fakeClient({
      served: true,
      request: async () => {
        throw new Error('connect ECONNREFUSED');
      },
    });
    expect((await decideConvergedFlow(down.client, true)).converged).toBe(false);
  });
});
