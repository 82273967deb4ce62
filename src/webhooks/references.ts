// Cross-namespace references (issue 13, docs/operations.md "Multi-tenancy"). A namespace is a tenant
// boundary, but two fields may name a ClusterDeployment in another namespace: InfraEnv.spec.clusterRef
// and Agent.spec.clusterDeploymentName. Binding hosts to a cluster hands the hosts' tokens access to
// that cluster, so setting or changing such a reference is admitted only when the requesting user
// may `update` the named ClusterDeployment (a SubjectAccessReview, asked by the admission handler).
// Same-namespace references and unchanged ones are not reviewed; clearing a reference never is.
//
// This module is pure: which target (if any) a request must be authorised for, the review's
// attributes, and the denial message.

import { CLUSTERDEPLOYMENT_GROUP, CLUSTERDEPLOYMENT_PLURAL } from '../api/clusterdeployment.ts';
import { isObject, type Operation, str } from './types.ts';

/** The verb a user needs on the referenced ClusterDeployment. */
export const REFERENCE_VERB = 'update';

export interface ReferenceTarget {
  /** The field, as the messages name it (Go names, like the other webhook messages). */
  field: 'Spec.ClusterRef' | 'Spec.ClusterDeploymentName';
  namespace: string;
  name: string;
}

/** What a SubjectAccessReview asks about (authorization.k8s.io/v1 ResourceAttributes). */
export interface ResourceAttributes {
  namespace: string;
  verb: string;
  group: string;
  resource: string;
  name: string;
}

type Obj = Record<string, unknown>;

function refOf(
  obj: Obj | undefined,
  kind: 'InfraEnv' | 'Agent',
  ownNamespace: string,
): { namespace: string; name: string } | undefined {
  const spec = isObject(obj?.spec) ? obj.spec : undefined;
  const ref = kind === 'InfraEnv' ? spec?.clusterRef : spec?.clusterDeploymentName;
  if (!isObject(ref) || str(ref.name) === '') return undefined;
  // An empty namespace means the object's own, as the controllers read it.
  return { name: str(ref.name), namespace: str(ref.namespace) || ownNamespace };
}

/**
 * The cross-namespace ClusterDeployment this request sets or changes a reference to, or undefined
 * when nothing needs authorising (no reference, same namespace, unchanged, or cleared).
 * `namespace` is the request's namespace (the object's).
 */
export function crossNamespaceTarget(
  kind: 'InfraEnv' | 'Agent',
  operation: Operation,
  namespace: string,
  newObj: Obj,
  oldObj?: Obj,
): ReferenceTarget | undefined {
  const ref = refOf(newObj, kind, namespace);
  if (!ref || ref.namespace === namespace) return undefined;
  if (operation === 'UPDATE') {
    const old = refOf(oldObj, kind, namespace);
    if (old && old.namespace === ref.namespace && old.name === ref.name) return undefined;
  }
  return { field: kind === 'InfraEnv' ? 'Spec.ClusterRef' : 'Spec.ClusterDeploymentName', ...ref };
}

export function referenceAttributes(target: ReferenceTarget): ResourceAttributes {
  return {
    namespace: target.namespace,
    verb: REFERENCE_VERB,
    group: CLUSTERDEPLOYMENT_GROUP,
    resource: CLUSTERDEPLOYMENT_PLURAL,
    name: target.name,
  };
}

/** Denial when the user may not act on the target; `why` is the authorizer's reason, if any. */
export function referenceForbiddenMessage(target: ReferenceTarget, user: string, why?: string): string {
  return (
    `${target.field} names ClusterDeployment ${target.namespace}/${target.name} in another namespace: ` +
    `user "${user}" may not ${REFERENCE_VERB} clusterdeployments.${CLUSTERDEPLOYMENT_GROUP} "${target.name}" ` +
    `in namespace "${target.namespace}"${why ? ` (${why})` : ''}`
  );
}

/** Denial when the review itself could not be made (fail closed). */
export function referenceUncheckedMessage(target: ReferenceTarget, what: string): string {
  return (
    `${target.field} names ClusterDeployment ${target.namespace}/${target.name} in another namespace, ` +
    `and whether the requesting user may ${REFERENCE_VERB} it could not be checked: ${what}`
  );
}
