// The Agent reconcile as a pure function: pending step results, spec errors, late binding, the
// host monitor with warm-up, and its idempotence (a second pass over its own output changes nothing).
import { describe, expect, it } from 'vitest';
import type { Agent } from '../../../../src/api/index.ts';
import {
  installerArgsError,
  keepStoredValidations,
  nodeLabelsError,
  type RefreshOutput,
  refreshAgent,
} from '../../../../src/controllers/agent/refresh.ts';
import { type AgentCluster, clusterFromResources, hostToAgentStatus } from '../../../../src/records/index.ts';
import {
  agentClusterInstall,
  clusterDeployment,
  clusterImageSet,
  PULL_SECRET,
  CLUSTER_ID as RECORDS_CLUSTER_ID,
} from '../../records/fixtures.ts';
import { agent, HOST_ID, inventory, NOW, refreshInput } from './fixtures.ts';

/** The Agent after writing a refresh's status (what the next reconcile reads). */
function written(before: Agent, out: RefreshOutput, now = NOW): Agent {
  return JSON.parse(
    JSON.stringify({
      ...before,
      status: hostToAgentStatus(out.host, before, {
        now,
        ...(out.specSyncError ? { specSyncError: out.specSyncError } : {}),
      }),
    }),
  ) as Agent;
}

function cluster(): AgentCluster {
  const result = clusterFromResources({
    cd: clusterDeployment(),
    aci: agentClusterInstall(),
    clusterImageSet: clusterImageSet(),
    pullSecret: PULL_SECRET,
    agents: [],
    now: NOW,
  });
  if (!result.cluster) throw new Error(result.error?.message);
  return result.cluster;
}

function discovered(): Agent {
  const a = agent();
  return written(a, refreshAgent(refreshInput({ agent: a, pending: { inventory: inventory() } })));
}

