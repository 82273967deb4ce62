// BMAC planning rules beyond image delivery (kubeapi.md §3.6, §4.5), table-driven: the finalizer
// and delete flow, the unbind flow, pause/detach with allow-provisioned-host-management and
// PAUSE_PROVISIONED_BMHS, hardware details, and fencing credentials.
import { describe, expect, it } from 'vitest';
import type { Agent, BareMetalHost, InfraEnv } from '../../../../src/api/index.ts';
import {
  type BmhPlanInput,
  DELETE_REQUEUE_MS,
  fencingPlan,
  fencingSecret,
  fencingSecretPatch,
  hasSpokeNode,
  planAgent,
  planBmh,
  unbindingPendingUserAction,
} from '../../../../src/records/bmac-plan.ts';

const MAC = '52:54:00:aa:bb:cc';
const FINALIZER = 'bmac.agent-install.openshift.io/deprovision';
const IE_LABEL = 'infraenvs.agent-install.openshift.io';
const BACKUP = 'cluster.open-cluster-management.io/backup';
const DETACHED = 'baremetalhost.metal3.io/detached';
const PAUSED = 'baremetalhost.metal3.io/paused';
const STATUS = 'baremetalhost.metal3.io/status';
const HW = 'inspect.metal3.io/hardwaredetails';
const SPOKE = 'bmac.agent-install.openshift.io/spoke-bmh-machine-created';
const REMOVE = 'bmac.agent-install.openshift.io/remove-agent-and-node-on-delete';
const ALLOW = 'bmac.agent-install.openshift.io/allow-provisioned-host-management';
const DRAIN_STATUS = 'bmac.agent-install.openshift.io/drain-status';
const DRAIN_STARTED = 'bmac.agent-install.openshift.io/drain-started-at';
const OWNER = 'assisted-service-controller';
const DELAY = '{"deleteAction":"delay"}';
const ISO = 'https://img/iso';
const NOW = new Date('2025-01-01T00:10:00Z');

interface BmhOpts {
  labelled?: boolean;
  finalizer?: boolean;
  deleting?: boolean;
  annotations?: Record<string, string>;
  spec?: Partial<BareMetalHost['spec']>;
  status?: BareMetalHost['status'];
}

/** A BMH in sync with image delivery unless told otherwise (so only the rule under test writes). */
function bmh(opts: BmhOpts = {}): BareMetalHost {
  const converged = opts.spec?.customDeploy !== undefined;
  return {
    metadata: {
      name: 'bmh-1',
      namespace: 'ns',
      labels: opts.labelled === false ? { [BACKUP]: 'true' } : { [IE_LABEL]: 'ie', [BACKUP]: 'true' },
      annotations: { 'inspect.metal3.io': 'disabled', ...opts.annotations },
      finalizers: opts.finalizer === false ? [] : [FINALIZER],
      ...(opts.deleting ? { deletionTimestamp: '2025-01-01T00:09:00Z' } : {}),
    },
    spec: {
      online: true,
      bootMACAddress: MAC,
      ...(converged
        ? {}
        : { automatedCleaningMode: 'disabled', image: { url: ISO, diskFormat: 'live-iso' } }),
      ...opts.spec,
    },
    status: opts.status ?? { provisioning: { state: 'provisioned' } },
  } as BareMetalHost;
}

const DEPLOYED = { customDeploy: { method: 'start_assisted_install' } };

interface AgentOpts {
  stage?: string;
  boundReason?: string;
  installed?: boolean;
  cluster?: boolean;
  deleting?: boolean;
  state?: string;
}

