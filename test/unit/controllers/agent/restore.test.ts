// An Agent restored without status gets its host record back from the backup annotations.
import { describe, expect, it } from 'vitest';
import { refreshAgent } from '../../../../src/controllers/agent/refresh.ts';
import { restoreFromAnnotations } from '../../../../src/controllers/agent/restore.ts';
import { backupAnnotations } from '../../../../src/records/agents/metadata.ts';
import { stableJson } from '../../../../src/util/stable-json.ts';
import { agent, CLUSTER_ID, inventory, refreshInput } from './fixtures.ts';

describe('restoreFromAnnotations', () => {
  it('leaves Agents with a status, or without backup annotations, alone', () => {
    expect(restoreFromAnnotations(agent(), undefined)).toBeUndefined();
    const bare = agent();
    delete bare.status;
    expect(restoreFromAnnotations(bare, undefined)).toBeUndefined();
  });

  it('rebuilds state, role, inventory and validations, and the refresh takes it from there', () => {
    const known = refreshAgent(refreshInput({ pending: { inventory: inventory() } })).host;
    const backedUp = agent();
    delete backedUp.status;
    backedUp.metadata.creationTimestamp = '2025-06-01T11:00:00Z';
    backedUp.metadata.annotations = Object.fromEntries(
      Object.entries(backupAnnotations(known)).filter(([, v]) => v !== undefined),
    ) as Record<string, string>;
    const restored = restoreFromAnnotations(backedUp, undefined);
    expect(restored?.status?.debugInfo?.state).toBe('known-unbound');
    expect(restored?.status?.inventory?.hostname).toBe('worker-0');
    expect(restored?.status?.backend?.registeredAt).toBe('2025-06-01T11:00:00Z');
    const out = refreshAgent(refreshInput({ agent: restored! }));
    expect(out.host.status).toBe('known-unbound');
    expect(stableJson(out.host.inventory)).toBe(stableJson(known.inventory));
  });

  it('restores a host as bound to the cluster its spec names', () => {
    const a = agent();
    delete a.status;
    a.metadata.annotations = { 'agent.agent-install.openshift.io/state': 'insufficient' };
    expect(restoreFromAnnotations(a, CLUSTER_ID)?.status?.backend?.clusterID).toBe(CLUSTER_ID);
    a.metadata.annotations = { 'agent.agent-install.openshift.io/inventory': stableJson(inventory()) };
    expect(restoreFromAnnotations(a, CLUSTER_ID)?.status?.debugInfo?.state).toBe('known');
    expect(restoreFromAnnotations(a, undefined)?.status?.debugInfo?.state).toBe('known-unbound');
  });
});
