// Pure BareMetalHost ↔ Agent mappings of the BMAC controller (kubeapi.md §3.6, §4.5): which Agent a
// BMH pairs with, what the BMH spec/metadata should become (image delivery), what the Agent spec and
// labels should become (annotations, approval, root-device hints) and the metal3 hardware details.
// Every function returns a merge-patch fragment (or nothing) so the controller writes each object at
// most once per reconcile, and only when something changed.
import type { Agent, BareMetalHost, HostDisk, InfraEnv } from '../../api/index.ts';
import {
  AGENT_BMH_LABEL,
  BACKUP_LABEL,
  BMH_AGENT_LABEL_ANNOTATION_PREFIX,
  BMH_CLUSTER_REFERENCE_ANNOTATION,
  BMH_DETACHED_ANNOTATION,
  BMH_HOSTNAME_ANNOTATION,
  BMH_IGNITION_CONFIG_OVERRIDES_ANNOTATION,
  BMH_IMAGE_DISK_FORMAT_LIVE_ISO,
  BMH_INSPECT_ANNOTATION,
  BMH_INSPECT_DISABLED,
  BMH_INSTALLER_ARGS_ANNOTATION,
  BMH_MACHINE_CONFIG_POOL_ANNOTATION,
  BMH_NODE_LABEL_ANNOTATION_PREFIX,
  BMH_ROLE_ANNOTATION,
  CUSTOM_DEPLOY_METHOD_ASSISTED,
} from '../../api/index.ts';
import { acceptableDisksWithHints, type RootDeviceHints } from '../../core/hardware/index.ts';
import type { Inventory } from '../../core/inventory.ts';

/** Installation disk id written when no inventory disk matches the hints (upstream's literal). */
export const DISK_NOT_FOUND_BY_HINTS = '/dev/not-found-by-hints';

/** Agent stages after which a non-converged BMH is detached (Failed, Rebooting, Joined, Done). */
const DETACH_STAGES = new Set(['Failed', 'Rebooting', 'Joined', 'Done']);

/** Agents of the namespace reporting `mac` on any interface; the newest wins (kubeapi.md §3.6). */
export function pickAgentForMac(candidates: readonly Agent[], mac: string | undefined): Agent | undefined {
  if (!mac) return undefined;
  const wanted = mac.toLowerCase();
  const matching = candidates.filter((a) =>
    (a.status?.inventory?.interfaces ?? []).some((i) => (i.macAddress ?? '').toLowerCase() === wanted),
  );
  matching.sort((a, b) =>
    (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? ''),
  );
  return matching[0];
}

export interface BmhPlan {
  /** Merge patch for the BMH; undefined when nothing changes. */
  patch: BmhPatch | undefined;
  /** Come back later (image cool-down). */
  requeueAfterMs?: number;
  /** Why image delivery stopped (for logs). */
  waiting?: string;
}

export interface BmhPatch {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string | null> };
  spec?: Record<string, unknown>;
}

export interface BmhPlanInput {
  bmh: BareMetalHost;
  infraEnv: InfraEnv | undefined;
  agent: Agent | undefined;
  converged: boolean;
  /** Converged flow: the same-named PreprovisioningImage is Ready with reason InfraEnvAvailable. */
  ppiReady: boolean;
  now: Date;
  coolDownMs: number;
}

/**
 * BMH changes: the backup label, image delivery (non-converged: inspection off, cleaning off,
 * image URL after the cool-down; converged: customDeploy once the PPI is ready) and the detached
 * annotation once the Agent is past the point of needing the discovery image.
 */
export function planBmh(input: BmhPlanInput): BmhPlan {
  const { bmh, infraEnv, agent } = input;
  const labels: Record<string, string> = {};
  const annotations: Record<string, string | null> = {};
  const spec: Record<string, unknown> = {};
  const plan: BmhPlan = { patch: undefined };
  const ann = bmh.metadata.annotations ?? {};
  if (infraEnv && bmh.metadata.labels?.[BACKUP_LABEL] !== 'true') labels[BACKUP_LABEL] = 'true';

  if (infraEnv && ann[BMH_DETACHED_ANNOTATION] === undefined) {
    if (input.converged) {
      if (bmh.spec.customDeploy?.method !== CUSTOM_DEPLOY_METHOD_ASSISTED) {
        if (input.ppiReady) spec.customDeploy = { method: CUSTOM_DEPLOY_METHOD_ASSISTED };
        else plan.waiting = 'PreprovisioningImage not ready';
      }
      if (bmh.status?.provisioning?.state === 'provisioned') {
        annotations[BMH_DETACHED_ANNOTATION] = 'assisted-service-controller';
      }
    } else {
      if (ann[BMH_INSPECT_ANNOTATION] === undefined)
        annotations[BMH_INSPECT_ANNOTATION] = BMH_INSPECT_DISABLED;
      if (bmh.spec.automatedCleaningMode !== 'disabled') spec.automatedCleaningMode = 'disabled';
      planImage(input, spec, plan);
      const stage = agent?.status?.progress?.currentStage;
      if (stage && DETACH_STAGES.has(stage)) {
        annotations[BMH_DETACHED_ANNOTATION] = 'assisted-service-controller';
      }
    }
  }
  const metadata: NonNullable<BmhPatch['metadata']> = {};
  if (Object.keys(labels).length) metadata.labels = labels;
  if (Object.keys(annotations).length) metadata.annotations = annotations;
  const patch: BmhPatch = {};
  if (Object.keys(metadata).length) patch.metadata = metadata;
  if (Object.keys(spec).length) patch.spec = spec;
  if (Object.keys(patch).length) plan.patch = patch;
  return plan;
}

