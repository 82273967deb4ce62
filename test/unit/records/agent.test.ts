import { describe, expect, it } from 'vitest';
import { type Agent, agentStatusSchema } from '../../../src/api/index.ts';
import {
  type AgentHost,
  agentSpecError,
  agentToHost,
  cachedAgentToHost,
  effectiveAgentRole,
  hostToAgentStatus,
} from '../../../src/records/index.ts';
import {
  agent,
  CLUSTER_ID,
  HOST_ID,
  host,
  INFRA_ENV_ID,
  LATER,
  NOW,
  sampleInventory,
  viaJson,
} from './fixtures.ts';
import { randomInventories } from './random-inventory.ts';

const EVENTS = `https://svc/api/assisted-install/v2/events?api_key=tok1&host_id=${HOST_ID}`;
const LOGS = `https://svc/api/assisted-install/v2/clusters/${CLUSTER_ID}/logs?api_key=tok1&host_id=${HOST_ID}&logs_type=host`;

/** A realistic installed-side host record (as the core would hold it). */
function fullHost(overrides: Partial<AgentHost> = {}): AgentHost {
  return host({
    status_updated_at: '2025-03-01T09:30:00.123Z',
    registered_at: '2025-03-01T09:00:00.000Z',
    inventory: sampleInventory(),
    validations_info: {
      hardware: [{ id: 'has-inventory', status: 'success', message: 'Valid inventory exists for the host' }],
    },
    progress: {
      current_stage: 'Installing',
      installation_percentage: 42,
      progress_info: '40%',
      stage_started_at: '2025-03-01T09:40:00.000Z',
      stage_updated_at: '2025-03-01T09:41:00.000Z',
    },
    progress_stages: ['Starting installation', 'Installing', 'Writing image to disk', 'Rebooting', 'Done'],
    ntp_sources: [{ source_name: 'clock.example.com', source_state: 'synced' }],
    installation_disk_id: '/dev/disk/by-id/wwn-0x1',
    installation_disk_path: '/dev/sda',
    disks_to_be_formatted: ['/dev/disk/by-id/wwn-0x1'],
    discovery_agent_version: 'quay.io/edge-infrastructure/assisted-installer-agent:latest',
    installer_version: 'quay.io/edge-infrastructure/assisted-installer:latest',
    logs_info: 'completed',
    logs_started_at: '2025-03-01T09:50:00.000Z',
    logs_collected_at: '2025-03-01T09:51:00.000Z',
    media_status: 'connected',
    connection_timed_out: false,
    bootstrap: true,
    ...overrides,
  });
}

function project(h: AgentHost | undefined, a: Agent, now = NOW, extra = {}) {
  return hostToAgentStatus(h, a, { now, eventsURL: EVENTS, logsURL: LOGS, ...extra });
}

