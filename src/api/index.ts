// Kind table: every resource type the operator owns (CRDs generated from src/api) or uses
// (external kinds, stand-in CRDs for environments without Hive or metal3).

import type { z } from 'zod';
import {
  AGENT_GROUP,
  AGENT_KIND,
  AGENT_PLURAL,
  AGENT_VERSION,
  agentSchema,
  agentSpecSchema,
  agentStatusSchema,
} from './agent.ts';
import {
  AGENTCLASSIFICATION_GROUP,
  AGENTCLASSIFICATION_KIND,
  AGENTCLASSIFICATION_PLURAL,
  AGENTCLASSIFICATION_VERSION,
  agentClassificationSchema,
  agentClassificationSpecSchema,
  agentClassificationStatusSchema,
} from './agentclassification.ts';
import {
  AGENTCLUSTERINSTALL_GROUP,
  AGENTCLUSTERINSTALL_KIND,
  AGENTCLUSTERINSTALL_PLURAL,
  AGENTCLUSTERINSTALL_SHORT_NAME,
  AGENTCLUSTERINSTALL_VERSION,
  agentClusterInstallSchema,
  agentClusterInstallSpecSchema,
  agentClusterInstallStatusSchema,
} from './agentclusterinstall.ts';
import {
  AGENTSERVICECONFIG_GROUP,
  AGENTSERVICECONFIG_KIND,
  AGENTSERVICECONFIG_PLURAL,
  AGENTSERVICECONFIG_VERSION,
  agentServiceConfigSchema,
  agentServiceConfigSpecSchema,
  agentServiceConfigStatusSchema,
} from './agentserviceconfig.ts';
import {
  BAREMETALHOST_GROUP,
  BAREMETALHOST_KIND,
  BAREMETALHOST_PLURAL,
  BAREMETALHOST_VERSION,
  bareMetalHostSchema,
  bareMetalHostSpecSchema,
  bareMetalHostStatusSchema,
} from './baremetalhost.ts';
import {
  CLUSTERDEPLOYMENT_GROUP,
  CLUSTERDEPLOYMENT_KIND,
  CLUSTERDEPLOYMENT_PLURAL,
  CLUSTERDEPLOYMENT_VERSION,
  clusterDeploymentSchema,
  clusterDeploymentSpecSchema,
  clusterDeploymentStatusSchema,
} from './clusterdeployment.ts';
import {
  CLUSTERIMAGESET_GROUP,
  CLUSTERIMAGESET_KIND,
  CLUSTERIMAGESET_PLURAL,
  CLUSTERIMAGESET_VERSION,
  clusterImageSetSchema,
  clusterImageSetSpecSchema,
  clusterImageSetStatusSchema,
} from './clusterimageset.ts';
import {
  INFRAENV_GROUP,
  INFRAENV_KIND,
  INFRAENV_PLURAL,
  INFRAENV_VERSION,
  infraEnvSchema,
  infraEnvSpecSchema,
  infraEnvStatusSchema,
} from './infraenv.ts';
import {
  MACHINE_GROUP,
  MACHINE_KIND,
  MACHINE_PLURAL,
  MACHINE_VERSION,
  MACHINESET_KIND,
  MACHINESET_PLURAL,
  machineSchema,
  machineSetSchema,
  machineSetSpecSchema,
  machineSetStatusSchema,
  machineSpecSchema,
  machineStatusSchema,
} from './machine.ts';
import {
  MACHINECONFIGPOOL_GROUP,
  MACHINECONFIGPOOL_KIND,
  MACHINECONFIGPOOL_PLURAL,
  MACHINECONFIGPOOL_VERSION,
  machineConfigPoolSchema,
  machineConfigPoolSpecSchema,
  machineConfigPoolStatusSchema,
} from './machineconfigpool.ts';
import {
  NMSTATECONFIG_GROUP,
  NMSTATECONFIG_KIND,
  NMSTATECONFIG_PLURAL,
  NMSTATECONFIG_VERSION,
  nmStateConfigSchema,
  nmStateConfigSpecSchema,
} from './nmstateconfig.ts';
import {
  PREPROVISIONINGIMAGE_GROUP,
  PREPROVISIONINGIMAGE_KIND,
  PREPROVISIONINGIMAGE_PLURAL,
  PREPROVISIONINGIMAGE_VERSION,
  preprovisioningImageSchema,
  preprovisioningImageSpecSchema,
  preprovisioningImageStatusSchema,
} from './preprovisioningimage.ts';