function planImage(input: BmhPlanInput, spec: Record<string, unknown>, plan: BmhPlan): void {
  const { bmh, infraEnv } = input;
  const url = infraEnv?.status?.isoDownloadURL;
  if (!infraEnv || !url) {
    plan.waiting = 'InfraEnv has no ISO URL yet';
    return;
  }
  if (bmh.spec.image?.url === url) return;
  const created = Date.parse(infraEnv.status?.createdTime ?? '');
  if (!Number.isNaN(created)) {
    const remaining = created + input.coolDownMs - input.now.getTime();
    if (remaining > 0) {
      plan.requeueAfterMs = remaining;
      plan.waiting = 'InfraEnv image cooling down';
      return;
    }
  }
  const state = bmh.status?.provisioning?.state ?? '';
  if (state !== 'ready' && state !== 'available' && bmh.spec.image) {
    // A stale image on a host that is not idle: drop it first so the BMO deprovisions and the
    // next pass boots the new one.
    spec.image = null;
    return;
  }
  spec.image = { url, diskFormat: BMH_IMAGE_DISK_FORMAT_LIVE_ISO };
  spec.online = true;
}

export interface AgentPlan {
  /** Merge patch for the Agent; undefined when nothing changes. */
  patch: { metadata?: { labels: Record<string, string> }; spec?: Record<string, unknown> } | undefined;
  /** A BMH annotation could not be applied (reported as an event and log line). */
  error?: string;
}

/** The Agent spec and labels the BMH asks for (kubeapi.md §3.6 step 7). */
export function planAgent(bmh: BareMetalHost, agent: Agent, infraEnv: InfraEnv | undefined): AgentPlan {
  const ann = bmh.metadata.annotations ?? {};
  const spec: Record<string, unknown> = {};
  const labels: Record<string, string> = {};
  const current = agent.spec as Record<string, unknown>;
  const setString = (key: string, field: string) => {
    const value = ann[key];
    if (value !== undefined && current[field] !== value) spec[field] = value;
  };
  setString(BMH_ROLE_ANNOTATION, 'role');
  setString(BMH_HOSTNAME_ANNOTATION, 'hostname');
  setString(BMH_MACHINE_CONFIG_POOL_ANNOTATION, 'machineConfigPool');
  setString(BMH_INSTALLER_ARGS_ANNOTATION, 'installerArgs');
  setString(BMH_IGNITION_CONFIG_OVERRIDES_ANNOTATION, 'ignitionConfigOverrides');
  if (agent.spec.approved !== true) spec.approved = true;
  const name = bmh.metadata.name ?? '';
  if (agent.metadata.labels?.[AGENT_BMH_LABEL] !== name) labels[AGENT_BMH_LABEL] = name;

  const hints = bmh.spec.rootDeviceHints;
  if (hints && Object.keys(hints).length > 0) {
    const disk = diskForHints(agent, hints);
    if (agent.spec.installation_disk_id !== disk) spec.installation_disk_id = disk;
  }

  let error: string | undefined;
  const ref = ann[BMH_CLUSTER_REFERENCE_ANNOTATION];
  if (ref !== undefined) {
    const result = clusterReference(ref, agent, infraEnv);
    if ('error' in result) error = result.error;
    else if (result.change !== undefined) spec.clusterDeploymentName = result.change;
  }

  const nodeLabels = prefixed(ann, BMH_NODE_LABEL_ANNOTATION_PREFIX);
  if (Object.keys(nodeLabels).length > 0 && !sameRecord(nodeLabels, agent.spec.nodeLabels ?? {})) {
    // Replace-all: a merge patch would keep user labels, so null out the ones not asked for.
    const replaced: Record<string, string | null> = { ...nodeLabels };
    for (const k of Object.keys(agent.spec.nodeLabels ?? {})) if (!(k in nodeLabels)) replaced[k] = null;
    spec.nodeLabels = replaced;
  }
  for (const [k, v] of Object.entries(prefixed(ann, BMH_AGENT_LABEL_ANNOTATION_PREFIX))) {
    if (agent.metadata.labels?.[k] !== v) labels[k] = v;
  }

  const patch: NonNullable<AgentPlan['patch']> = {};
  if (Object.keys(labels).length) patch.metadata = { labels };
  if (Object.keys(spec).length) patch.spec = spec;
  return { patch: Object.keys(patch).length ? patch : undefined, ...(error ? { error } : {}) };
}

