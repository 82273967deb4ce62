// InfraEnv CR (+ pull secret + selected NMStateConfigs) → core InfraEnv record, the digest of
// what goes into its discovery image, and the ImageCreated condition (kubeapi.md §1.2, §2.3, §3.3).
//
// Unlike upstream, which sends only non-empty proxy, NTP and ignition-override values on update,
// the record is rebuilt from the spec each time, so clearing a field clears it (deliberate
// difference, ../shared/spec/README.md "Clearing a field clears it").

import { createHash } from 'node:crypto';
import { stringify } from 'yaml';
import type { Condition, InfraEnv, NMStateConfig } from '../api/index.ts';
import { canonicalJson } from '../core/ignition/encoding.ts';
import type { InfraEnv as InfraEnvRecord } from '../core/model.ts';
import { memoSlot } from '../util/memo-slot.ts';
import { type ConditionValue, setConditionsNoHeartbeat } from './conditions.ts';

export const IMAGE_CREATED_CONDITION = 'ImageCreated';

export interface InfraEnvRecordContext {
  /** `.dockerconfigjson` of the InfraEnv's pull Secret. */
  pullSecret?: string;
  /** NMStateConfigs selected by `spec.nmStateConfigLabelSelector` (any order). */
  nmStateConfigs: readonly NMStateConfig[];
  /** Backend cluster id (ClusterDeployment uid) when `spec.clusterRef` is set. */
  clusterId?: string;
  /** The bound cluster's OpenShift version, used when `spec.osImageVersion` is empty. */
  clusterOpenshiftVersion?: string;
  /** ISO_IMAGE_TYPE: the image type when `spec.imageType` is empty (upstream operator: minimal-iso). */
  defaultImageType?: string;
  /** Service-set ignition override merged before the user's (converged flow). */
  internalIgnitionConfigOverride?: string;
}

function nonEmpty(text: string | undefined): string | undefined {
  return text ? text : undefined;
}

function defined<T extends object>(entries: T): T {
  return Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined)) as T;
}