function agent(opts: AgentOpts = {}): Agent {
  const conditions = [];
  if (opts.boundReason) conditions.push({ type: 'Bound', status: 'False', reason: opts.boundReason });
  if (opts.installed) conditions.push({ type: 'Installed', status: 'True', reason: 'InstallationCompleted' });
  return {
    metadata: {
      name: 'agent-1',
      namespace: 'ns',
      uid: 'u1',
      ...(opts.deleting ? { deletionTimestamp: '2025-01-01T00:09:00Z' } : {}),
    },
    spec: {
      approved: true,
      role: 'worker',
      hostname: 'node-1',
      ...(opts.cluster ? { clusterDeploymentName: { name: 'cd', namespace: 'cdns' } } : {}),
    },
    status: {
      conditions,
      debugInfo: { state: opts.state ?? 'known' },
      ...(opts.stage ? { progress: { currentStage: opts.stage } } : {}),
      inventory: {
        interfaces: [
          { macAddress: MAC, name: 'eth0', ipV4Addresses: ['10.0.0.5/24'], ipV6Addresses: [], flags: [] },
        ],
        hostname: 'inv-host',
      },
    },
  } as unknown as Agent;
}

const INFRA_ENV = {
  metadata: { name: 'ie', namespace: 'ns' },
  spec: { pullSecretRef: { name: 'ps' } },
  status: { isoDownloadURL: ISO, createdTime: '2025-01-01T00:00:00Z' },
} as unknown as InfraEnv;

function input(over: Partial<BmhPlanInput>): BmhPlanInput {
  return {
    bmh: bmh(),
    infraEnv: INFRA_ENV,
    agent: undefined,
    converged: false,
    ppiReady: true,
    pauseProvisionedBmhs: true,
    now: NOW,
    coolDownMs: 60_000,
    ...over,
  };
}

interface Expect {
  annotations?: Record<string, string | null>;
  labels?: Record<string, string | null>;
  finalizers?: string[];
  spec?: Record<string, unknown>;
  /** No patch at all. */
  none?: boolean;
  requeueAfterMs?: number;
  reconcileAgent?: boolean;
  deleteAgent?: boolean;
  notes?: { level: string; reason?: string }[];
}

function check(plan: ReturnType<typeof planBmh>, want: Expect): void {
  if (want.none) expect(plan.patch).toBeUndefined();
  expect(plan.patch?.metadata?.annotations).toEqual(want.annotations);
  expect(plan.patch?.metadata?.labels).toEqual(want.labels);
  expect(plan.patch?.metadata?.finalizers).toEqual(want.finalizers);
  expect(plan.patch?.spec).toEqual(want.spec);
  expect(plan.requeueAfterMs).toBe(want.requeueAfterMs);
  if (want.reconcileAgent !== undefined) expect(plan.reconcileAgent).toBe(want.reconcileAgent);
  expect(plan.deleteAgent ?? false).toBe(want.deleteAgent ?? false);
  expect(plan.notes.map((n) => ({ level: n.level, reason: n.event?.reason }))).toEqual(
    (want.notes ?? []).map((n) => ({ level: n.level, reason: n.reason })),
  );
}

describe('planBmh: label, finalizer and missing InfraEnv', () => {
  const cases: [string, Partial<BmhPlanInput>, Expect][] = [
    [
      'no InfraEnv label: the finalizer goes, nothing else happens',
      { bmh: bmh({ labelled: false, annotations: { [PAUSED]: OWNER } }), agent: agent() },
      { finalizers: [], reconcileAgent: false },
    ],
    [
      'no InfraEnv label and no finalizer: no write',
      { bmh: bmh({ labelled: false, finalizer: false }) },
      { none: true },
    ],
    [
      'no InfraEnv label while deleting: only the finalizer goes',
      { bmh: bmh({ labelled: false, deleting: true, annotations: { [PAUSED]: OWNER } }) },
      { finalizers: [] },
    ],
    [
      'missing InfraEnv: finalizer added, no image, the Agent is left alone',
      {
        bmh: bmh({ finalizer: false, spec: { image: undefined, automatedCleaningMode: undefined } }),
        infraEnv: undefined,
        agent: agent(),
      },
      { finalizers: [FINALIZER], reconcileAgent: false },
    ],
    [
      'in sync with an Agent: no write, the Agent is reconciled',
      { bmh: bmh({ annotations: { [HW]: '{}' } }), agent: agent() },
      { none: true, reconcileAgent: true },
    ],
  ];
  it.each(cases)('%s', (_name, over, want) => check(planBmh(input(over)), want));
});

