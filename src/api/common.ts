// Building blocks shared by every kind: API group constants, field helpers that carry CRD
// metadata for the OpenAPI generator (see openapi.ts), object metadata, condition shapes and
// the small reference types that several kinds embed.
//
// Conventions used throughout src/api:
// * Every object schema is a zod "loose" object so that parsing an object read from the API
//   never drops fields this code does not know about.
// * `.optional()` fields map to optional CRD properties; non-optional fields without a default
//   are listed in the CRD `required` list.
// * `.default(v)` is also written into the CRD as `default: v` unless the field carries
//   `crdDefault: false` (see `always`).
// * `always(...)` marks a field that upstream always serializes (no omitempty). zod fills the
//   empty value when it is missing, so `schema.parse(obj)` yields what must be written.

import { z } from 'zod';

// ---------------------------------------------------------------------------------------------
// API groups and versions
// ---------------------------------------------------------------------------------------------

export const AGENT_INSTALL_GROUP = 'agent-install.openshift.io';
export const AGENT_INSTALL_VERSION = 'v1beta1';
export const AGENT_INSTALL_API_VERSION = `${AGENT_INSTALL_GROUP}/${AGENT_INSTALL_VERSION}`;

export const HIVE_EXTENSIONS_GROUP = 'extensions.hive.openshift.io';
export const HIVE_EXTENSIONS_VERSION = 'v1beta1';
export const HIVE_EXTENSIONS_API_VERSION = `${HIVE_EXTENSIONS_GROUP}/${HIVE_EXTENSIONS_VERSION}`;

export const HIVE_GROUP = 'hive.openshift.io';
export const HIVE_VERSION = 'v1';
export const HIVE_API_VERSION = `${HIVE_GROUP}/${HIVE_VERSION}`;

export const METAL3_GROUP = 'metal3.io';
export const METAL3_VERSION = 'v1alpha1';
export const METAL3_API_VERSION = `${METAL3_GROUP}/${METAL3_VERSION}`;

// ---------------------------------------------------------------------------------------------
// CRD metadata carried on zod schemas
// ---------------------------------------------------------------------------------------------

/** Extra information the CRD generator reads from a schema's `.meta()`. */
export interface CrdFieldMeta {
  description?: string;
  /** Raw OpenAPI keys merged into the generated node (format, x-kubernetes-*, ...). */
  crd?: Record<string, unknown>;
  /** `false`: the zod default only fills parsed objects and is not written into the CRD. */
  crdDefault?: boolean;
  /** List the field in the parent's `required` although zod supplies a default. */
  crdRequired?: boolean;
  /** zod requires the field but the CRD does not (upstream accepts objects without it). */
  crdOptional?: boolean;
  /** Upstream always writes this field, even when empty or false (no omitempty). */
  alwaysSerialized?: boolean;
  /** Object metadata: rendered as `type: object` only. */
  objectMeta?: boolean;
  /** Rendered with `x-kubernetes-preserve-unknown-fields: true`. */
  preserveUnknownFields?: boolean;
  /** Union of integer and string rendered with `x-kubernetes-int-or-string: true`. */
  intOrString?: boolean;
}

/** Attach CRD metadata to a schema (returns a copy, zod's `.meta` semantics). */
export function crd<T extends z.ZodType>(schema: T, meta: CrdFieldMeta): T {
  return schema.meta(meta as z.core.GlobalMeta) as T;
}

/** Attach a description. */
export function doc<T extends z.ZodType>(schema: T, description: string): T {
  return crd(schema, { description });
}

/**
 * A field that upstream always serializes. When it is missing, zod fills `empty` (parsed
 * through the schema, so nested defaults apply); the CRD gets no default for it.
 */
export function always<T extends z.ZodType>(schema: T, empty: z.input<T>, meta: CrdFieldMeta = {}) {
  return crd(schema.prefault(empty as never), { alwaysSerialized: true, crdDefault: false, ...meta });
}

