// What the controllers do with references to a ClusterDeployment in another namespace
// (InfraEnv.spec.clusterRef, Agent.spec.clusterDeploymentName, the BareMetalHost cluster-reference
// annotation). A namespace is a tenant boundary: such a reference is safe only when someone checked
// that whoever set it may use the target, which the admission webhooks do (src/webhooks/
// references.ts). The controllers cannot tell who set a reference, so they follow a setting:
//
//   webhook  the webhooks are registered and authorise every InfraEnv/Agent reference: honour
//            those; refuse BareMetalHost annotations (the webhooks never see the BMH, the operator
//            would be the one writing the Agent); default when the webhook server runs.
//   refuse   refuse every cross-namespace reference (default without the webhook server).
//   allow    honour every reference unchecked (a trusted, single-team hub; upstream's behaviour).
import type { OperatorSettings } from './config.ts';

export type CrossNamespaceReferences = 'webhook' | 'refuse' | 'allow';

export const CROSS_NAMESPACE_REFERENCES_ENV = 'CROSS_NAMESPACE_REFERENCES';

type Settings = Pick<OperatorSettings, 'crossNamespaceReferences' | 'webhookPort'>;

/** The setting, or its default: `webhook` when this process serves the webhooks, else `refuse`. */
export function crossNamespaceReferences(settings: Settings): CrossNamespaceReferences {
  return settings.crossNamespaceReferences ?? (settings.webhookPort > 0 ? 'webhook' : 'refuse');
}

export type ReferenceSource = 'InfraEnv' | 'Agent' | 'BareMetalHost';

const FIELDS: Record<ReferenceSource, string> = {
  InfraEnv: 'spec.clusterRef',
  Agent: 'spec.clusterDeploymentName',
  BareMetalHost: 'annotation bmac.agent-install.openshift.io/cluster-reference',
};

/**
 * Why the reference from an object of `source` kind in `fromNamespace` to ClusterDeployment
 * `target` is not honoured, or undefined when it is (same namespace, or allowed by the setting).
 */
export function crossNamespaceRefusal(
  settings: Settings,
  source: ReferenceSource,
  fromNamespace: string,
  target: { namespace: string; name: string },
): string | undefined {
  if (!target.namespace || target.namespace === fromNamespace) return undefined;
  const mode = crossNamespaceReferences(settings);
  if (mode === 'allow') return undefined;
  if (mode === 'webhook' && source !== 'BareMetalHost') return undefined;
  const why =
    mode === 'refuse'
      ? 'cross-namespace references are refused unless the admission webhooks authorise them'
      : 'the admission webhooks cannot check who set a BareMetalHost annotation';
  return (
    `${source} ${FIELDS[source]} names ClusterDeployment ${target.namespace}/${target.name} in another ` +
    `namespace than ${fromNamespace}, which is not honoured: ${why} ` +
    `(${CROSS_NAMESPACE_REFERENCES_ENV}=${mode}; see docs/operations.md, Multi-tenancy)`
  );
}
