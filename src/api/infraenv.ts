// InfraEnv (infraenvs.agent-install.openshift.io/v1beta1): a discovery image and the hosts
// that boot from it.

import { z } from 'zod';
import {
  AGENT_INSTALL_API_VERSION,
  AGENT_INSTALL_GROUP,
  AGENT_INSTALL_VERSION,
  always,
  clusterReferenceSchema,
  conditionSchema,
  crd,
  dateTime,
  doc,
  INPUT_BOUNDS,
  int64,
  labelSelectorSchema,
  localObjectReferenceSchema,
  mirrorRegistryConfigMapReferenceSchema,
  ntpSourceList,
  proxySchema,
  resourceSchema,
  stringMap,
} from './common.ts';

export const INFRAENV_GROUP = AGENT_INSTALL_GROUP;
export const INFRAENV_VERSION = AGENT_INSTALL_VERSION;
export const INFRAENV_API_VERSION = AGENT_INSTALL_API_VERSION;
export const INFRAENV_KIND = 'InfraEnv';
export const INFRAENV_PLURAL = 'infraenvs';

export const IPXE_SCRIPT_TYPES = ['', 'DiscoveryImageAlways', 'BootOrderControl'] as const;
export type IpxeScriptType = (typeof IPXE_SCRIPT_TYPES)[number];

export const KERNEL_ARGUMENT_OPERATIONS = ['append', 'replace', 'delete'] as const;
export type KernelArgumentOperation = (typeof KERNEL_ARGUMENT_OPERATIONS)[number];

/** Image types understood by the backend (the CRD has no enum). */
export const IMAGE_TYPES = ['full-iso', 'minimal-iso', 'disconnected-iso'] as const;

