// The pure decisions of the day-2 spoke work and spoke cleanup (kubeapi.md §3.4.1, §3.4.7): which
// hosts, whether to auto-approve CSRs, which CSRs are the host's, csrStatus bookkeeping, node
// labels, the stage to report, and what cleaning a Node means.
import { beforeAll, describe, expect, it } from 'vitest';
import type { CsrStatus } from '../../../../src/api/index.ts';
import type { Host, HostStatus } from '../../../../src/core/model.ts';
import {
  type CsrApprovalCluster,
  capabilitiesOf,
  csrTypeFor,
  day2Stage,
  machineCleanupPlan,
  mergeCsrStatus,
  NODE_BOOTSTRAPPER_USER,
  needsDay2SpokeWork,
  nodeCleanupStep,
  nodeLabelsPatch,
  nodeReady,
  planCsrApprovals,
  RECOVERED_FROM_PENDING_USER_ACTION_INFO,
  type SpokeCsr,
  shouldApproveCsrs,
  skipsSpokeCleanup,
  spokeCleanupBlockedBy,
  spokeResourcesExist,
} from '../../../../src/records/agents/day2.ts';
import { csrRequest } from '../../../harness/csr.ts';

const CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';
const SERVING_SIGNER = 'kubernetes.io/kubelet-serving';

function host(status: HostStatus, stage: string, overrides: Partial<Host> = {}): Host {
  return {
    id: 'h',
    infra_env_id: 'i',
    cluster_id: 'c',
    kind: 'AddToExistingClusterHost',
    status,
    status_info: '',
    role: 'worker',
    progress: { current_stage: stage as never },
    ...overrides,
  } as Host;
}

describe('needsDay2SpokeWork', () => {
  it.each([
    ['Rebooting', 'installing-in-progress', {}, true],
    ['Joined', 'installing-in-progress', {}, true],
    ['Configuring', 'installing-in-progress', {}, true],
    ['Writing image to disk', 'installing-in-progress', {}, false],
    ['Writing image to disk', 'installing-pending-user-action', {}, true],
    ['Joined', 'installed', {}, true],
    ['Done', 'installed', {}, false],
    ['Done', 'added-to-existing-cluster', {}, false],
    ['Rebooting', 'installing-in-progress', { kind: 'Host' }, false],
    ['Rebooting', 'installing-in-progress', { cluster_id: '' }, false],
  ] as const)('stage %s, status %s, %o → %s', (stage, status, overrides, want) => {
    expect(needsDay2SpokeWork(host(status, stage, overrides as Partial<Host>))).toBe(want);
  });
});

describe('shouldApproveCsrs', () => {
  const baremetal: CsrApprovalCluster = {
    user_managed_networking: false,
    platform: { type: 'baremetal' },
    control_plane_count: 3,
  };
  const caps = (baseline: string, additional: string[]) =>
    JSON.stringify({
      capabilities: { baselineCapabilitySet: baseline, additionalEnabledCapabilities: additional },
    });
  it.each([
    ['UMN', { ...baremetal, user_managed_networking: true }, true, 'Rebooting', true],
    ['platform none', { ...baremetal, platform: { type: 'none' } }, true, 'Joined', true],
    ['SNO', { ...baremetal, control_plane_count: 1 }, true, 'Rebooting', true],
    [
      'baremetal, capabilities None + baremetal',
      { ...baremetal, install_config_overrides: caps('None', ['baremetal']) },
      true,
      'Rebooting',
      true,
    ],
    [
      'baremetal, capabilities None + baremetal + MachineAPI',
      { ...baremetal, install_config_overrides: caps('None', ['baremetal', 'MachineAPI']) },
      true,
      'Rebooting',
      false,
    ],
    [
      'baremetal, capabilities vCurrent + baremetal',
      { ...baremetal, install_config_overrides: caps('vCurrent', ['baremetal']) },
      true,
      'Rebooting',
      false,
    ],
    ['baremetal with a BMH', baremetal, true, 'Rebooting', false],
    ['baremetal without a BMH', baremetal, false, 'Rebooting', true],
    ['UMN at Configuring', { ...baremetal, user_managed_networking: true }, false, 'Configuring', false],
    ['UMN at Done', { ...baremetal, user_managed_networking: true }, false, 'Done', false],
  ] as const)('%s', (_name, cluster, hasBmh, stage, want) => {
    expect(
      shouldApproveCsrs({
        host: host('installing-in-progress', stage),
        cluster: cluster as CsrApprovalCluster,
        hasBmh,
      }),
    ).toBe(want);
  });

  it('approves for a host pending user action, whatever its stage', () => {
    expect(
      shouldApproveCsrs({
        host: host('installing-pending-user-action', 'Writing image to disk'),
        cluster: baremetal,
        hasBmh: false,
      }),
    ).toBe(true);
  });

  it('reads capabilities from the install-config overrides, ignoring junk', () => {
    expect(capabilitiesOf({ install_config_overrides: caps('None', ['baremetal']) })).toEqual({
      baseline: 'None',
      additional: ['baremetal'],
    });
    expect(capabilitiesOf({ install_config_overrides: '{not json' })).toEqual({ additional: [] });
    expect(capabilitiesOf({})).toEqual({ additional: [] });
  });
});