/** Go `int64`. */
export const int64 = () => crd(z.number().int(), { crd: { format: 'int64' } });
/** Go `int32`. */
export const int32 = () => crd(z.number().int(), { crd: { format: 'int32' } });
/** Go `int` (no format in the generated CRD). */
export const int = () => z.number().int();
/** metav1.Time: RFC 3339 timestamp. */
export const dateTime = () => crd(z.string(), { crd: { format: 'date-time' } });
/** map[string]string */
export const stringMap = () => z.record(z.string(), z.string());
/** Free-form object whose content is kept as is (`x-kubernetes-preserve-unknown-fields`). */
export const freeFormObject = () => crd(z.record(z.string(), z.unknown()), { preserveUnknownFields: true });

/** resource.Quantity: integer or string matching the Kubernetes quantity grammar. */
export const QUANTITY_PATTERN =
  /^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$/;
export const quantity = () =>
  crd(z.union([z.number().int(), z.string().regex(QUANTITY_PATTERN)]), { intOrString: true });
export type Quantity = number | string;

// ---------------------------------------------------------------------------------------------
// Object metadata
// ---------------------------------------------------------------------------------------------

export const ownerReferenceSchema = z.looseObject({
  apiVersion: z.string(),
  kind: z.string(),
  name: z.string(),
  uid: z.string(),
  controller: z.boolean().optional(),
  blockOwnerDeletion: z.boolean().optional(),
});
export type OwnerReference = z.infer<typeof ownerReferenceSchema>;

/** metav1.ObjectMeta (fields the operator uses; everything else is kept on parse). */
export const objectMetaSchema = crd(
  z.looseObject({
    name: z.string().optional(),
    generateName: z.string().optional(),
    namespace: z.string().optional(),
    uid: z.string().optional(),
    resourceVersion: z.string().optional(),
    generation: z.number().int().optional(),
    creationTimestamp: z.string().optional(),
    deletionTimestamp: z.string().optional(),
    deletionGracePeriodSeconds: z.number().int().optional(),
    labels: stringMap().optional(),
    annotations: stringMap().optional(),
    finalizers: z.array(z.string()).optional(),
    ownerReferences: z.array(ownerReferenceSchema).optional(),
    managedFields: z.array(z.unknown()).optional(),
  }),
  { objectMeta: true, crdOptional: true },
);
export type ObjectMeta = z.infer<typeof objectMetaSchema>;

/**
 * Envelope shared by every kind: apiVersion, kind, metadata, spec and (when given) status.
 * `specRequired` puts `spec` in the CRD's top-level `required` list; zod always requires it.
 */
export function resourceSchema<Spec extends z.ZodType, Status extends z.ZodType>(opts: {
  description: string;
  spec: Spec;
  status: Status;
  specRequired: boolean;
}) {
  return doc(
    z.looseObject({
      apiVersion: z.string().optional(),
      kind: z.string().optional(),
      metadata: objectMetaSchema,
      spec: opts.specRequired ? opts.spec : crd(opts.spec, { crdOptional: true }),
      status: opts.status.optional(),
    }),
    opts.description,
  );
}

/** Envelope for a kind without status (NMStateConfig). */
export function resourceSchemaWithoutStatus<Spec extends z.ZodType>(opts: {
  description: string;
  spec: Spec;
  specRequired: boolean;
}) {
  return doc(
    z.looseObject({
      apiVersion: z.string().optional(),
      kind: z.string().optional(),
      metadata: objectMetaSchema,
      spec: opts.specRequired ? opts.spec : crd(opts.spec, { crdOptional: true }),
    }),
    opts.description,
  );
}

// ---------------------------------------------------------------------------------------------
// Conditions
// ---------------------------------------------------------------------------------------------

export const CONDITION_STATUS_VALUES = ['True', 'False', 'Unknown'] as const;
export type ConditionStatus = (typeof CONDITION_STATUS_VALUES)[number];

/**
 * openshift custom-resource-status condition (Agent, InfraEnv, AgentClassification,
 * AgentServiceConfig). lastHeartbeatTime is never written by the controllers.
 */
export const conditionSchema = z.looseObject({
  type: z.string(),
  status: z.string(),
  reason: z.string().optional(),
  message: z.string().optional(),
  lastHeartbeatTime: dateTime().optional(),
  lastTransitionTime: dateTime().optional(),
});
export type Condition = z.infer<typeof conditionSchema>;