type ClusterRefResult =
  | { error: string }
  | { change: { name: string; namespace: string } | null | undefined };

/** The cluster-reference annotation: `ns/name` binds, "" unbinds (only without an InfraEnv clusterRef). */
export function clusterReference(
  value: string,
  agent: Agent,
  infraEnv: InfraEnv | undefined,
): ClusterRefResult {
  const ieRef = infraEnv?.spec.clusterRef;
  if (ieRef?.name) {
    return {
      error: `failed to reconcile cluster reference.  InfraEnv already has cluster reference ${ieRef.namespace}/${ieRef.name}`,
    };
  }
  const existing = agent.spec.clusterDeploymentName;
  if (value === '') return { change: existing?.name ? null : undefined };
  const parts = value.split('/');
  if (parts.length !== 2 || !parts[0] || !parts[1]) {
    return {
      error: `failed to reconcile cluster reference: invalid value ${JSON.stringify(value)}, want <namespace>/<name>`,
    };
  }
  const [namespace, name] = parts as [string, string];
  if (existing?.name === name && existing.namespace === namespace) return { change: undefined };
  return { change: { name, namespace } };
}

function prefixed(ann: Record<string, string>, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(ann)) {
    if (k.startsWith(prefix) && k.length > prefix.length) out[k.slice(prefix.length)] = v;
  }
  return out;
}

function sameRecord(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

/** The CR inventory disk in the core's shape, enough for the hint matcher. */
function coreDisk(d: HostDisk): NonNullable<Inventory['disks']>[number] {
  const eligibility = d.installationEligibility;
  return {
    id: d.id,
    path: d.path,
    by_path: d.byPath,
    hctl: d.hctl,
    model: d.model,
    vendor: d.vendor,
    serial: d.serial,
    wwn: d.wwn,
    size_bytes: d.sizeBytes,
    drive_type: d.driveType,
    ...(eligibility
      ? {
          installation_eligibility: {
            eligible: eligibility.eligible,
            not_eligible_reasons: eligibility.notEligibleReasons ?? [],
          },
        }
      : {}),
  } as NonNullable<Inventory['disks']>[number];
}

/**
 * The installation disk for the BMH's root-device hints: a matching Multipath disk if any, else the
 * first match, else DISK_NOT_FOUND_BY_HINTS (which the Agent then reports as an input error).
 */
export function diskForHints(agent: Agent, hints: RootDeviceHints): string {
  const disks = (agent.status?.inventory?.disks ?? []).map(coreDisk);
  const matches = acceptableDisksWithHints({ disks } as Inventory, hints);
  const chosen = matches.find((d) => d.drive_type === 'Multipath') ?? matches[0];
  return chosen?.id || DISK_NOT_FOUND_BY_HINTS;
}

/** metal3 HardwareDetails from the Agent inventory (kubeapi.md §3.6 step 8). */
export function hardwareDetails(agent: Agent): Record<string, unknown> | undefined {
  const inv = agent.status?.inventory;
  if (!inv?.interfaces?.length) return undefined;
  const nics: Record<string, unknown>[] = [];
  for (const nic of inv.interfaces) {
    for (const ip of [...(nic.ipV6Addresses ?? []), ...(nic.ipV4Addresses ?? [])]) {
      nics.push({
        ip: ip.split('/')[0],
        name: nic.name ?? '',
        model: nic.vendor ?? '',
        mac: nic.macAddress ?? '',
        speedGbps: Math.floor((nic.speedMbps ?? 0) / 1024),
      });
    }
  }
  const storage = (inv.disks ?? []).map((d) => ({
    name: d.byPath || d.path || '',
    hctl: d.hctl ?? '',
    model: d.model ?? '',
    sizeBytes: d.sizeBytes ?? 0,
    serialNumber: d.serial ?? '',
    wwn: d.wwn ?? '',
    vendor: d.vendor ?? '',
    rotational: d.driveType === 'HDD',
  }));
  const physical = inv.memory?.physicalBytes ?? 0;
  return {
    nics,
    storage,
    ...(physical > 0 ? { ramMebibytes: Math.floor(physical / (1024 * 1024)) } : {}),
    cpu: {
      arch: inv.cpu?.architecture ?? '',
      model: inv.cpu?.modelName ?? '',
      clockMegahertz: inv.cpu?.clockMegahertz ?? 0,
      flags: inv.cpu?.flags ?? [],
      count: inv.cpu?.count ?? 0,
    },
    systemVendor: {
      manufacturer: inv.systemVendor?.manufacturer ?? '',
      productName: inv.systemVendor?.productName ?? '',
      serialNumber: inv.systemVendor?.serialNumber ?? '',
    },
    hostname: agent.spec.hostname || inv.hostname || '',
  };
}