describe('CSRs', () => {
  let worker: string;
  let other: string;
  let noOrg: string;
  beforeAll(async () => {
    worker = await csrRequest('worker-1');
    other = await csrRequest('worker-2');
    noOrg = await csrRequest('worker-1', 'CN=system:node:worker-1');
  });
  const csr = (
    name: string,
    request: string,
    signerName: string,
    username: string,
    conditions: { type: string; status: string; lastUpdateTime?: string }[] = [],
  ): SpokeCsr => ({
    metadata: { name },
    spec: { request, signerName, username },
    status: { conditions },
  });

  it('matches client CSRs of the bootstrapper and serving CSRs of the node, by subject', () => {
    const cases: [string, SpokeCsr, string | undefined][] = [
      ['client', csr('a', worker, CLIENT_SIGNER, NODE_BOOTSTRAPPER_USER), 'client'],
      ['serving', csr('b', worker, SERVING_SIGNER, 'system:node:worker-1'), 'serving'],
      ['client of another host', csr('c', other, CLIENT_SIGNER, NODE_BOOTSTRAPPER_USER), undefined],
      ['client from a stranger', csr('d', worker, CLIENT_SIGNER, 'system:admin'), undefined],
      ['serving from another node', csr('e', worker, SERVING_SIGNER, 'system:node:worker-2'), undefined],
      ['other signer', csr('f', worker, 'example.com/signer', NODE_BOOTSTRAPPER_USER), undefined],
      ['no system:nodes organization', csr('g', noOrg, CLIENT_SIGNER, NODE_BOOTSTRAPPER_USER), undefined],
      ['unreadable request', csr('h', 'bm90IGEgY3Ny', CLIENT_SIGNER, NODE_BOOTSTRAPPER_USER), undefined],
    ];
    for (const [name, c, want] of cases) expect(csrTypeFor(c, 'worker-1'), name).toBe(want);
    expect(csrTypeFor(cases[0]![1], '')).toBeUndefined();
  });

  it('plans: pending client at once, pending serving once the Node exists, approved ones recorded', () => {
    const csrs = [
      csr('z-serving', worker, SERVING_SIGNER, 'system:node:worker-1'),
      csr('a-client', worker, CLIENT_SIGNER, NODE_BOOTSTRAPPER_USER),
      csr('b-client-old', worker, CLIENT_SIGNER, NODE_BOOTSTRAPPER_USER, [
        { type: 'Approved', status: 'True', lastUpdateTime: '2025-06-01T11:00:00Z' },
      ]),
      csr('c-denied', worker, CLIENT_SIGNER, NODE_BOOTSTRAPPER_USER, [{ type: 'Denied', status: 'True' }]),
      csr('d-other', other, CLIENT_SIGNER, NODE_BOOTSTRAPPER_USER),
    ];
    expect(planCsrApprovals(csrs, 'worker-1', false)).toEqual({
      approve: [{ name: 'a-client', type: 'client' }],
      approved: [{ name: 'b-client-old', type: 'client', approvedAt: '2025-06-01T11:00:00Z' }],
    });
    expect(planCsrApprovals(csrs, 'worker-1', true).approve).toEqual([
      { name: 'a-client', type: 'client' },
      { name: 'z-serving', type: 'serving' },
    ]);
  });

  it('merges csrStatus by name; the attempt time moves only when something was approved', () => {
    const prev: CsrStatus = {
      approvedCSRs: [{ name: 'a', type: 'client', approvedAt: '2025-06-01T11:00:00Z' }],
      lastApprovalAttempt: '2025-06-01T11:00:00Z',
    };
    const b = { name: 'b', type: 'serving', approvedAt: '2025-06-01T12:00:00Z' };
    expect(
      mergeCsrStatus(prev, [b, { ...prev.approvedCSRs![0]!, approvedAt: 'x' }], '2025-06-01T12:00:00Z'),
    ).toEqual({
      approvedCSRs: [prev.approvedCSRs![0], b],
      lastApprovalAttempt: '2025-06-01T12:00:00Z',
    });
    expect(mergeCsrStatus(prev, [], undefined)).toEqual(prev);
    expect(mergeCsrStatus(undefined, [], undefined)).toEqual({});
  });
});