/** Hive ClusterInstallCondition (AgentClusterInstall). */
export const clusterInstallConditionSchema = z.looseObject({
  type: doc(z.string(), 'Type of the condition.'),
  status: doc(z.string(), 'Status of the condition: True, False or Unknown.'),
  lastProbeTime: doc(dateTime(), 'Last time the condition was probed.').optional(),
  lastTransitionTime: doc(dateTime(), 'Last time the condition changed.').optional(),
  reason: doc(z.string(), 'Machine-readable reason for the last change.').optional(),
  message: doc(z.string(), 'Human-readable details about the last change.').optional(),
});
export type ClusterInstallCondition = z.infer<typeof clusterInstallConditionSchema>;

/** metav1.Condition (PreprovisioningImage). */
export const metaV1ConditionSchema = z.looseObject({
  type: z.string(),
  status: z.enum(CONDITION_STATUS_VALUES),
  observedGeneration: int64().min(0).optional(),
  lastTransitionTime: dateTime(),
  reason: z.string(),
  message: z.string(),
});
export type MetaV1Condition = z.infer<typeof metaV1ConditionSchema>;

// ---------------------------------------------------------------------------------------------
// References and small shared types
// ---------------------------------------------------------------------------------------------

/**
 * corev1.LocalObjectReference as rendered for the agent-install.openshift.io group: name
 * defaults to "" and the reference is atomic.
 */
export const localObjectReferenceSchema = crd(
  z.looseObject({
    name: doc(z.string(), 'Name of the referenced object in the same namespace.').default(''),
  }),
  { crd: { 'x-kubernetes-map-type': 'atomic' } },
);
export type LocalObjectReference = z.infer<typeof localObjectReferenceSchema>;

/** corev1.LocalObjectReference as rendered for the Hive groups: no default, atomic. */
export const hiveLocalObjectReferenceSchema = crd(
  z.looseObject({
    name: doc(z.string(), 'Name of the referenced object in the same namespace.').optional(),
  }),
  { crd: { 'x-kubernetes-map-type': 'atomic' } },
);
export type HiveLocalObjectReference = z.infer<typeof hiveLocalObjectReferenceSchema>;

/** Reference to a cluster (ClusterDeployment) in any namespace. */
export const clusterReferenceSchema = z.looseObject({
  name: doc(z.string(), 'Name of the ClusterDeployment.').optional(),
  namespace: doc(z.string(), 'Namespace of the ClusterDeployment.').optional(),
});
export type ClusterReference = z.infer<typeof clusterReferenceSchema>;

/** Namespaced reference to a ConfigMap holding mirror registry configuration. */
export const mirrorRegistryConfigMapReferenceSchema = z.looseObject({
  name: doc(z.string(), 'Name of the ConfigMap.'),
  namespace: doc(z.string(), 'Namespace of the ConfigMap.'),
});
export type MirrorRegistryConfigMapReference = z.infer<typeof mirrorRegistryConfigMapReferenceSchema>;

/**
 * Size bounds of user input the operator stores or embeds (not in upstream's CRDs, which bound
 * nothing): large enough for any real value, small enough that one field cannot fill an object.
 */
export const INPUT_BOUNDS = {
  /** Any spec string without a bound of its own (applied by the CRD generator). */
  defaultString: 65_536,
  /** Any spec list without a bound of its own (applied by the CRD generator). */
  defaultList: 1_024,
  url: 2_048,
  noProxy: 16_384,
  sshKeys: 16_384,
  ntpSources: 100,
  hostName: 255,
  /** Ignition overrides: the discovery ISO reserves 256 KiB for the whole ignition. */
  ignition: 262_144,
  /** PEM CA bundles (a full system bundle is ~220 KiB). */
  caBundle: 1_048_576,
} as const;

/** NTP servers: host names or addresses. */
export const ntpSourceList = () =>
  z.array(z.string().max(INPUT_BOUNDS.hostName)).max(INPUT_BOUNDS.ntpSources);