function byNamespaceAndName(a: NMStateConfig, b: NMStateConfig): number {
  const ka = `${a.metadata.namespace ?? ''}/${a.metadata.name ?? ''}`;
  const kb = `${b.metadata.namespace ?? ''}/${b.metadata.name ?? ''}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/**
 * nmStateYaml per NMStateConfig object (the informers replace, never edit, a cached object). The
 * record of an InfraEnv with static networking is built on each of its host's polls and each
 * reconcile, and encoding one interface's config took 70-120 us.
 */
const yamlOfConfig = memoSlot<NMStateConfig, string>('nmstate YAML');

/**
 * nmstate YAML of an NMStateConfig, as upstream re-encodes the stored JSON: keys sorted, block
 * sequences not indented under their key (go-yaml style).
 */
export function nmStateYaml(config: NMStateConfig): string {
  let yaml = yamlOfConfig.get(config);
  if (yaml === undefined) {
    yaml = stringify(config.spec.config ?? {}, { sortMapEntries: true, indentSeq: false });
    yamlOfConfig.set(config, yaml);
  }
  return yaml;
}

function staticNetworkConfig(configs: readonly NMStateConfig[]): InfraEnvRecord['static_network_config'] {
  if (configs.length === 0) return undefined;
  return [...configs].sort(byNamespaceAndName).map((c) => ({
    network_yaml: nmStateYaml(c),
    mac_interface_map: (c.spec.interfaces ?? []).map((i) => ({
      mac_address: i.macAddress,
      logical_nic_name: i.name,
    })),
  }));
}

/** The infra-env record an InfraEnv describes. */
export function infraEnvToRecord(infraEnv: InfraEnv, ctx: InfraEnvRecordContext): InfraEnvRecord {
  const spec = infraEnv.spec;
  const arch = spec.cpuArchitecture || 'x86_64';
  const imageType =
    spec.imageType || (arch === 's390x' ? 'full-iso' : (ctx.defaultImageType ?? 'minimal-iso'));
  const proxy = defined({
    http_proxy: nonEmpty(spec.proxy?.httpProxy),
    https_proxy: nonEmpty(spec.proxy?.httpsProxy),
    no_proxy: nonEmpty(spec.proxy?.noProxy),
  });
  const kernelArguments = (spec.kernelArguments ?? []).map((k) => ({
    operation: k.operation ?? 'append',
    value: k.value ?? '',
  }));
  return defined<InfraEnvRecord>({
    id: infraEnv.metadata.uid ?? '',
    name: infraEnv.metadata.name ?? '',
    cluster_id: ctx.clusterId ?? null,
    openshift_version: nonEmpty(spec.osImageVersion) ?? nonEmpty(ctx.clusterOpenshiftVersion),
    cpu_architecture: arch,
    // The model lists the two types the core builds; disconnected-iso passes through unchanged.
    type: imageType as InfraEnvRecord['type'],
    pull_secret: nonEmpty(ctx.pullSecret),
    ssh_authorized_key: nonEmpty(spec.sshAuthorizedKey),
    proxy: Object.keys(proxy).length > 0 ? proxy : undefined,
    additional_ntp_sources: nonEmpty((spec.additionalNTPSources ?? []).join(',')),
    ntp_sources: nonEmpty((spec.ntpSources ?? []).join(',')),
    internal_ignition_config_override: nonEmpty(ctx.internalIgnitionConfigOverride),
    additional_trust_bundle: nonEmpty(spec.additionalTrustBundle),
    ignition_config_override: nonEmpty(spec.ignitionConfigOverride),
    kernel_arguments: kernelArguments.length > 0 ? kernelArguments : undefined,
    static_network_config: staticNetworkConfig(ctx.nmStateConfigs),
  });
}

/**
 * A stable hash of everything that goes into the discovery image. The name is left out (it is not
 * in the image); everything else in the record is, so annotation and label edits, which never
 * reach the record, leave the digest (and the download URLs) unchanged.
 */
export function imageDigest(record: InfraEnvRecord): string {
  const { name: _name, ...imageInputs } = record;
  return createHash('sha256')
    .update(canonicalJson(imageInputs, undefined, { keepNull: true }))
    .digest('hex');
}

/** What happened when the backend infra-env was created or updated. */
export type ImageCreatedOutcome =
  | { kind: 'available'; imageServiceEnabled: boolean }
  /** Upstream's HTTP 409: the image is still being generated. */
  | { kind: 'being-created' }
  | { kind: 'error'; clientError: boolean; message: string }
  | { kind: 'missing-cluster-deployment'; message: string };

/** The ImageCreated condition value for an outcome (kubeapi.md §2.3). */
export function imageCreatedConditionValue(outcome: ImageCreatedOutcome): ConditionValue {
  const type = IMAGE_CREATED_CONDITION;
  switch (outcome.kind) {
    case 'available':
      return {
        type,
        status: 'True',
        reason: 'InfraEnvAvailable',
        message: outcome.imageServiceEnabled
          ? 'InfraEnv is available: Image has been created'
          : 'InfraEnv is available',
      };
    case 'being-created':
      return { type, status: 'True', reason: 'ImageCreated', message: 'Image has been created' };
    case 'error':
      return {
        type,
        status: 'False',
        reason: 'ImageCreationError',
        message: outcome.clientError
          ? `Failed to create image: ${outcome.message}`
          : `Failed to create image due to an internal error: ${outcome.message}`,
      };
    case 'missing-cluster-deployment':
      return {
        type,
        status: 'Unknown',
        reason: 'MissingClusterDeployment',
        message: `ClusterDeployment is missing: ${outcome.message}`,
      };
  }
}

/**
 * The InfraEnv conditions after an outcome. "Image is being created" leaves an existing
 * ImageCreationError in place, as upstream does.
 */
export function setImageCreatedCondition(
  previous: readonly Condition[] | undefined,
  outcome: ImageCreatedOutcome,
  now: Date,
): Condition[] {
  const current = previous?.find((c) => c.type === IMAGE_CREATED_CONDITION);
  if (outcome.kind === 'being-created' && current?.reason === 'ImageCreationError') return [...previous!];
  return setConditionsNoHeartbeat(previous, [imageCreatedConditionValue(outcome)], now);
}