describe('hostToAgentStatus', () => {
  it('writes upstream status fields plus status.backend', () => {
    const a = agent({ spec: { approved: true } });
    const status = project(fullHost(), a);
    expect(status.role).toBe('master');
    expect(status.bootstrap).toBe(true);
    expect(status.kind).toBe('Host');
    expect(status.installation_disk_id).toBe('/dev/disk/by-id/wwn-0x1');
    expect(status.debugInfo).toEqual({
      eventsURL: EVENTS,
      logsURL: LOGS,
      state: 'known',
      stateInfo: 'Host is ready to be installed',
    });
    expect(status.progress).toEqual({
      currentStage: 'Installing',
      progressStages: ['Starting installation', 'Installing', 'Writing image to disk', 'Rebooting', 'Done'],
      progressInfo: '40%',
      installationPercentage: 42,
      stageStartTime: '2025-03-01T09:40:00Z',
      stageUpdateTime: '2025-03-01T09:41:00Z',
    });
    expect(status.ntpSources).toEqual([{ sourceName: 'clock.example.com', sourceState: 'synced' }]);
    expect(status.validationsInfo).toEqual({
      hardware: [{ id: 'has-inventory', status: 'success', message: 'Valid inventory exists for the host' }],
    });
    expect(status.inventory?.cpu?.clockMegahertz).toBe(2400);
    expect(status.csrStatus).toEqual({});
    expect(status.backend).toMatchObject({
      clusterID: CLUSTER_ID,
      infraEnvID: INFRA_ENV_ID,
      role: 'auto-assign',
      suggestedRole: 'master',
      statusUpdatedAt: '2025-03-01T09:30:00.123Z',
      registeredAt: '2025-03-01T09:00:00.000Z',
      installerVersion: 'quay.io/edge-infrastructure/assisted-installer:latest',
      discoveryAgentVersion: 'quay.io/edge-infrastructure/assisted-installer-agent:latest',
      logsInfo: 'completed',
      mediaStatus: 'connected',
      connectionTimedOut: false,
    });
    expect(status.backend?.inventoryExtra?.tpmVersion).toBe('2.0');
    expect(status.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['SpecSynced', 'True', 'SyncOK'],
      ['Connected', 'True', 'AgentIsConnected'],
      ['RequirementsMet', 'True', 'AgentIsReady'],
      ['Validated', 'True', 'ValidationsPassing'],
      ['Installed', 'False', 'InstallationNotStarted'],
      ['Bound', 'True', 'Bound'],
    ]);
    for (const c of status.conditions ?? []) {
      expect(c.lastTransitionTime).toBe('2025-03-01T10:00:00Z');
      expect(c.lastHeartbeatTime).toBeUndefined();
    }
  });

  it('is already in the form the Agent schema produces (always-serialized fields present)', () => {
    const status = viaJson(project(fullHost(), agent()));
    expect(agentStatusSchema.parse(status)).toStrictEqual(status);
    const bare = viaJson(
      project(host({ cluster_id: null, status: 'discovering-unbound', status_info: '' }), agent()),
    );
    expect(agentStatusSchema.parse(bare)).toStrictEqual(bare);
    expect(bare.inventory).toEqual({ memory: {}, cpu: {}, boot: {}, systemVendor: {} });
    expect(bare.progress).toEqual({});
    expect(bare.debugInfo).toEqual({ state: 'discovering-unbound' });
  });

  it('shows auto-assign without a suggestion, and the role itself when not auto-assign', () => {
    expect(effectiveAgentRole({ role: 'auto-assign', suggested_role: '' })).toBe('auto-assign');
    expect(effectiveAgentRole({ role: 'auto-assign', suggested_role: 'worker' })).toBe('worker');
    expect(effectiveAgentRole({ role: 'master', suggested_role: 'worker' })).toBe('master');
  });

  it('writes events and logs URLs only while bound, and logs only once collected', () => {
    const unbound = project(fullHost({ cluster_id: null, status: 'known-unbound' }), agent());
    expect(unbound.debugInfo.eventsURL).toBeUndefined();
    expect(unbound.debugInfo.logsURL).toBeUndefined();
    const noLogs = project(fullHost({ logs_collected_at: undefined }), agent());
    expect(noLogs.debugInfo.eventsURL).toBe(EVENTS);
    expect(noLogs.debugInfo.logsURL).toBeUndefined();
  });

  it('keeps a URL already in status while it names the same target (signatures vary)', () => {
    const first = project(fullHost(), agent());
    const resigned = EVENTS.replace('tok1', 'tok2');
    const second = project(fullHost(), agent({ status: first }), LATER, { eventsURL: resigned });
    expect(second.debugInfo.eventsURL).toBe(EVENTS);
    const otherHost = resigned.replace(HOST_ID, 'other');
    const third = project(fullHost(), agent({ status: first }), LATER, { eventsURL: otherHost });
    expect(third.debugInfo.eventsURL).toBe(otherHost);
  });

  it('projecting the same host twice gives a deep-equal status (timestamps kept)', () => {
    const h = fullHost();
    const first = viaJson(project(h, agent({ spec: { approved: true } })));
    const a = agent({ spec: { approved: true }, status: first });
    const second = project(agentToHost(a), a, LATER);
    expect(second).toStrictEqual(first);
  });

  it('keeps lastTransitionTime when only reason or message change; renews it when status changes', () => {
    const first = project(
      host({
        status: 'insufficient',
        validations_info: { hardware: [{ id: 'x', status: 'failure', message: 'a' }] },
      }),
      agent(),
    );
    const a = agent({ status: first });
    const changedMessage = project(
      host({
        status: 'insufficient',
        validations_info: { hardware: [{ id: 'x', status: 'failure', message: 'b' }] },
      }),
      a,
      LATER,
    );
    const validated = changedMessage.conditions?.find((c) => c.type === 'Validated');
    expect(validated?.message).toBe("The agent's validations are failing: b");
    expect(validated?.lastTransitionTime).toBe('2025-03-01T10:00:00Z');
    // disconnected → RequirementsMet stays False (AgentNotReady) but Connected flips to False.
    const disconnected = project(host({ status: 'disconnected' }), a, LATER);
    const byType = Object.fromEntries((disconnected.conditions ?? []).map((c) => [c.type, c]));
    expect(byType.Connected?.lastTransitionTime).toBe('2025-03-01T11:30:00Z');
    expect(byType.RequirementsMet?.lastTransitionTime).toBe('2025-03-01T10:00:00Z');
    expect(byType.Installed?.lastTransitionTime).toBe('2025-03-01T10:00:00Z');
  });

  it('keeps conditions of other types (Cleanup) in place', () => {
    const cleanup = {
      type: 'Cleanup',
      status: 'False',
      reason: 'CleanupFailed',
      message: 'x',
      lastTransitionTime: '2025-01-01T00:00:00Z',
    };
    const status = project(host(), agent({ status: { role: '', debugInfo: {}, conditions: [cleanup] } }));
    expect(status.conditions?.[0]).toEqual(cleanup);
    expect(status.conditions).toHaveLength(7);
  });

  it('carries over deprovision_info and csrStatus', () => {
    const prev = {
      role: 'worker',
      debugInfo: {},
      deprovision_info: {
        cluster_name: 'old',
        cluster_namespace: 'ns',
        node_name: 'n',
        message: 'Waiting for host to unbind to do spoke cleanup',
      },
      csrStatus: { approvedCSRs: [{ name: 'csr-1', type: 'client', approvedAt: '2025-01-01T00:00:00Z' }] },
    };
    const status = project(host(), agent({ status: prev }));
    expect(status.deprovision_info).toEqual(prev.deprovision_info);
    expect(status.csrStatus).toEqual(prev.csrStatus);
  });

  it('reports a spec sync error in SpecSynced', () => {
    const status = project(host(), agent(), NOW, { specSyncError: { kind: 'input', message: 'bad' } });
    expect(status.conditions?.[0]).toMatchObject({
      type: 'SpecSynced',
      status: 'False',
      reason: 'InputError',
      message: 'The Spec could not be synced due to an input error: bad',
    });
  });

  it('without a host writes the Unknown set, clears state and keeps the rest', () => {
    const first = project(fullHost(), agent());
    const status = project(undefined, agent({ status: first }), LATER, {
      specSyncError: {
        kind: 'input',
        message: `Host with ID ${HOST_ID} already exists in infraEnv x (namespace: y). Cannot restore.`,
      },
    });
    expect(status.debugInfo).toEqual({ eventsURL: EVENTS, logsURL: LOGS });
    expect(status.inventory).toEqual(first.inventory);
    expect(status.backend).toEqual(first.backend);
    expect(status.conditions?.filter((c) => c.reason === 'NotAvailable').map((c) => c.type)).toEqual([
      'Connected',
      'RequirementsMet',
      'Validated',
      'Installed',
      'Bound',
    ]);
  });
});