export * from './agent.ts';
export * from './agentclassification.ts';
export * from './agentclusterinstall.ts';
export * from './agentserviceconfig.ts';
export * from './annotations.ts';
export * from './baremetalhost.ts';
export * from './clusterdeployment.ts';
export * from './clusterimageset.ts';
export * from './common.ts';
export * from './infraenv.ts';
export * from './machine.ts';
export * from './machineconfigpool.ts';
export * from './nmstateconfig.ts';
export * from './preprovisioningimage.ts';

export interface PrinterColumn {
  name: string;
  type: 'string' | 'boolean' | 'integer' | 'number' | 'date';
  jsonPath: string;
  description?: string;
  priority?: number;
  format?: string;
}

export type ResourceScope = 'Namespaced' | 'Cluster';

export interface KindDefinition<S extends z.ZodType = z.ZodType> {
  group: string;
  version: string;
  /** `<group>/<version>` */
  apiVersion: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames: readonly string[];
  categories: readonly string[];
  scope: ResourceScope;
  printerColumns: readonly PrinterColumn[];
  /** Serve the status subresource. */
  statusSubresource: boolean;
  /** true: CRD generated into config/crd/bases; false: stand-in for a CRD owned elsewhere. */
  owned: boolean;
  /** Schema of the whole object. */
  schema: S;
  specSchema: z.ZodType;
  /** Absent for kinds without status (NMStateConfig). */
  statusSchema?: z.ZodType;
}

function define<S extends z.ZodType>(
  d: Omit<KindDefinition<S>, 'apiVersion' | 'listKind' | 'singular' | 'shortNames' | 'categories'> &
    Partial<Pick<KindDefinition<S>, 'shortNames' | 'categories'>>,
): KindDefinition<S> {
  return {
    ...d,
    apiVersion: `${d.group}/${d.version}`,
    listKind: `${d.kind}List`,
    singular: d.kind.toLowerCase(),
    shortNames: d.shortNames ?? [],
    categories: d.categories ?? [],
  };
}

// ---------------------------------------------------------------------------------------------
// Owned kinds
// ---------------------------------------------------------------------------------------------

export const agentKind = define({
  group: AGENT_GROUP,
  version: AGENT_VERSION,
  kind: AGENT_KIND,
  plural: AGENT_PLURAL,
  scope: 'Namespaced',
  printerColumns: [
    {
      name: 'Cluster',
      type: 'string',
      jsonPath: '.spec.clusterDeploymentName.name',
      description: 'ClusterDeployment the Agent is bound to.',
    },
    {
      name: 'Approved',
      type: 'boolean',
      jsonPath: '.spec.approved',
      description: 'Whether the Agent is approved.',
    },
    { name: 'Role', type: 'string', jsonPath: '.status.role', description: 'Effective role of the Agent.' },
    {
      name: 'Stage',
      type: 'string',
      jsonPath: '.status.progress.currentStage',
      description: 'Current installation stage.',
    },
    {
      name: 'Hostname',
      type: 'string',
      jsonPath: '.status.inventory.hostname',
      description: 'Hostname reported by the host.',
      priority: 1,
    },
    {
      name: 'Requested Hostname',
      type: 'string',
      jsonPath: '.spec.hostname',
      description: 'Hostname requested for the host.',
      priority: 1,
    },
  ],
  statusSubresource: true,
  owned: true,
  schema: agentSchema,
  specSchema: agentSpecSchema,
  statusSchema: agentStatusSchema,
});

export const infraEnvKind = define({
  group: INFRAENV_GROUP,
  version: INFRAENV_VERSION,
  kind: INFRAENV_KIND,
  plural: INFRAENV_PLURAL,
  scope: 'Namespaced',
  printerColumns: [
    {
      name: 'ISO Created At',
      type: 'string',
      jsonPath: '.status.createdTime',
      description: 'When the discovery image was generated.',
    },
    {
      name: 'ISO URL',
      type: 'string',
      jsonPath: '.status.isoDownloadURL',
      description: 'Download URL of the discovery ISO.',
      priority: 1,
    },
  ],
  statusSubresource: true,
  owned: true,
  schema: infraEnvSchema,
  specSchema: infraEnvSpecSchema,
  statusSchema: infraEnvStatusSchema,
});