describe('refreshAgent', () => {
  it('applies a pending inventory: disk chosen, validations computed, host known-unbound', () => {
    const out = refreshAgent(refreshInput({ pending: { inventory: inventory() } }));
    expect(out.host.status).toBe('known-unbound');
    expect(out.host.inventory?.hostname).toBe('worker-0');
    expect(out.host.installation_disk_id).toBe('/dev/disk/by-path/pci-0000:00:04.0');
    expect(out.host.validations_info?.hardware?.find((v) => v.id === 'has-min-valid-disks')?.status).toBe(
      'success',
    );
    expect(out.events.map((e) => e.name)).toContain('host_status_updated');
    expect(out.specSyncError).toBeUndefined();
  });

  it('is idempotent: refreshing its own output changes nothing', () => {
    const a = discovered();
    const again = refreshAgent(refreshInput({ agent: a }));
    expect(written(a, again).status).toEqual(a.status);
    expect(again.events).toEqual([]);
  });

  it('stays discovering without an inventory', () => {
    const out = refreshAgent(refreshInput());
    expect(out.host.status).toBe('discovering-unbound');
  });

  it('disconnects a host that has not checked in within the window', () => {
    const late = new Date(NOW.getTime() + 4 * 60_000);
    const out = refreshAgent(refreshInput({ agent: discovered(), now: late }));
    expect(out.host.status).toBe('disconnected-unbound');
    expect(out.host.validations_info?.network?.find((v) => v.id === 'connected')?.status).toBe('failure');
  });

  it('during the warm-up keeps the stored results of validations that need memory facts', () => {
    const late = new Date(NOW.getTime() + 4 * 60_000);
    const out = refreshAgent(refreshInput({ agent: discovered(), now: late, warm: false }));
    expect(out.host.status).toBe('known-unbound');
    expect(out.host.validations_info?.network?.find((v) => v.id === 'connected')?.status).toBe('success');
  });

  it('reports bad installer args and node labels as input errors and does not apply them', () => {
    const a = agent({ spec: { installerArgs: '["--fancy"]', nodeLabels: { 'bad key': 'x' } } });
    const out = refreshAgent(refreshInput({ agent: a }));
    expect(out.specSyncError).toEqual({
      kind: 'input',
      message:
        'found unexpected flag --fancy for installer - allowed flags are [--append-karg --delete-karg -n --copy-network --network-dir --save-partlabel --save-partindex --image-url --image-file]',
    });
    expect(out.host.installer_args).toBeUndefined();
    expect(out.host.node_labels).toBeUndefined();
  });

  it('reports a ClusterDeployment it cannot read as a backend error', () => {
    const error = { kind: 'backend' as const, message: 'failed to get clusterDeployment' };
    const out = refreshAgent(refreshInput({ desired: { kind: 'unavailable', error } }));
    expect(out.specSyncError).toEqual(error);
  });

  it('binds a known-unbound host to the cluster its spec names', () => {
    const c = cluster();
    const out = refreshAgent(
      refreshInput({
        agent: discovered(),
        desired: { kind: 'cluster', clusterId: RECORDS_CLUSTER_ID, cluster: c },
      }),
    );
    expect(out.host.status).toBe('binding');
    expect(out.host.cluster_id).toBe(RECORDS_CLUSTER_ID);
    expect(out.host.inventory).toBeUndefined();
  });

  it('waits to bind until the host is known-unbound', () => {
    const c = cluster();
    const out = refreshAgent(
      refreshInput({ desired: { kind: 'cluster', clusterId: RECORDS_CLUSTER_ID, cluster: c } }),
    );
    expect(out.host.status).toBe('discovering-unbound');
    expect(out.specSyncError).toBeUndefined();
  });

  it('unbinds a bound host whose reference was removed, recording deprovision_info', () => {
    const c = cluster();
    const bound = agent({
      status: {
        role: 'auto-assign',
        debugInfo: { state: 'discovering', stateInfo: 'Waiting for host to send hardware details' },
        backend: { infraEnvID: 'x', clusterID: RECORDS_CLUSTER_ID, role: 'auto-assign' },
      },
    });
    const out = refreshAgent(
      refreshInput({ agent: bound, current: { cluster: c, cdName: 'spoke', cdNamespace: 'spoke' } }),
    );
    expect(out.host.status).toBe('unbinding');
    expect(out.host.cluster_id).toBeNull();
    expect(out.deprovisionInfo).toMatchObject({ cluster_name: 'spoke', cluster_namespace: 'spoke' });
    expect(out.resetCsrStatus).toBe(true);
  });

  it('reclaims an installed host when the reclaim objects are on the spoke, else unbinds it', () => {
    const c = cluster();
    const installed = agent({
      status: {
        role: 'worker',
        debugInfo: {
          state: 'added-to-existing-cluster',
          stateInfo:
            'Host has rebooted and no further updates will be posted. Please check console for progress and to possibly troubleshoot.',
        },
        backend: {
          infraEnvID: 'x',
          clusterID: RECORDS_CLUSTER_ID,
          role: 'worker',
        },
      },
    });
    const input = refreshInput({
      agent: installed,
      current: { cluster: c, cdName: 'spoke', cdNamespace: 'spoke' },
    });
    const plain = refreshAgent(input);
    expect(plain.host.status).toBe('unbinding-pending-user-action');
    expect(plain.unbound).toEqual({ from: 'added-to-existing-cluster', nodeName: expect.any(String) });
    const reclaimed = refreshAgent({ ...input, reclaim: true });
    expect(reclaimed.host.status).toBe('reclaiming');
    expect(reclaimed.host.cluster_id).toBeNull();
    expect(reclaimed.deprovisionInfo).toMatchObject({ cluster_name: 'spoke', cluster_namespace: 'spoke' });
    expect(reclaimed.resetCsrStatus).toBe(true);
    // The next pass has nothing to unbind.
    const again = refreshAgent({ ...input, agent: written(installed, reclaimed), reclaim: true });
    expect(again.unbound).toBeUndefined();
    expect(again.host.status).toBe('reclaiming');
  });

  it('a reclaim flag on a host that is not installed is a plain unbind', () => {
    const c = cluster();
    const bound = agent({
      status: {
        role: 'auto-assign',
        debugInfo: { state: 'discovering', stateInfo: 'Waiting for host to send hardware details' },
        backend: { infraEnvID: 'x', clusterID: RECORDS_CLUSTER_ID, role: 'auto-assign' },
      },
    });
    const out = refreshAgent({
      ...refreshInput({ agent: bound, current: { cluster: c, cdName: 'spoke', cdNamespace: 'spoke' } }),
      reclaim: true,
    });
    expect(out.host.status).toBe('unbinding');
    expect(out.unbound?.from).toBe('discovering');
  });

  it('moves a host between clusters by unbinding it first', () => {
    const c = cluster();
    const bound = agent({
      spec: { clusterDeploymentName: { name: 'other', namespace: 'spoke' } },
      status: {
        role: 'auto-assign',
        debugInfo: { state: 'known', stateInfo: 'Host is ready to be installed' },
        backend: { clusterID: RECORDS_CLUSTER_ID, role: 'auto-assign' },
      },
    });
    const other = { ...c, id: '99999999-0000-4000-8000-000000000099' };
    const out = refreshAgent(
      refreshInput({
        agent: bound,
        desired: { kind: 'cluster', clusterId: other.id, cluster: other },
        current: { cluster: c, cdName: 'spoke', cdNamespace: 'spoke' },
      }),
    );
    expect(out.host.status).toBe('unbinding');
    expect(out.host.cluster_id).toBeNull();
  });

  it('refuses to release a day-1 host in the middle of installation', () => {
    const c = cluster();
    const installing = agent({
      status: {
        role: 'master',
        debugInfo: { state: 'installing-in-progress', stateInfo: 'Installing' },
        backend: { clusterID: RECORDS_CLUSTER_ID, role: 'master' },
      },
    });
    const out = refreshAgent(refreshInput({ agent: installing, current: { cluster: c } }));
    expect(out.specSyncError?.message).toBe(
      `cancelling non-day-2 host [${HOST_ID}] in the middle of installation is not allowed`,
    );
    expect(out.host.cluster_id).toBe(RECORDS_CLUSTER_ID);
  });

  it('applies media disconnection and install failures from step replies', () => {
    const c = cluster();
    const bound = (state: string) =>
      agent({
        spec: { clusterDeploymentName: { name: 'spoke', namespace: 'spoke' } },
        status: {
          role: 'master',
          debugInfo: { state, stateInfo: '' },
          backend: { clusterID: RECORDS_CLUSTER_ID, role: 'master' },
        },
      });
    const desired = { kind: 'cluster' as const, clusterId: RECORDS_CLUSTER_ID, cluster: c };
    const media = refreshAgent(
      refreshInput({
        agent: bound('discovering'),
        desired,
        current: { cluster: c },
        pending: { mediaDisconnected: true },
      }),
    );
    expect(media.host.media_status).toBe('disconnected');
    expect(media.host.status).toBe('disconnected');
    const failed = refreshAgent(
      refreshInput({
        agent: bound('installing'),
        desired,
        current: { cluster: c },
        pending: { installFailed: 'installation command failed' },
      }),
    );
    expect(failed.host.status).toBe('error');
    expect(failed.host.status_info).toBe('installation command failed');
  });
});

