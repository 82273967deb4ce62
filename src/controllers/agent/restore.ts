// Restoring a host from an Agent that has lost its status (kubeapi.md §3.4.2): a backup tool such
// as Velero restores objects without status, but the Agent controller keeps the host's state, role,
// raw inventory, validations and stage in annotations for exactly this. Upstream recreates its
// database row from them; here the status is rebuilt from them, then the usual reconcile runs.

import type { Agent, AgentStatus, HostProgress, ValidationsStatus } from '../../api/index.ts';
import {
  AGENT_CURRENT_STAGE_ANNOTATION,
  AGENT_INVENTORY_ANNOTATION,
  AGENT_ROLE_ANNOTATION,
  AGENT_STATE_ANNOTATION,
  AGENT_VALIDATIONS_INFO_ANNOTATION,
  HOST_STAGES,
  HOST_STATES,
} from '../../api/index.ts';
import type { Inventory } from '../../core/inventory.ts';
import { hasHostState } from '../../records/agents/cache.ts';
import { ownerInfraEnvUid } from '../../records/hosts/access.ts';
import { inventoryToStatus } from '../../records/index.ts';

function parse<T>(text: string | undefined): T | undefined {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

/**
 * The Agent with a status rebuilt from its backup annotations, or undefined when it has a status
 * (nothing to restore) or no annotations (a new Agent). `clusterId` is the cluster its spec names,
 * when that cluster exists; the host is restored as bound to it.
 */
export function restoreFromAnnotations(agent: Agent, clusterId: string | undefined): Agent | undefined {
  // The cache keeps these annotations whole on exactly such an Agent (records/agents/cache.ts).
  if (hasHostState(agent)) return undefined;
  const ann = agent.metadata.annotations ?? {};
  if (!ann[AGENT_STATE_ANNOTATION] && !ann[AGENT_INVENTORY_ANNOTATION]) return undefined;
  const stored = ann[AGENT_STATE_ANNOTATION] ?? '';
  const bound = clusterId !== undefined && !stored.endsWith('-unbound');
  const state = (HOST_STATES as readonly string[]).includes(stored)
    ? stored
    : bound
      ? 'known'
      : 'known-unbound';
  const role = ann[AGENT_ROLE_ANNOTATION] || 'auto-assign';
  const inventory = parse<Inventory>(ann[AGENT_INVENTORY_ANNOTATION]);
  const converted = inventory ? inventoryToStatus(inventory) : undefined;
  const stage = ann[AGENT_CURRENT_STAGE_ANNOTATION];
  const progress: HostProgress =
    stage && (HOST_STAGES as readonly string[]).includes(stage) ? { currentStage: stage } : {};
  const created = agent.metadata.creationTimestamp;
  const infraEnvID = ownerInfraEnvUid(agent);
  const status: AgentStatus = {
    ...agent.status,
    role: role === 'auto-assign' ? '' : role,
    debugInfo: { ...agent.status?.debugInfo, state },
    ...(converted ? { inventory: converted.inventory } : {}),
    ...(parse<ValidationsStatus>(ann[AGENT_VALIDATIONS_INFO_ANNOTATION])
      ? { validationsInfo: parse<ValidationsStatus>(ann[AGENT_VALIDATIONS_INFO_ANNOTATION]) }
      : {}),
    progress,
    backend: {
      ...(bound ? { clusterID: clusterId } : {}),
      ...(infraEnvID ? { infraEnvID } : {}),
      role,
      suggestedRole: role,
      ...(created ? { registeredAt: created, statusUpdatedAt: created } : {}),
      ...(converted ? { inventoryExtra: converted.extra } : {}),
    },
  };
  return { ...agent, status };
}