describe('planBmh: deletion', () => {
  const converged = { converged: true };
  const annotated = { [REMOVE]: '', [DETACHED]: DELAY, [PAUSED]: OWNER };
  const cases: [string, Partial<BmhPlanInput>, Expect][] = [
    [
      'non-converged: unpause and release; detached stays',
      { bmh: bmh({ deleting: true, annotations: { [DETACHED]: OWNER, [PAUSED]: OWNER } }), agent: agent() },
      { annotations: { [PAUSED]: null }, finalizers: [] },
    ],
    [
      'non-converged with remove-agent-and-node-on-delete: same (the annotation is converged-only)',
      { bmh: bmh({ deleting: true, annotations: annotated }), agent: agent() },
      { annotations: { [PAUSED]: null }, finalizers: [] },
    ],
    [
      'converged without the annotation: unpause and release',
      {
        ...converged,
        bmh: bmh({ deleting: true, spec: DEPLOYED, annotations: { [DETACHED]: OWNER, [PAUSED]: OWNER } }),
        agent: agent(),
      },
      { annotations: { [PAUSED]: null }, finalizers: [] },
    ],
    [
      'converged, annotated, no Agent: undetach, unpause and release',
      { ...converged, bmh: bmh({ deleting: true, spec: DEPLOYED, annotations: annotated }) },
      { annotations: { [PAUSED]: null, [DETACHED]: null }, finalizers: [] },
    ],
    [
      'converged, annotated, Agent, still provisioned: let metal3 deprovision and wait',
      { ...converged, bmh: bmh({ deleting: true, spec: DEPLOYED, annotations: annotated }), agent: agent() },
      {
        annotations: { [PAUSED]: null, [DETACHED]: null },
        spec: { automatedCleaningMode: 'metadata' },
        requeueAfterMs: DELETE_REQUEUE_MS,
      },
    ],
    [
      'converged, annotated, Agent, deprovisioning already asked for: no write, keep waiting',
      {
        ...converged,
        bmh: bmh({
          deleting: true,
          spec: { ...DEPLOYED, automatedCleaningMode: 'metadata' },
          annotations: { [REMOVE]: '' },
          status: { provisioning: { state: 'deprovisioning' } },
        }),
        agent: agent(),
      },
      { none: true, requeueAfterMs: DELETE_REQUEUE_MS },
    ],
    [
      'converged, annotated, Agent, deleting: delete the Agent and release',
      {
        ...converged,
        bmh: bmh({
          deleting: true,
          spec: { ...DEPLOYED, automatedCleaningMode: 'metadata' },
          annotations: { [REMOVE]: '' },
          status: { provisioning: { state: 'deleting' } },
        }),
        agent: agent(),
      },
      { finalizers: [], deleteAgent: true },
    ],
    [
      'converged, annotated, Agent already being deleted: just release',
      {
        ...converged,
        bmh: bmh({
          deleting: true,
          spec: { ...DEPLOYED, automatedCleaningMode: 'metadata' },
          annotations: { [REMOVE]: '' },
          status: { provisioning: { state: 'deleting' } },
        }),
        agent: agent({ deleting: true }),
      },
      { finalizers: [] },
    ],
    [
      'converged, annotated, Agent joined a cluster, drain in progress: record it and wait',
      {
        ...converged,
        bmh: bmh({ deleting: true, spec: DEPLOYED, annotations: annotated }),
        agent: agent({ cluster: true, installed: true }),
        drain: {
          status: 'draining in progress',
          startedAt: '2026-01-01T00:00:00.000Z',
          proceed: false,
          requeueAfterMs: 20_000,
        },
      },
      {
        annotations: {
          [DRAIN_STATUS]: 'draining in progress',
          [DRAIN_STARTED]: '2026-01-01T00:00:00.000Z',
        },
        requeueAfterMs: 20_000,
      },
    ],
    [
      'converged, annotated, drained: deprovision as without a Node',
      {
        ...converged,
        bmh: bmh({
          deleting: true,
          spec: DEPLOYED,
          annotations: {
            ...annotated,
            [DRAIN_STATUS]: 'draining in progress',
            [DRAIN_STARTED]: '2026-01-01T00:00:00.000Z',
          },
        }),
        agent: agent({ cluster: true, installed: true }),
        drain: { status: 'drain succeeded', startedAt: '2026-01-01T00:00:00.000Z', proceed: true },
      },
      {
        annotations: { [PAUSED]: null, [DETACHED]: null, [DRAIN_STATUS]: 'drain succeeded' },
        spec: { automatedCleaningMode: 'metadata' },
        requeueAfterMs: DELETE_REQUEUE_MS,
      },
    ],
    [
      'deleting without our finalizer: no write',
      { bmh: bmh({ deleting: true, finalizer: false, annotations: { [PAUSED]: OWNER } }) },
      { none: true },
    ],
  ];
  it.each(cases)('%s', (_name, over, want) => check(planBmh(input(over)), want));
});

