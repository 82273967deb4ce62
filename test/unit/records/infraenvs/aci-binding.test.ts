import { describe, expect, it } from 'vitest';
import type { AgentClusterInstall } from '../../../../src/api/index.ts';
import { aciBindingChanged } from '../../../../src/records/infraenvs/inputs.ts';

const backend = {
  clusterID: 'c1',
  openshiftVersion: '4.18.1',
  cpuArchitecture: 'x86_64',
  state: 'insufficient',
};
const base = {
  metadata: { name: 'sno', namespace: 'ns', generation: 1, resourceVersion: '10' },
  spec: { clusterDeploymentRef: { name: 'sno' }, imageSetRef: { name: 'img' } },
  status: { backend, controlPlaneAgentsDiscovered: 0 },
} as unknown as AgentClusterInstall;

function changed(edit: (a: AgentClusterInstall) => void): AgentClusterInstall {
  const next = structuredClone(base);
  next.metadata.resourceVersion = '11';
  edit(next);
  return next;
}

// The InfraEnv reads an AgentClusterInstall's spec and its cluster record's id, version and
// architecture (clusterBinding); the cluster's own status writes must not wake it.
describe('aciBindingChanged (the InfraEnv controller’s AgentClusterInstall filter)', () => {
  const rows: [string, (a: AgentClusterInstall) => void, boolean][] = [
    [
      'a new host counted',
      (a) => Object.assign(a.status as object, { controlPlaneAgentsDiscovered: 1 }),
      false,
    ],
    [
      'conditions rewritten',
      (a) => Object.assign(a.status as object, { conditions: [{ type: 'RequirementsMet' }] }),
      false,
    ],
    ['cluster state moved on', (a) => Object.assign(a.status?.backend as object, { state: 'ready' }), false],
    ['labels changed (no generation bump)', (a) => Object.assign(a.metadata, { labels: { x: 'y' } }), false],
    ['spec changed (generation)', (a) => Object.assign(a.metadata, { generation: 2 }), true],
    [
      'cluster record registered',
      (a) => Object.assign(a.status?.backend as object, { clusterID: 'c2' }),
      true,
    ],
    ['cluster record gone', (a) => Object.assign(a.status as object, { backend: undefined }), true],
    [
      'version resolved',
      (a) => Object.assign(a.status?.backend as object, { openshiftVersion: '4.19.0' }),
      true,
    ],
    [
      'architecture resolved',
      (a) => Object.assign(a.status?.backend as object, { cpuArchitecture: 'arm64' }),
      true,
    ],
  ];
  const named = rows.map(
    ([what, edit, expected]) => [`${what}: ${expected ? 'passes' : 'filtered'}`, edit, expected] as const,
  );
  it.each(named)('%s', (_what, edit, expected) => {
    expect(aciBindingChanged(base, changed(edit))).toBe(expected);
  });

  it('an ACI first seen without a cluster record, then with one', () => {
    const bare = changed((a) => Object.assign(a, { status: undefined }));
    expect(aciBindingChanged(bare, base)).toBe(true);
    expect(
      aciBindingChanged(
        bare,
        changed((a) => Object.assign(a, { status: {} })),
      ),
    ).toBe(false);
  });
});
