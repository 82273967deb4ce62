// ClusterDeployment (clusterdeployments.hive.openshift.io/v1), owned by Hive. Only the fields
// this operator reads or writes are described; everything else is preserved.

import { z } from 'zod';
import {
  crd,
  doc,
  HIVE_API_VERSION,
  HIVE_GROUP,
  HIVE_VERSION,
  hiveClusterMetadataSchema,
  hiveLocalObjectReferenceSchema,
  labelSelectorSchema,
  objectMetaSchema,
} from './common.ts';

export const CLUSTERDEPLOYMENT_GROUP = HIVE_GROUP;
export const CLUSTERDEPLOYMENT_VERSION = HIVE_VERSION;
export const CLUSTERDEPLOYMENT_API_VERSION = HIVE_API_VERSION;
export const CLUSTERDEPLOYMENT_KIND = 'ClusterDeployment';
export const CLUSTERDEPLOYMENT_PLURAL = 'clusterdeployments';

export const clusterInstallLocalReferenceSchema = z.looseObject({
  group: z.string(),
  version: z.string(),
  kind: z.string(),
  name: z.string(),
});
export type ClusterInstallLocalReference = z.infer<typeof clusterInstallLocalReferenceSchema>;

export const agentBareMetalPlatformSchema = z.looseObject({
  agentSelector: doc(labelSelectorSchema, 'Selects the Agents of the cluster (informational).').optional(),
});
export type AgentBareMetalPlatform = z.infer<typeof agentBareMetalPlatformSchema>;

export const clusterDeploymentPlatformSchema = z.looseObject({
  agentBareMetal: agentBareMetalPlatformSchema.optional(),
});

export const clusterDeploymentSpecSchema = z.looseObject({
  clusterName: doc(z.string(), 'Name of the cluster.'),
  baseDomain: doc(z.string(), 'Base DNS domain of the cluster.'),
  platform: doc(clusterDeploymentPlatformSchema, 'Platform of the cluster.'),
  clusterInstallRef: doc(
    clusterInstallLocalReferenceSchema,
    'Install object (AgentClusterInstall) in the same namespace.',
  ).optional(),
  pullSecretRef: doc(hiveLocalObjectReferenceSchema, 'Pull secret in the same namespace.').optional(),
  installed: doc(z.boolean(), 'The cluster is installed.').optional(),
  clusterMetadata: doc(hiveClusterMetadataSchema, 'Metadata of the installed cluster.').optional(),
  preserveOnDelete: doc(z.boolean(), 'Keep the cluster when the ClusterDeployment is deleted.').optional(),
});
export type ClusterDeploymentSpec = z.infer<typeof clusterDeploymentSpecSchema>;

export const clusterDeploymentStatusSchema = crd(z.looseObject({}), { preserveUnknownFields: true });
export type ClusterDeploymentStatus = z.infer<typeof clusterDeploymentStatusSchema>;

export const clusterDeploymentSchema = doc(
  z.looseObject({
    apiVersion: z.string().optional(),
    kind: z.string().optional(),
    metadata: objectMetaSchema,
    spec: clusterDeploymentSpecSchema,
    status: clusterDeploymentStatusSchema.optional(),
  }),
  'ClusterDeployment (Hive). Stand-in schema with the fields the operator uses.',
);
export type ClusterDeployment = z.infer<typeof clusterDeploymentSchema>;