describe('planBmh: day-2 MCS CA', () => {
  it('writes the overrides the controller merged the spoke CA into, with the rest of the pass', () => {
    const plan = planBmh(
      input({
        bmh: bmh({ status: { provisioning: { state: 'provisioned' } } }),
        agent: agent(),
        mcsCaOverrides: '{"ignition":{}}',
      }),
    );
    expect(
      plan.patch?.metadata?.annotations?.['bmac.agent-install.openshift.io/ignition-config-overrides'],
    ).toBe('{"ignition":{}}');
  });
});

describe('planBmh: unbound Agent (Bound reason UnbindingPendingUserAction)', () => {
  const unbinding = agent({ boundReason: 'UnbindingPendingUserAction', stage: 'Done' });
  const leftovers = { [DETACHED]: OWNER, [PAUSED]: OWNER, [HW]: '{}', [SPOKE]: '2025-01-01T00:00:00Z' };
  const removed = { [DETACHED]: null, [PAUSED]: null, [HW]: null, [SPOKE]: null };
  const cases: [string, Partial<BmhPlanInput>, Expect][] = [
    [
      'non-converged, detached: clear the annotations and the image, stop',
      { bmh: bmh({ annotations: leftovers }), agent: unbinding },
      { annotations: removed, spec: { image: null }, reconcileAgent: false },
    ],
    [
      'non-converged, no longer detached: the image comes back, detached is not re-added',
      {
        bmh: bmh({
          annotations: { [HW]: '{}' },
          spec: { image: undefined },
          status: { provisioning: { state: 'available' } },
        }),
        agent: unbinding,
      },
      { spec: { image: { url: ISO, diskFormat: 'live-iso' } }, reconcileAgent: false },
    ],
    [
      'non-converged, image back: the Agent is reconciled, still not detached',
      { bmh: bmh({ annotations: { [HW]: '{}' } }), agent: unbinding },
      { none: true, reconcileAgent: true },
    ],
    [
      'converged, provisioned: deprovision (customDeploy null) and stop',
      { converged: true, bmh: bmh({ spec: DEPLOYED, annotations: leftovers }), agent: unbinding },
      { annotations: removed, spec: { customDeploy: null }, reconcileAgent: false },
    ],
    [
      'converged, deprovisioning: clear the annotations and wait',
      {
        converged: true,
        bmh: bmh({
          annotations: leftovers,
          spec: { online: true },
          status: { provisioning: { state: 'deprovisioning' } },
        }),
        agent: unbinding,
      },
      { annotations: removed, reconcileAgent: false },
    ],
    [
      'converged, available again: customDeploy once the PPI is ready, no detach',
      {
        converged: true,
        bmh: bmh({
          annotations: { [HW]: '{}' },
          spec: { online: true },
          status: { provisioning: { state: 'available' } },
        }),
        agent: unbinding,
      },
      { annotations: { [HW]: null }, spec: DEPLOYED, reconcileAgent: true },
    ],
  ];
  it.each(cases)('%s', (_name, over, want) => check(planBmh(input(over)), want));

  it.each([
    ['UnbindingPendingUserAction', true],
    ['Unbinding', false],
    ['Bound', false],
  ])('unbindingPendingUserAction(%s) = %s', (reason, want) => {
    expect(unbindingPendingUserAction(agent({ boundReason: reason }))).toBe(want);
  });
});