export const nmStateConfigKind = define({
  group: NMSTATECONFIG_GROUP,
  version: NMSTATECONFIG_VERSION,
  kind: NMSTATECONFIG_KIND,
  plural: NMSTATECONFIG_PLURAL,
  scope: 'Namespaced',
  printerColumns: [],
  // Declared upstream although the type has no status.
  statusSubresource: true,
  owned: true,
  schema: nmStateConfigSchema,
  specSchema: nmStateConfigSpecSchema,
});

export const agentClassificationKind = define({
  group: AGENTCLASSIFICATION_GROUP,
  version: AGENTCLASSIFICATION_VERSION,
  kind: AGENTCLASSIFICATION_KIND,
  plural: AGENTCLASSIFICATION_PLURAL,
  scope: 'Namespaced',
  printerColumns: [],
  statusSubresource: true,
  owned: true,
  schema: agentClassificationSchema,
  specSchema: agentClassificationSpecSchema,
  statusSchema: agentClassificationStatusSchema,
});

export const agentServiceConfigKind = define({
  group: AGENTSERVICECONFIG_GROUP,
  version: AGENTSERVICECONFIG_VERSION,
  kind: AGENTSERVICECONFIG_KIND,
  plural: AGENTSERVICECONFIG_PLURAL,
  scope: 'Cluster',
  printerColumns: [],
  statusSubresource: true,
  owned: true,
  schema: agentServiceConfigSchema,
  specSchema: agentServiceConfigSpecSchema,
  statusSchema: agentServiceConfigStatusSchema,
});

export const agentClusterInstallKind = define({
  group: AGENTCLUSTERINSTALL_GROUP,
  version: AGENTCLUSTERINSTALL_VERSION,
  kind: AGENTCLUSTERINSTALL_KIND,
  plural: AGENTCLUSTERINSTALL_PLURAL,
  shortNames: [AGENTCLUSTERINSTALL_SHORT_NAME],
  scope: 'Namespaced',
  printerColumns: [
    {
      name: 'Cluster',
      type: 'string',
      jsonPath: '.spec.clusterDeploymentRef.name',
      description: 'ClusterDeployment installed by this object.',
    },
    {
      name: 'State',
      type: 'string',
      jsonPath: '.status.debugInfo.state',
      description: 'Backend cluster state.',
    },
  ],
  statusSubresource: true,
  owned: true,
  schema: agentClusterInstallSchema,
  specSchema: agentClusterInstallSpecSchema,
  statusSchema: agentClusterInstallStatusSchema,
});

// ---------------------------------------------------------------------------------------------
// External kinds
// ---------------------------------------------------------------------------------------------

export const clusterDeploymentKind = define({
  group: CLUSTERDEPLOYMENT_GROUP,
  version: CLUSTERDEPLOYMENT_VERSION,
  kind: CLUSTERDEPLOYMENT_KIND,
  plural: CLUSTERDEPLOYMENT_PLURAL,
  shortNames: ['cd'],
  scope: 'Namespaced',
  printerColumns: [
    { name: 'InfraID', type: 'string', jsonPath: '.spec.clusterMetadata.infraID' },
    { name: 'Installed', type: 'boolean', jsonPath: '.spec.installed' },
  ],
  statusSubresource: true,
  owned: false,
  schema: clusterDeploymentSchema,
  specSchema: clusterDeploymentSpecSchema,
  statusSchema: clusterDeploymentStatusSchema,
});

export const clusterImageSetKind = define({
  group: CLUSTERIMAGESET_GROUP,
  version: CLUSTERIMAGESET_VERSION,
  kind: CLUSTERIMAGESET_KIND,
  plural: CLUSTERIMAGESET_PLURAL,
  shortNames: ['imgset'],
  scope: 'Cluster',
  printerColumns: [{ name: 'Release', type: 'string', jsonPath: '.spec.releaseImage' }],
  statusSubresource: true,
  owned: false,
  schema: clusterImageSetSchema,
  specSchema: clusterImageSetSpecSchema,
  statusSchema: clusterImageSetStatusSchema,
});