describe('refresh helpers', () => {
  it('installerArgsError parses JSON and checks flags', () => {
    const a = (installerArgs: string) => agent({ spec: { installerArgs } });
    expect(installerArgsError(a('["--append-karg", "console=ttyS0"]'), 'ie')).toBeUndefined();
    expect(installerArgsError(a('["--append-karg=x"]'), 'ie')).toBeUndefined();
    expect(installerArgsError(a('not json'), 'ie')).toMatch(
      /^Fail to unmarshal installer args for host .* in infraEnv ie: /,
    );
    expect(installerArgsError(a('"--save-partlabel"'), 'ie')).toMatch(/expected a JSON array of strings/);
  });

  it('nodeLabelsError names the first bad key or value', () => {
    expect(nodeLabelsError({ 'node-role.kubernetes.io/infra': '' })).toBeUndefined();
    expect(nodeLabelsError({ 'a b': 'x' })).toMatch(/^invalid node label key "a b"/);
    expect(nodeLabelsError({ ok: 'bad value!' })).toMatch(
      /^invalid node label value "bad value!" for key "ok"/,
    );
  });

  it('keepStoredValidations replaces only the listed ids and their conditions', () => {
    const computed = {
      validationsInfo: {
        network: [
          { id: 'connected', status: 'failure' as const, message: 'Host is disconnected' },
          { id: 'has-default-route', status: 'failure' as const, message: 'no route' },
        ],
      },
      conditions: { connected: false, 'has-default-route': false },
    };
    const stored = {
      network: [{ id: 'connected', status: 'success' as const, message: 'Host is connected' }],
    };
    const kept = keepStoredValidations(computed, stored, ['connected']);
    expect(kept.validationsInfo.network?.[0]).toEqual({
      id: 'connected',
      status: 'success',
      message: 'Host is connected',
    });
    expect(kept.validationsInfo.network?.[1]?.status).toBe('failure');
    expect(kept.conditions).toEqual({ connected: true, 'has-default-route': false });
  });
});