describe('agentToHost', () => {
  it('reads back the host it was projected from', () => {
    const h = fullHost();
    const a = agent({ spec: { approved: true }, status: viaJson(project(h, agent())) });
    expect(agentToHost(a)).toStrictEqual({ ...h, created_at: '2025-03-01T09:00:00Z' });
  });

  it('round-trips a freshly registered host with no inventory', () => {
    const h = host({
      cluster_id: null,
      status: 'discovering-unbound',
      status_info: '',
      role: 'auto-assign',
      suggested_role: 'auto-assign',
      approved: false,
      registered_at: '2025-03-01T09:00:00.000Z',
      checked_in_at: '2025-03-01T09:59:00.000Z',
    });
    const a = agent({ status: viaJson(project(h, agent())) });
    const { checked_in_at: _memoryOnly, ...persisted } = h;
    expect(agentToHost(a)).toStrictEqual({ ...persisted, created_at: '2025-03-01T09:00:00Z' });
    expect(agentToHost(a, { checked_in_at: '2025-03-01T09:59:00.000Z' }).checked_in_at).toBe(
      '2025-03-01T09:59:00.000Z',
    );
  });

  it('applies runtime facts from memory and Secrets', () => {
    const facts = {
      checked_in_at: '2025-03-01T09:59:00.000Z',
      free_addresses: [{ network: '192.168.111.0/24', free_addresses: ['192.168.111.9'] }],
      tang_connectivity: '{"is_success":true}',
      fencing_credentials: '{"address":"redfish://x"}',
      ignition_endpoint_token_set: true,
    };
    expect(agentToHost(agent(), facts)).toMatchObject(facts);
  });

  it('maps the spec: approved, hostname, MCP, installer args, ignition, node labels', () => {
    const h = agentToHost(
      agent({
        spec: {
          approved: true,
          hostname: 'worker-1',
          machineConfigPool: 'infra',
          installerArgs: '["--append-karg","nameserver=8.8.8.8"]',
          ignitionConfigOverrides: '{"ignition":{"version":"3.1.0"}}',
          nodeLabels: { 'node-role.kubernetes.io/infra': '' },
        },
        status: { role: '', debugInfo: { state: 'known' }, backend: { clusterID: CLUSTER_ID } },
      }),
    );
    expect(h).toMatchObject({
      approved: true,
      requested_hostname: 'worker-1',
      machine_config_pool_name: 'infra',
      installer_args: '["--append-karg","nameserver=8.8.8.8"]',
      ignition_config_overrides: '{"ignition":{"version":"3.1.0"}}',
      node_labels: { 'node-role.kubernetes.io/infra': '' },
      cluster_id: CLUSTER_ID,
      infra_env_id: INFRA_ENV_ID,
      status: 'known',
    });
  });

  it('defaults the state to discovering / discovering-unbound before any status', () => {
    expect(agentToHost(agent()).status).toBe('discovering-unbound');
    expect(
      agentToHost(agent({ status: { role: '', debugInfo: {}, backend: { clusterID: CLUSTER_ID } } })).status,
    ).toBe('discovering');
  });

  describe('role', () => {
    const withBackend = (state: string, backend: object, role = '') =>
      agent({ spec: { role }, status: { role: '', debugInfo: { state }, backend } });

    it('spec "" keeps the stored role (e.g. SNO master set at registration)', () => {
      expect(agentToHost(withBackend('known', { role: 'master', suggestedRole: 'master' }))).toMatchObject({
        role: 'master',
        suggested_role: 'master',
      });
    });

    it('a manual role becomes the suggestion too', () => {
      expect(
        agentToHost(withBackend('known', { role: 'auto-assign', suggestedRole: 'worker' }, 'master')),
      ).toMatchObject({
        role: 'master',
        suggested_role: 'master',
      });
    });

    it('is not changed once installation started (upstream ignores it)', () => {
      expect(
        agentToHost(withBackend('installing', { role: 'worker', suggestedRole: 'worker' }, 'master')),
      ).toMatchObject({
        role: 'worker',
      });
    });
  });

  describe('installation disk', () => {
    const inventoryStatus = (state: string, diskId: string, spec: Partial<Agent['spec']>) => {
      const projected = project(
        host({
          status: state as AgentHost['status'],
          inventory: {
            disks: [
              {
                id: '/dev/disk/by-id/a',
                name: 'sda',
                size_bytes: 200e9,
                installation_eligibility: { eligible: true },
              },
              {
                id: '/dev/disk/by-id/b',
                name: 'sdb',
                by_path: '/dev/disk/by-path/b',
                size_bytes: 200e9,
                installation_eligibility: { eligible: true },
              },
              {
                id: '/dev/disk/by-id/c',
                name: 'sdc',
                size_bytes: 1e9,
                installation_eligibility: { eligible: false, not_eligible_reasons: ['too small'] },
              },
            ],
          },
          installation_disk_id: diskId,
        }),
        agent(),
      );
      return agent({ spec, status: viaJson(projected) });
    };

    it('keeps the chosen disk, deriving its device path', () => {
      expect(agentToHost(inventoryStatus('known', '/dev/disk/by-id/a', {}))).toMatchObject({
        installation_disk_id: '/dev/disk/by-id/a',
        installation_disk_path: '/dev/sda',
      });
    });

    it('applies a requested disk by id or by path (path wins)', () => {
      expect(
        agentToHost(
          inventoryStatus('known', '/dev/disk/by-id/a', { installation_disk_id: '/dev/disk/by-id/b' }),
        ),
      ).toMatchObject({ installation_disk_id: '/dev/disk/by-id/b', installation_disk_path: '/dev/sdb' });
      expect(
        agentToHost(
          inventoryStatus('known', '/dev/disk/by-id/a', {
            installation_disk_id: '/dev/disk/by-id/a',
            installation_disk_path: '/dev/disk/by-path/b',
          }),
        ),
      ).toMatchObject({ installation_disk_id: '/dev/disk/by-id/b' });
    });

    it('keeps the current disk for an ineligible request and reports it', () => {
      const a = inventoryStatus('known', '/dev/disk/by-id/a', { installation_disk_id: '/dev/disk/by-id/c' });
      const h = agentToHost(a);
      expect(h.installation_disk_id).toBe('/dev/disk/by-id/a');
      expect(agentSpecError(a, h)).toBe("Requested installation disk is not part of the host's valid disks");
    });

    it('ignores disk requests after installation started', () => {
      const a = inventoryStatus('installing', '/dev/disk/by-id/a', {
        installation_disk_id: '/dev/disk/by-id/b',
      });
      const h = agentToHost(a);
      expect(h.installation_disk_id).toBe('/dev/disk/by-id/a');
      expect(agentSpecError(a, h)).toBeUndefined();
    });
  });
});