describe('planBmh: pause and detach', () => {
  const provisionedDetached = { provisioning: { state: 'provisioned' }, operationalStatus: 'detached' };
  const cases: [string, Partial<BmhPlanInput>, Expect][] = [
    [
      'converged, provisioned: detached by us',
      { converged: true, bmh: bmh({ spec: DEPLOYED }), agent: agent() },
      { annotations: { [DETACHED]: OWNER }, reconcileAgent: true },
    ],
    [
      'converged, provisioned, remove-agent-and-node-on-delete: delayed delete',
      { converged: true, bmh: bmh({ spec: DEPLOYED, annotations: { [REMOVE]: '' } }), agent: agent() },
      { annotations: { [DETACHED]: DELAY }, reconcileAgent: true },
    ],
    [
      'converged, the annotation added after detaching: the value follows',
      { converged: true, bmh: bmh({ spec: DEPLOYED, annotations: { [REMOVE]: '', [DETACHED]: OWNER } }) },
      { annotations: { [DETACHED]: DELAY } },
    ],
    [
      'converged, not provisioned yet: no detach',
      {
        converged: true,
        bmh: bmh({ spec: DEPLOYED, status: { provisioning: { state: 'available' } } }),
        agent: agent(),
      },
      { none: true, reconcileAgent: true },
    ],
    [
      'non-converged, agent Rebooting: detached',
      { bmh: bmh({ annotations: { [HW]: '{}' } }), agent: agent({ stage: 'Rebooting' }) },
      { annotations: { [DETACHED]: OWNER }, reconcileAgent: true },
    ],
    [
      'non-converged, agent Writing image to disk: not detached',
      { bmh: bmh({ annotations: { [HW]: '{}' } }), agent: agent({ stage: 'Writing image to disk' }) },
      { none: true },
    ],
    [
      'detached by metal3: paused, status saved',
      {
        converged: true,
        bmh: bmh({ spec: DEPLOYED, annotations: { [DETACHED]: OWNER }, status: provisionedDetached }),
      },
      { annotations: { [PAUSED]: OWNER, [STATUS]: JSON.stringify(provisionedDetached) } },
    ],
    [
      'detached by metal3 with PAUSE_PROVISIONED_BMHS off: not paused',
      {
        converged: true,
        pauseProvisionedBmhs: false,
        bmh: bmh({ spec: DEPLOYED, annotations: { [DETACHED]: OWNER }, status: provisionedDetached }),
      },
      { none: true },
    ],
    [
      'already paused with the same status: no write',
      {
        converged: true,
        bmh: bmh({
          spec: DEPLOYED,
          annotations: { [DETACHED]: OWNER, [PAUSED]: OWNER, [STATUS]: JSON.stringify(provisionedDetached) },
          status: provisionedDetached,
        }),
      },
      { none: true },
    ],
    [
      'moved to a new hub (no provisioning state, status saved): unpaused',
      {
        converged: true,
        bmh: bmh({
          spec: DEPLOYED,
          annotations: { [DETACHED]: OWNER, [PAUSED]: OWNER, [STATUS]: '{}' },
          status: {},
        }),
      },
      { annotations: { [PAUSED]: null } },
    ],
    [
      'no provisioning state but no saved status: stays paused',
      {
        converged: true,
        bmh: bmh({ spec: DEPLOYED, annotations: { [DETACHED]: OWNER, [PAUSED]: OWNER }, status: {} }),
      },
      { none: true },
    ],
    [
      'no provisioning state, PAUSE_PROVISIONED_BMHS off: stays paused',
      {
        converged: true,
        pauseProvisionedBmhs: false,
        bmh: bmh({
          spec: DEPLOYED,
          annotations: { [DETACHED]: OWNER, [PAUSED]: OWNER, [STATUS]: '{}' },
          status: {},
        }),
      },
      { none: true },
    ],
    [
      'allow-provisioned-host-management, converged: undetached, unpaused, not detached again',
      {
        converged: true,
        bmh: bmh({
          spec: DEPLOYED,
          annotations: { [ALLOW]: '', [DETACHED]: OWNER, [PAUSED]: OWNER },
          status: provisionedDetached,
        }),
      },
      { annotations: { [DETACHED]: null, [PAUSED]: null } },
    ],
    [
      'allow-provisioned-host-management with remove-agent-and-node-on-delete: error, detach goes on',
      { converged: true, bmh: bmh({ spec: DEPLOYED, annotations: { [ALLOW]: '', [REMOVE]: '' } }) },
      { annotations: { [DETACHED]: DELAY }, notes: [{ level: 'error' }] },
    ],
    [
      'allow-provisioned-host-management, non-converged: error, detach goes on',
      { bmh: bmh({ annotations: { [ALLOW]: '', [HW]: '{}' } }), agent: agent({ stage: 'Done' }) },
      { annotations: { [DETACHED]: OWNER }, notes: [{ level: 'error' }] },
    ],
  ];
  it.each(cases)('%s', (_name, over, want) => check(planBmh(input(over)), want));
});