describe('Node', () => {
  it('is Ready only with Ready=True', () => {
    expect(nodeReady(undefined)).toBe(false);
    expect(nodeReady({ metadata: {}, status: { conditions: [{ type: 'Ready', status: 'False' }] } })).toBe(
      false,
    );
    expect(nodeReady({ metadata: {}, status: { conditions: [{ type: 'Ready', status: 'True' }] } })).toBe(
      true,
    );
  });

  it.each([
    [{}, { a: '1' }, { a: '1' }],
    [{ a: '1' }, { a: '1' }, undefined],
    [{ a: '1', b: '2' }, { a: '2' }, { a: '2' }],
    [{ a: '1' }, { a: '1', b: '' }, { b: '' }],
    [{ a: '1' }, undefined, undefined],
  ])('labels %o wanted %o → patch %o', (have, wanted, want) => {
    expect(nodeLabelsPatch({ metadata: { labels: have } }, wanted)).toEqual(want);
  });
});

describe('day2Stage', () => {
  const approved: CsrStatus = {
    approvedCSRs: [
      { name: 'a', type: 'client', approvedAt: 't' },
      { name: 'b', type: 'serving', approvedAt: 't' },
    ],
  };
  const clientOnly: CsrStatus = { approvedCSRs: [{ name: 'a', type: 'client', approvedAt: 't' }] };
  it.each([
    ['ready, approving, both approved', 'installing-in-progress', true, true, true, approved, 'Done', ''],
    ['ready, approving, client only', 'installing-in-progress', true, true, true, clientOnly, 'Joined', ''],
    ['ready, not approving', 'installing-in-progress', true, true, false, undefined, 'Done', ''],
    ['not ready', 'installing-in-progress', true, false, false, undefined, 'Joined', ''],
    ['no Node yet', 'installing-in-progress', false, false, true, undefined, 'Joined', ''],
    [
      'pending user action, then ready',
      'installing-pending-user-action',
      true,
      true,
      true,
      approved,
      'Done',
      RECOVERED_FROM_PENDING_USER_ACTION_INFO,
    ],
    [
      'pending user action, client approved',
      'installing-pending-user-action',
      false,
      false,
      true,
      clientOnly,
      'Joined',
      '',
    ],
    [
      'pending user action, no sign of the host',
      'installing-pending-user-action',
      false,
      false,
      true,
      undefined,
      undefined,
      undefined,
    ],
  ] as const)('%s', (_n, status, nodeExists, ready, autoApprove, csrStatus, stage, info) => {
    const r = day2Stage({ status, nodeExists, nodeReady: ready, autoApprove, csrStatus });
    expect(r).toEqual(stage ? { stage, info } : undefined);
  });
});

