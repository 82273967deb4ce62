// What the Agent reconciler keeps in Agent metadata (kubeapi.md §3.4.3, §3.4.6, §4.1): the
// InfraEnv label and owner reference, the inventory labels, the backup annotations (state, role,
// raw inventory, validations, current stage) and, with auto-approval, spec.approved; with an
// inventory that pairs the host with its BMH, BMAC's spec and labels too (bmh-spec.ts). Computed as
// one merge patch that is sent only when something differs.

import type { Agent, InfraEnv } from '../../api/index.ts';
import {
  AGENT_CURRENT_STAGE_ANNOTATION,
  AGENT_INVENTORY_ANNOTATION,
  AGENT_ROLE_ANNOTATION,
  AGENT_STATE_ANNOTATION,
  AGENT_VALIDATIONS_INFO_ANNOTATION,
  CLUSTER_DEPLOYMENT_NAMESPACE_LABEL,
  INFRAENV_LABEL,
  INVENTORY_CPU_ARCHITECTURE_LABEL,
  INVENTORY_CPU_VIRT_ENABLED_LABEL,
  INVENTORY_HAS_NONROTATIONAL_DISK_LABEL,
  INVENTORY_HOST_IS_VIRTUAL_LABEL,
  INVENTORY_HOST_MANUFACTURER_LABEL,
  INVENTORY_HOST_PRODUCT_NAME_LABEL,
  INVENTORY_VERSION,
  INVENTORY_VERSION_ANNOTATION,
} from '../../api/index.ts';
import type { Host } from '../../core/model.ts';
import type { OwnerReference } from '../../runtime/index.ts';
import { stableJson } from '../../util/stable-json.ts';
import { sameAnnotationValue } from './cache.ts';

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/**
 * Upstream's label value sanitising: characters outside [-A-Za-z0-9_.] are stripped; a result that
 * is still not a valid label value (too long, bad first/last character) yields undefined (skip).
 */
export function sanitizeLabelValue(value: string): string | undefined {
  const stripped = value.replace(/[^-A-Za-z0-9_.]/g, '');
  return stripped.length <= 63 && LABEL_VALUE.test(stripped) ? stripped : undefined;
}

const INVENTORY_LABELS = [
  INVENTORY_HAS_NONROTATIONAL_DISK_LABEL,
  INVENTORY_CPU_ARCHITECTURE_LABEL,
  INVENTORY_CPU_VIRT_ENABLED_LABEL,
  INVENTORY_HOST_MANUFACTURER_LABEL,
  INVENTORY_HOST_PRODUCT_NAME_LABEL,
  INVENTORY_HOST_IS_VIRTUAL_LABEL,
];

/** Inventory labels of a host; `undefined` values mean "remove" (no inventory or invalid value). */
export function inventoryLabels(
  host: Pick<Host, 'inventory'>,
  clusterDeploymentNamespace: string,
): Record<string, string | undefined> {
  const inv = host.inventory;
  if (!inv) return Object.fromEntries(INVENTORY_LABELS.map((k) => [k, undefined]));
  const flags = inv.cpu?.flags ?? [];
  const raw: Record<string, string> = {
    [INVENTORY_HAS_NONROTATIONAL_DISK_LABEL]: String((inv.disks ?? []).some((d) => d.drive_type === 'SSD')),
    [INVENTORY_CPU_ARCHITECTURE_LABEL]: inv.cpu?.architecture ?? '',
    [INVENTORY_CPU_VIRT_ENABLED_LABEL]: String(flags.includes('vmx') || flags.includes('svm')),
    [INVENTORY_HOST_MANUFACTURER_LABEL]: inv.system_vendor?.manufacturer ?? '',
    [INVENTORY_HOST_PRODUCT_NAME_LABEL]: inv.system_vendor?.product_name ?? '',
    [INVENTORY_HOST_IS_VIRTUAL_LABEL]: String(inv.system_vendor?.virtual === true),
    [CLUSTER_DEPLOYMENT_NAMESPACE_LABEL]: clusterDeploymentNamespace,
  };
  return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, sanitizeLabelValue(v)]));
}

