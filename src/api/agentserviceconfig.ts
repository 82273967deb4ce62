// AgentServiceConfig (agentserviceconfigs.agent-install.openshift.io/v1beta1, cluster-scoped):
// deployment settings of the service. Only the object named "agent" is reconciled.

import { z } from 'zod';
import {
  AGENT_INSTALL_API_VERSION,
  AGENT_INSTALL_GROUP,
  AGENT_INSTALL_VERSION,
  conditionSchema,
  doc,
  localObjectReferenceSchema,
  persistentVolumeClaimSpecSchema,
  resourceSchema,
  stringMap,
} from './common.ts';

export const AGENTSERVICECONFIG_GROUP = AGENT_INSTALL_GROUP;
export const AGENTSERVICECONFIG_VERSION = AGENT_INSTALL_VERSION;
export const AGENTSERVICECONFIG_API_VERSION = AGENT_INSTALL_API_VERSION;
export const AGENTSERVICECONFIG_KIND = 'AgentServiceConfig';
export const AGENTSERVICECONFIG_PLURAL = 'agentserviceconfigs';
/** The only AgentServiceConfig name that is reconciled. */
export const AGENTSERVICECONFIG_NAME = 'agent';

export const IPXE_HTTP_ROUTE_VALUES = ['enabled', 'disabled'] as const;
export const MUST_GATHER_CPU_ARCHITECTURES = [
  'x86_64',
  'aarch64',
  'arm64',
  'ppc64le',
  's390x',
  'multi',
] as const;

export const osImageSchema = z.looseObject({
  openshiftVersion: doc(z.string(), 'OpenShift major.minor version the image belongs to.'),
  version: doc(z.string(), 'Operating system version of the image.'),
  url: doc(z.string(), 'URL of the image.'),
  rootFSUrl: doc(z.string(), 'Deprecated and ignored.').optional(),
  cpuArchitecture: doc(z.string(), 'CPU architecture of the image.').optional(),
});
export type OSImage = z.infer<typeof osImageSchema>;

export const mustGatherImageSchema = z.looseObject({
  openshiftVersion: doc(z.string(), 'OpenShift major.minor version the image belongs to.'),
  cpuArchitecture: doc(z.enum(MUST_GATHER_CPU_ARCHITECTURES), 'CPU architecture of the image.').optional(),
  name: doc(z.string(), 'Component (e.g. operator) the image collects data about.'),
  url: doc(z.string(), 'Image reference.'),
});
export type MustGatherImage = z.infer<typeof mustGatherImageSchema>;

export const ingressSchema = z.looseObject({
  assistedServiceHostname: doc(z.string(), 'Host name of the service ingress.'),
  imageServiceHostname: doc(z.string(), 'Host name of the image service ingress.'),
  className: doc(z.string(), 'Ingress class name.').optional(),
});
export type Ingress = z.infer<typeof ingressSchema>;

export const agentServiceConfigSpecSchema = doc(
  z.looseObject({
    filesystemStorage: doc(persistentVolumeClaimSpecSchema, 'Volume claim for the service data directory.'),
    databaseStorage: doc(persistentVolumeClaimSpecSchema, 'Volume claim for the database.'),
    imageStorage: doc(
      persistentVolumeClaimSpecSchema,
      'Volume claim for each image service replica.',
    ).optional(),
    mirrorRegistryRef: doc(
      localObjectReferenceSchema,
      'ConfigMap with registries.conf and ca-bundle.crt for mirror registries.',
    ).optional(),
    osImages: doc(z.array(osImageSchema), 'Operating system images used for discovery images.').optional(),
    mustGatherImages: doc(z.array(mustGatherImageSchema), 'Must-gather images by version.').optional(),
    iPXEHTTPRoute: doc(z.enum(IPXE_HTTP_ROUTE_VALUES), 'Expose iPXE artifacts over plain HTTP.').optional(),
    unauthenticatedRegistries: doc(
      z.array(z.string()),
      'Registries that need no pull-secret credentials.',
    ).optional(),
    OSImageCACertRef: doc(
      localObjectReferenceSchema,
      'ConfigMap with a CA certificate used when downloading OS images.',
    ).optional(),
    OSImageAdditionalParamsRef: doc(
      localObjectReferenceSchema,
      'Secret with headers and query parameters used when downloading OS images.',
    ).optional(),
    ingress: doc(ingressSchema, 'Ingress settings (non-OpenShift clusters only).').optional(),
  }),
  'Desired state of the AgentServiceConfig.',
);
export type AgentServiceConfigSpec = z.infer<typeof agentServiceConfigSpecSchema>;

export const agentServiceConfigStatusSchema = doc(
  z.looseObject({
    conditions: z.array(conditionSchema).optional(),
    immutableAnnotations: doc(stringMap(), 'Values of annotations that cannot change once set.').optional(),
  }),
  'Observed state of the AgentServiceConfig.',
);
export type AgentServiceConfigStatus = z.infer<typeof agentServiceConfigStatusSchema>;

export const agentServiceConfigSchema = resourceSchema({
  description: 'AgentServiceConfig configures the service. Only the object named "agent" is reconciled.',
  spec: agentServiceConfigSpecSchema,
  status: agentServiceConfigStatusSchema,
  specRequired: false,
});
export type AgentServiceConfig = z.infer<typeof agentServiceConfigSchema>;