describe('spoke cleanup', () => {
  it('needs spoke resources: stage Done, a spoke Machine from the BMAC, or approved CSRs', () => {
    expect(spokeResourcesExist({ stage: 'Done', bmhMachineCreated: false, csrStatus: {} })).toBe(true);
    expect(spokeResourcesExist({ stage: 'Joined', bmhMachineCreated: true, csrStatus: undefined })).toBe(
      true,
    );
    expect(
      spokeResourcesExist({
        stage: 'Joined',
        bmhMachineCreated: false,
        csrStatus: { approvedCSRs: [{ name: 'a', type: 'client', approvedAt: 't' }] },
      }),
    ).toBe(true);
    expect(spokeResourcesExist({ stage: 'Joined', bmhMachineCreated: false, csrStatus: {} })).toBe(false);
  });

  it('honours the skip annotation by its presence', () => {
    expect(skipsSpokeCleanup({ metadata: {} })).toBe(false);
    expect(
      skipsSpokeCleanup({
        metadata: { annotations: { 'agent.agent-install.openshift.io/skip-spoke-cleanup': '' } },
      }),
    ).toBe(true);
  });

  it('runs only while the ClusterDeployment, AgentClusterInstall and InfraEnv exist and stay', () => {
    const live = { metadata: { name: 'x' } };
    const going = { metadata: { name: 'x', deletionTimestamp: '2025-06-01T12:00:00Z' } };
    const all = { clusterDeployment: live, agentClusterInstall: live, infraEnv: live };
    expect(spokeCleanupBlockedBy(all)).toBeUndefined();
    expect(spokeCleanupBlockedBy({ ...all, clusterDeployment: undefined })).toBe(
      'its ClusterDeployment does not exist',
    );
    expect(spokeCleanupBlockedBy({ ...all, agentClusterInstall: going })).toBe(
      'its AgentClusterInstall is being deleted',
    );
    expect(spokeCleanupBlockedBy({ ...all, infraEnv: undefined })).toBe('its InfraEnv does not exist');
  });

  it('deletes a plain Node, and goes through the Machine a Node names', () => {
    expect(nodeCleanupStep({ metadata: { name: 'n' } })).toEqual({ kind: 'delete-node' });
    expect(
      nodeCleanupStep({ metadata: { name: 'n', annotations: { 'machine.openshift.io/machine': 'bad' } } }),
    ).toEqual({ kind: 'delete-node' });
    expect(
      nodeCleanupStep({
        metadata: { name: 'n', annotations: { 'machine.openshift.io/machine': 'openshift-machine-api/m-0' } },
      }),
    ).toEqual({ kind: 'machine', machine: { namespace: 'openshift-machine-api', name: 'm-0' } });
  });

  it('plans the Machine branch from the MachineSet label and the BareMetalHost annotation', () => {
    const machineAnnotations = {
      'machine.openshift.io/delete-machine': 'true',
      'machine.openshift.io/exclude-node-draining': 'true',
    };
    const machineSetAnnotations = { 'metal3.io/autoscale-to-hosts': 'true' };
    expect(
      machineCleanupPlan({
        metadata: {
          name: 'm-0',
          namespace: 'openshift-machine-api',
          labels: { 'machine.openshift.io/cluster-api-machineset': 'workers' },
          annotations: { 'metal3.io/BareMetalHost': 'openshift-machine-api/bmh-0' },
        },
      }),
    ).toEqual({
      machineAnnotations,
      machineSetAnnotations,
      machineSet: { namespace: 'openshift-machine-api', name: 'workers' },
      bmh: { namespace: 'openshift-machine-api', name: 'bmh-0' },
      deleteMachine: false,
    });
    expect(
      machineCleanupPlan({
        metadata: {
          name: 'm-1',
          namespace: 'openshift-machine-api',
          annotations: { 'metal3.io/BareMetalHost': 'openshift-machine-api/bmh-1' },
        },
      }),
    ).toEqual({
      machineAnnotations,
      machineSetAnnotations,
      bmh: { namespace: 'openshift-machine-api', name: 'bmh-1' },
      deleteMachine: true,
    });
  });
});