/** The backup annotations upstream reads when it restores a host (§3.4.2, §3.4.3). */
export function backupAnnotations(host: Host): Record<string, string | undefined> {
  return {
    [AGENT_STATE_ANNOTATION]: host.status,
    [AGENT_ROLE_ANNOTATION]: host.role,
    [AGENT_INVENTORY_ANNOTATION]: host.inventory ? stableJson(host.inventory) : undefined,
    [AGENT_VALIDATIONS_INFO_ANNOTATION]:
      host.validations_info && Object.keys(host.validations_info).length > 0
        ? stableJson(host.validations_info)
        : undefined,
    [AGENT_CURRENT_STAGE_ANNOTATION]: host.progress?.current_stage || undefined,
    [INVENTORY_VERSION_ANNOTATION]: host.inventory ? INVENTORY_VERSION : undefined,
  };
}

export interface MetadataInputs {
  agent: Agent;
  host: Host | undefined;
  infraEnv: InfraEnv | undefined;
  /** Namespace of the ClusterDeployment the host is bound to ("" when unbound). */
  clusterDeploymentNamespace: string;
  /** InfraEnv spec.agentApproval.autoApprove applies. */
  autoApprove: boolean;
  /** The labels and spec BMAC asks for, folded into the same patch (records/agents/bmh-spec.ts). */
  bmac?: { metadata?: { labels: Record<string, string> }; spec?: Record<string, unknown> } | undefined;
}

/** The owner reference an InfraEnv's Agents carry (set at registration, restored by the reconciler). */
export function infraEnvOwner(ie: InfraEnv): OwnerReference {
  return {
    apiVersion: ie.apiVersion ?? 'agent-install.openshift.io/v1beta1',
    kind: 'InfraEnv',
    name: ie.metadata.name ?? '',
    uid: ie.metadata.uid ?? '',
  };
}

/**
 * The merge patch that brings the Agent's metadata (and spec.approved, BMAC's spec) to what it
 * should be, or undefined when it already is. It carries the resourceVersion, so a concurrent change fails it
 * with a conflict instead of being overwritten.
 */
export function agentMetadataPatch(m: MetadataInputs): Record<string, unknown> | undefined {
  const { agent } = m;
  const labels = agent.metadata.labels ?? {};
  const annotations = agent.metadata.annotations ?? {};
  const wantLabels: Record<string, string | undefined> = {};
  if (m.infraEnv) wantLabels[INFRAENV_LABEL] = m.infraEnv.metadata.name;
  if (m.host?.inventory) Object.assign(wantLabels, inventoryLabels(m.host, m.clusterDeploymentNamespace));
  const wantAnnotations = m.host ? backupAnnotations(m.host) : {};

  const diff = (have: Record<string, string>, want: Record<string, string | undefined>) => {
    const out: Record<string, string | null> = {};
    for (const [k, v] of Object.entries(want)) {
      if (v === undefined) {
        if (k in have) out[k] = null;
      } else if (!sameAnnotationValue(k, have[k], v)) out[k] = v;
    }
    return out;
  };
  const labelPatch = { ...diff(labels, wantLabels), ...(m.bmac?.metadata?.labels ?? {}) };
  const annotationPatch = diff(annotations, wantAnnotations);
  const metadata: Record<string, unknown> = {};
  if (Object.keys(labelPatch).length > 0) metadata.labels = labelPatch;
  if (Object.keys(annotationPatch).length > 0) metadata.annotations = annotationPatch;
  if (m.infraEnv?.metadata.uid) {
    const owners = agent.metadata.ownerReferences ?? [];
    if (!owners.some((o) => o.uid === m.infraEnv!.metadata.uid)) {
      metadata.ownerReferences = [...owners, infraEnvOwner(m.infraEnv)];
    }
  }
  const spec: Record<string, unknown> = { ...(m.bmac?.spec ?? {}) };
  if (m.autoApprove && agent.spec.approved !== true) spec.approved = true;
  const hasSpec = Object.keys(spec).length > 0;
  if (Object.keys(metadata).length === 0 && !hasSpec) return undefined;
  return {
    metadata: { ...metadata, resourceVersion: agent.metadata.resourceVersion },
    ...(hasSpec ? { spec } : {}),
  };
}