export const bareMetalHostKind = define({
  group: BAREMETALHOST_GROUP,
  version: BAREMETALHOST_VERSION,
  kind: BAREMETALHOST_KIND,
  plural: BAREMETALHOST_PLURAL,
  shortNames: ['bmh', 'bmhost'],
  scope: 'Namespaced',
  printerColumns: [
    { name: 'State', type: 'string', jsonPath: '.status.provisioning.state' },
    { name: 'Online', type: 'boolean', jsonPath: '.spec.online' },
  ],
  statusSubresource: true,
  owned: false,
  schema: bareMetalHostSchema,
  specSchema: bareMetalHostSpecSchema,
  statusSchema: bareMetalHostStatusSchema,
});

export const preprovisioningImageKind = define({
  group: PREPROVISIONINGIMAGE_GROUP,
  version: PREPROVISIONINGIMAGE_VERSION,
  kind: PREPROVISIONINGIMAGE_KIND,
  plural: PREPROVISIONINGIMAGE_PLURAL,
  shortNames: ['ppimg'],
  scope: 'Namespaced',
  printerColumns: [],
  statusSubresource: true,
  owned: false,
  schema: preprovisioningImageSchema,
  specSchema: preprovisioningImageSpecSchema,
  statusSchema: preprovisioningImageStatusSchema,
});

/** Spoke-only kinds: the operator touches them on installed clusters, never on the hub. */
export const machineKind = define({
  group: MACHINE_GROUP,
  version: MACHINE_VERSION,
  kind: MACHINE_KIND,
  plural: MACHINE_PLURAL,
  scope: 'Namespaced',
  printerColumns: [{ name: 'Phase', type: 'string', jsonPath: '.status.phase' }],
  statusSubresource: true,
  owned: false,
  schema: machineSchema,
  specSchema: machineSpecSchema,
  statusSchema: machineStatusSchema,
});

export const machineSetKind = define({
  group: MACHINE_GROUP,
  version: MACHINE_VERSION,
  kind: MACHINESET_KIND,
  plural: MACHINESET_PLURAL,
  scope: 'Namespaced',
  printerColumns: [{ name: 'Desired', type: 'integer', jsonPath: '.spec.replicas' }],
  statusSubresource: true,
  owned: false,
  schema: machineSetSchema,
  specSchema: machineSetSpecSchema,
  statusSchema: machineSetStatusSchema,
});

export const machineConfigPoolKind = define({
  group: MACHINECONFIGPOOL_GROUP,
  version: MACHINECONFIGPOOL_VERSION,
  kind: MACHINECONFIGPOOL_KIND,
  plural: MACHINECONFIGPOOL_PLURAL,
  shortNames: ['mcp'],
  scope: 'Cluster',
  printerColumns: [{ name: 'Paused', type: 'boolean', jsonPath: '.spec.paused' }],
  statusSubresource: true,
  owned: false,
  schema: machineConfigPoolSchema,
  specSchema: machineConfigPoolSpecSchema,
  statusSchema: machineConfigPoolStatusSchema,
});

/** Every kind, owned first. */
export const KINDS: readonly KindDefinition[] = [
  agentKind,
  infraEnvKind,
  nmStateConfigKind,
  agentClassificationKind,
  agentServiceConfigKind,
  agentClusterInstallKind,
  clusterDeploymentKind,
  clusterImageSetKind,
  bareMetalHostKind,
  preprovisioningImageKind,
  machineKind,
  machineSetKind,
  machineConfigPoolKind,
];

export const OWNED_KINDS: readonly KindDefinition[] = KINDS.filter((k) => k.owned);
export const EXTERNAL_KINDS: readonly KindDefinition[] = KINDS.filter((k) => !k.owned);

/** Find a kind by apiVersion (`group/version`) and kind. */
export function findKind(apiVersion: string, kind: string): KindDefinition | undefined {
  return KINDS.find((k) => k.apiVersion === apiVersion && k.kind === kind);
}

/** Find a kind by group and plural resource name. */
export function findKindByResource(group: string, plural: string): KindDefinition | undefined {
  return KINDS.find((k) => k.group === group && k.plural === plural);
}

/** CRD name: `<plural>.<group>`. */
export function crdName(k: KindDefinition): string {
  return `${k.plural}.${k.group}`;
}