describe('planBmh: image delivery stops the pass, hardware details', () => {
  const cases: [string, Partial<BmhPlanInput>, Expect][] = [
    [
      'image written: the Agent waits for the next pass',
      {
        bmh: bmh({ spec: { image: undefined }, status: { provisioning: { state: 'ready' } } }),
        agent: agent(),
      },
      { spec: { image: { url: ISO, diskFormat: 'live-iso' } }, reconcileAgent: false },
    ],
    [
      'no image on a host that is not idle (e.g. provisioned after an unbind): wait for metal3',
      { bmh: bmh({ spec: { image: undefined } }), agent: agent() },
      { none: true, reconcileAgent: false },
    ],
    [
      'stale image on a busy host: dropped first',
      { bmh: bmh({ spec: { image: { url: 'https://old' } } }), agent: agent() },
      { spec: { image: null }, reconcileAgent: false },
    ],
    [
      'image in sync: hardware details from the inventory',
      { bmh: bmh(), agent: agent() },
      { annotations: { [HW]: expect.any(String) as unknown as string }, reconcileAgent: true },
    ],
    [
      'metal3 inspected the host: no hardware details',
      {
        bmh: bmh({ status: { provisioning: { state: 'provisioned' }, hardware: { hostname: 'h' } } }),
        agent: agent(),
      },
      { none: true, reconcileAgent: true },
    ],
    [
      'converged: no hardware details',
      {
        converged: true,
        bmh: bmh({ spec: DEPLOYED, status: { provisioning: { state: 'available' } } }),
        agent: agent(),
      },
      { none: true, reconcileAgent: true },
    ],
    [
      'converged, PPI not ready: stop before the Agent',
      {
        converged: true,
        ppiReady: false,
        bmh: bmh({ spec: { online: true }, status: { provisioning: { state: 'available' } } }),
        agent: agent(),
      },
      { none: true, reconcileAgent: false },
    ],
  ];
  it.each(cases)('%s', (_name, over, want) => check(planBmh(input(over)), want));
});

describe('hasSpokeNode', () => {
  it.each<[string, AgentOpts, boolean]>([
    ['unbound', { installed: true }, false],
    ['bound, not installed', { cluster: true, stage: 'Writing image to disk' }, false],
    ['bound, Installed condition', { cluster: true, installed: true }, true],
    ['bound, day-2 added', { cluster: true, state: 'added-to-existing-cluster' }, true],
    ['bound, joined', { cluster: true, stage: 'Joined' }, true],
  ])('%s', (_name, opts, want) => expect(hasSpokeNode(agent(opts))).toBe(want));
});