/** Kernel argument value: tokens without whitespace or `"`, or double-quoted strings. */
export const KERNEL_ARGUMENT_VALUE_PATTERN = /^(?:(?:[^ \t\n\r"]+)|(?:"[^"]*"))+$/;

export const kernelArgumentSchema = z.looseObject({
  operation: doc(z.enum(KERNEL_ARGUMENT_OPERATIONS), 'What to do with the argument.').optional(),
  value: doc(
    z.string().regex(KERNEL_ARGUMENT_VALUE_PATTERN),
    'The argument: <parameter> or <parameter>=<value>, e.g. rd.net.timeout.carrier=60.',
  ).optional(),
});
export type KernelArgument = z.infer<typeof kernelArgumentSchema>;

export const agentApprovalSchema = z.looseObject({
  autoApprove: doc(z.boolean(), 'Approve Agents discovered from this InfraEnv automatically.').default(false),
});
export type AgentApproval = z.infer<typeof agentApprovalSchema>;

export const infraEnvSpecSchema = doc(
  z.looseObject({
    proxy: doc(proxySchema, 'Proxy used by the discovery agent.').optional(),
    additionalNTPSources: doc(ntpSourceList(), 'NTP sources added to the defaults.').optional(),
    ntpSources: doc(ntpSourceList(), 'NTP sources used instead of the defaults.').optional(),
    sshAuthorizedKey: doc(
      z.string().max(INPUT_BOUNDS.sshKeys),
      'SSH public key for debugging discovered hosts.',
    ).optional(),
    pullSecretRef: doc(
      localObjectReferenceSchema,
      'Secret in the same namespace whose .dockerconfigjson key holds the pull secret.',
    ),
    agentLabels: doc(stringMap(), 'Labels copied onto Agents created from this InfraEnv.').optional(),
    nmStateConfigLabelSelector: doc(
      labelSelectorSchema,
      'Selects the NMStateConfigs embedded in the image. An empty selector selects none.',
    ).optional(),
    clusterRef: doc(
      clusterReferenceSchema,
      'Cluster the discovered hosts are bound to. Without it hosts stay unbound (late binding).',
    ).optional(),
    ignitionConfigOverride: doc(
      z.string().max(INPUT_BOUNDS.ignition),
      'JSON ignition config merged into the discovery ignition.',
    ).optional(),
    cpuArchitecture: doc(
      z.string(),
      'CPU architecture of the hosts: x86_64, aarch64, arm64, ppc64le or s390x.',
    ).default('x86_64'),
    ipxeScriptType: crd(z.enum(IPXE_SCRIPT_TYPES).default('DiscoveryImageAlways'), {
      alwaysSerialized: true,
      description:
        'DiscoveryImageAlways always boots the discovery image; BootOrderControl boots the disk once the host is installed.',
    }),
    kernelArguments: doc(
      z.array(kernelArgumentSchema),
      'Kernel arguments of the discovery image.',
    ).optional(),
    additionalTrustBundle: doc(
      z.string().max(INPUT_BOUNDS.caBundle),
      'PEM CA bundle trusted by discovered hosts and clusters.',
    ).optional(),
    osImageVersion: doc(
      z.string(),
      'OS image version (from AgentServiceConfig) used for the image.',
    ).optional(),
    mirrorRegistryRef: doc(
      mirrorRegistryConfigMapReferenceSchema,
      'ConfigMap with registries.conf and optionally ca-bundle.crt embedded in the image.',
    ).optional(),
    imageType: doc(z.string(), 'full-iso, minimal-iso or disconnected-iso.').optional(),
    agentApproval: doc(agentApprovalSchema, 'Automatic approval of discovered Agents.').optional(),
    networkDiscoveryDelaySeconds: doc(
      int64().min(0),
      'Seconds to wait before mapping MAC addresses to NICs (minimal ISO with static networking).',
    ).optional(),
  }),
  'Desired state of the InfraEnv.',
);
export type InfraEnvSpec = z.infer<typeof infraEnvSpecSchema>;

export const infraEnvDebugInfoSchema = z.looseObject({
  eventsURL: crd(always(z.string(), ''), { description: 'URL of the InfraEnv events.' }),
  staticNetworkDownloadURL: doc(z.string(), 'URL of the static network configuration.').optional(),
});
export type InfraEnvDebugInfo = z.infer<typeof infraEnvDebugInfoSchema>;

export const bootArtifactsSchema = z.looseObject({
  initrd: crd(always(z.string(), ''), { description: 'URL of the initrd.' }),
  rootfs: crd(always(z.string(), ''), { description: 'URL of the rootfs.' }),
  kernel: crd(always(z.string(), ''), { description: 'URL of the kernel.' }),
  ipxeScript: crd(always(z.string(), ''), { description: 'URL of the iPXE script.' }),
  discoveryIgnitionURL: crd(always(z.string(), ''), { description: 'URL of the discovery ignition.' }),
});
export type BootArtifacts = z.infer<typeof bootArtifactsSchema>;

/** InfraEnv facts that are not part of upstream's status but must survive a restart. */
export interface InfraEnvBackendStatus {
  /** Hash of everything that goes into the discovery image (see records/infraenv.ts). */
  imageDigest?: string;
  /** When the download URL tokens in status expire (they are re-issued before). */
  tokenExpiresAt?: string;
}

export const infraEnvBackendStatusSchema = crd(z.looseObject({}), {
  preserveUnknownFields: true,
  description:
    'InfraEnv facts kept by agent-install-operator across restarts (not part of the upstream API).',
}) as unknown as z.ZodType<InfraEnvBackendStatus>;

export const infraEnvStatusSchema = doc(
  z.looseObject({
    isoDownloadURL: doc(z.string(), 'URL of the discovery ISO.').optional(),
    createdTime: doc(dateTime(), 'When the current image was generated.').optional(),
    conditions: z.array(conditionSchema).optional(),
    agentLabelSelector: doc(
      labelSelectorSchema,
      'Selects the Agents discovered from this InfraEnv.',
    ).optional(),
    debugInfo: crd(always(infraEnvDebugInfoSchema, {}), { description: 'Debugging URLs.' }),
    bootArtifacts: crd(always(bootArtifactsSchema, {}), { description: 'URLs of the boot artifacts.' }),
    backend: infraEnvBackendStatusSchema.optional(),
  }),
  'Observed state of the InfraEnv.',
);
export type InfraEnvStatus = z.infer<typeof infraEnvStatusSchema>;

export const infraEnvSchema = resourceSchema({
  description: 'InfraEnv describes a discovery image; hosts that boot it register as Agents.',
  spec: infraEnvSpecSchema,
  status: infraEnvStatusSchema,
  specRequired: false,
});
export type InfraEnv = z.infer<typeof infraEnvSchema>;