describe('agentSpecError', () => {
  const h = host({ infra_env_id: INFRA_ENV_ID });
  it.each([
    ['["--append-karg","a=b"]', undefined],
    ['', undefined],
    ['not json', `Fail to unmarshal installer args for host ${HOST_ID} in infraEnv ${INFRA_ENV_ID}:`],
    [
      '{"a":1}',
      `Fail to unmarshal installer args for host ${HOST_ID} in infraEnv ${INFRA_ENV_ID}: expected a JSON array of strings`,
    ],
  ])('installer args %j', (installerArgs, expected) => {
    const error = agentSpecError(agent({ spec: { installerArgs } }), h);
    if (expected === undefined) expect(error).toBeUndefined();
    else expect(error?.startsWith(expected)).toBe(true);
  });

  it('rejects an invalid ignition override', () => {
    expect(
      agentSpecError(agent({ spec: { ignitionConfigOverrides: '{"ignition":{"version":"9.9.9"}}' } }), h),
    ).toMatch(/^error parsing ignition: /);
  });
});

describe('Agent status idempotence (property)', () => {
  it('random inventories: host → status → host → status is a fixpoint', () => {
    const random = randomInventories(99);
    for (let i = 0; i < 200; i++) {
      const h = fullHost({
        inventory: random(),
        installation_disk_id: undefined,
        installation_disk_path: undefined,
      });
      const a0 = agent({ spec: { approved: true } });
      const first = viaJson(project(h, a0));
      const a1 = agent({ spec: { approved: true }, status: first });
      const again = project(agentToHost(a1), a1, LATER);
      expect(again, `case ${i}`).toStrictEqual(first);
      expect(agentToHost(a1).inventory).toStrictEqual(h.inventory);
    }
  });
});

describe('cachedAgentToHost', () => {
  it('gives what agentToHost gives, with the facts of the call laid over the remembered record', () => {
    const a = viaJson({ ...agent(), status: hostToAgentStatus(fullHost(), agent(), { now: NOW }) }) as Agent;
    const first = cachedAgentToHost(a, { checked_in_at: NOW.toISOString() });
    expect(first).toEqual(agentToHost(a, { checked_in_at: NOW.toISOString() }));
    const later = cachedAgentToHost(a, { checked_in_at: LATER.toISOString() });
    expect(later).toEqual(agentToHost(a, { checked_in_at: LATER.toISOString() }));
    expect(cachedAgentToHost(a)).toEqual(agentToHost(a));
    // A new object (the cache's next version of the Agent) is converted afresh.
    const renamed = { ...a, spec: { ...a.spec, hostname: 'other' } } as Agent;
    expect(cachedAgentToHost(renamed)).toEqual(agentToHost(renamed));
  });
});