describe('fencing credentials', () => {
  const NAME = 'bmac.agent-install.openshift.io/fencing-credentials-secret-name';
  const CREATE = 'bmac.agent-install.openshift.io/create-fencing-credentials-secret';
  const bmc = { address: 'redfish://10.0.0.1/redfish/v1/Systems/1', credentialsName: 'bmc-secret' };

  it.each<[string, Record<string, string>, ReturnType<typeof fencingPlan>]>([
    ['nothing asked', {}, undefined],
    ['named Secret', { [NAME]: 'mine' }, { kind: 'reference', name: 'mine' }],
    ['generated Secret', { [CREATE]: '' }, { kind: 'generate', name: 'agent-1-fencing-credentials' }],
    ['both: the named one wins', { [NAME]: 'mine', [CREATE]: '' }, { kind: 'reference', name: 'mine' }],
  ])('fencingPlan: %s', (_name, annotations, want) => {
    expect(fencingPlan(bmh({ annotations }), agent())).toEqual(want);
  });

  const decoded = (data: Record<string, string>) =>
    Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));

  it.each<[string, boolean | undefined, string]>([
    ['verification on by default', undefined, 'Enabled'],
    ['verification disabled', true, 'Disabled'],
    ['verification enabled', false, 'Enabled'],
  ])('fencingSecret: %s', (_name, disable, verification) => {
    const host = bmh({
      spec: {
        bmc: { ...bmc, ...(disable === undefined ? {} : { disableCertificateVerification: disable }) },
      },
    });
    const out = fencingSecret(host, agent(), { username: 'admin', password: 'pw' });
    if (!('secret' in out)) throw new Error(out.error);
    expect(out.secret.metadata).toEqual({
      name: 'agent-1-fencing-credentials',
      namespace: 'ns',
      labels: { [BACKUP]: 'true', 'agent-install.openshift.io/watch': 'true' },
    });
    expect(decoded(out.secret.data)).toEqual({
      address: bmc.address,
      username: 'admin',
      password: 'pw',
      certificateVerification: verification,
    });
  });

  it.each<[string, Partial<BareMetalHost['spec']>, Record<string, string> | undefined, RegExp]>([
    ['no BMC', {}, { username: 'u', password: 'p' }, /no spec.bmc/],
    ['BMC Secret missing', { bmc }, undefined, /BMC credentials Secret ns\/bmc-secret not found/],
    ['no password', { bmc }, { username: 'u' }, /lacks username or password/],
  ])('fencingSecret error: %s', (_name, spec, creds, want) => {
    const out = fencingSecret(bmh({ spec }), agent(), creds);
    expect('error' in out && out.error).toMatch(want);
  });

  it('fencingSecretPatch writes only what differs', () => {
    const out = fencingSecret(bmh({ spec: { bmc } }), agent(), { username: 'admin', password: 'pw' });
    if (!('secret' in out)) throw new Error(out.error);
    const wanted = out.secret;
    expect(
      fencingSecretPatch(
        { metadata: { labels: { ...wanted.metadata.labels, x: 'y' } }, data: wanted.data },
        wanted,
      ),
    ).toBe(undefined);
    const stale = { ...wanted.data, password: Buffer.from('old').toString('base64') };
    expect(fencingSecretPatch({ metadata: {}, data: stale }, wanted)).toEqual({
      metadata: { labels: wanted.metadata.labels },
      data: { password: wanted.data.password },
    });
  });

  it.each<[string, string | undefined, unknown]>([
    ['sets the reference', 'agent-1-fencing-credentials', 'agent-1-fencing-credentials'],
    ['nothing asked: leaves the spec alone', undefined, undefined],
  ])('planAgent %s', (_name, ref, want) => {
    const a = agent();
    a.metadata.labels = { 'agent-install.openshift.io/bmh': 'bmh-1' };
    expect(planAgent(bmh(), a, INFRA_ENV, ref).patch?.spec?.fencingCredentialsSecretRef).toBe(want);
    a.spec.fencingCredentialsSecretRef = 'agent-1-fencing-credentials';
    expect(planAgent(bmh(), a, INFRA_ENV, 'agent-1-fencing-credentials').patch).toBeUndefined();
  });
});