/** Proxy settings. */
export const proxySchema = z.looseObject({
  httpProxy: doc(z.string().max(INPUT_BOUNDS.url), 'Proxy URL used for HTTP requests.').optional(),
  httpsProxy: doc(z.string().max(INPUT_BOUNDS.url), 'Proxy URL used for HTTPS requests.').optional(),
  noProxy: doc(
    z.string().max(INPUT_BOUNDS.noProxy),
    'Comma-separated domains and CIDRs that bypass the proxy.',
  ).optional(),
});
export type Proxy = z.infer<typeof proxySchema>;

/** metav1.LabelSelector */
export const labelSelectorRequirementSchema = z.looseObject({
  key: z.string(),
  operator: z.string(),
  values: crd(z.array(z.string()), { crd: { 'x-kubernetes-list-type': 'atomic' } }).optional(),
});
export const labelSelectorSchema = crd(
  z.looseObject({
    matchExpressions: crd(z.array(labelSelectorRequirementSchema), {
      crd: { 'x-kubernetes-list-type': 'atomic' },
    }).optional(),
    matchLabels: stringMap().optional(),
  }),
  { crd: { 'x-kubernetes-map-type': 'atomic' } },
);
export type LabelSelector = z.infer<typeof labelSelectorSchema>;

/** One validation result (api/common). */
export const validationResultSchema = z.looseObject({
  id: z.string(),
  status: z.string(),
  message: z.string(),
});
export type ValidationResult = z.infer<typeof validationResultSchema>;

/** Validation results grouped by category (hardware, network, operators, hosts-data, ...). */
export const validationsStatusSchema = z.record(z.string(), z.array(validationResultSchema));
export type ValidationsStatus = z.infer<typeof validationsStatusSchema>;
export const VALIDATION_STATUS_VALUES = ['success', 'failure', 'pending', 'error', 'disabled'] as const;

/** corev1.TypedLocalObjectReference */
const typedLocalObjectReferenceSchema = z.looseObject({
  apiGroup: z.string().optional(),
  kind: z.string(),
  name: z.string(),
});
/** corev1.TypedObjectReference */
const typedObjectReferenceSchema = z.looseObject({
  apiGroup: z.string().optional(),
  kind: z.string(),
  name: z.string(),
  namespace: z.string().optional(),
});

/** corev1.PersistentVolumeClaimSpec */
export const persistentVolumeClaimSpecSchema = z.looseObject({
  accessModes: crd(z.array(z.string()), { crd: { 'x-kubernetes-list-type': 'atomic' } }).optional(),
  dataSource: crd(typedLocalObjectReferenceSchema, { crd: { 'x-kubernetes-map-type': 'atomic' } }).optional(),
  dataSourceRef: typedObjectReferenceSchema.optional(),
  resources: z
    .looseObject({
      limits: z.record(z.string(), quantity()).optional(),
      requests: z.record(z.string(), quantity()).optional(),
    })
    .optional(),
  selector: labelSelectorSchema.optional(),
  storageClassName: z.string().optional(),
  volumeAttributesClassName: z.string().optional(),
  volumeMode: z.string().optional(),
  volumeName: z.string().optional(),
});
export type PersistentVolumeClaimSpec = z.infer<typeof persistentVolumeClaimSpecSchema>;

/** Hive ClusterMetadata (ACI spec.clusterMetadata, ClusterDeployment spec.clusterMetadata). */
export const hiveClusterMetadataSchema = z.looseObject({
  clusterID: doc(z.string(), 'Globally unique identifier of the installed cluster.'),
  infraID: doc(z.string(), 'Infrastructure identifier generated during installation.'),
  adminKubeconfigSecretRef: doc(hiveLocalObjectReferenceSchema, 'Secret holding the admin kubeconfig.'),
  adminPasswordSecretRef: doc(
    hiveLocalObjectReferenceSchema,
    'Secret holding the kubeadmin username and password.',
  ).optional(),
  platform: doc(freeFormObject(), 'Platform-specific cluster metadata.').optional(),
});
export type HiveClusterMetadata = z.infer<typeof hiveClusterMetadataSchema>;

/** CPU architectures accepted by the service. */
export const CPU_ARCHITECTURES = ['x86_64', 'aarch64', 'arm64', 'ppc64le', 's390x'] as const;
