// The converged-flow decision (kubeapi.md §3.6): the PreprovisioningImage flow is used when
// ALLOW_CONVERGED_FLOW is on AND the hub's `baremetal` ClusterOperator reports an `operator`
// version of at least 4.12.0-0.alpha (older metal3 cannot boot from a PreprovisioningImage).
// Decided once, before the controllers register (src/operator/main.ts), and kept on the
// OperatorContext so BMAC and the PPI controller always agree.
//
// Where config.openshift.io ClusterOperators are not served (plain Kubernetes with metal3 installed
// by hand), there is no baremetal operator to ask: ALLOW_CONVERGED_FLOW alone decides. Where they
// are served, a missing `baremetal` ClusterOperator, a missing or unparsable version, or any error
// reading it means the non-converged flow (logged), as upstream does.
import type { Logger } from 'pino';
import { compareReleaseVersions } from '../core/version.ts';
import { CLUSTER_OPERATOR } from '../records/resources.ts';
import { Discovery, type KubeClient, type KubeObject } from '../runtime/index.ts';

export const CONVERGED_FLOW_MIN_BAREMETAL_VERSION = '4.12.0-0.alpha';

export interface FlowDecision {
  converged: boolean;
  reason: string;
}

interface ClusterOperator extends KubeObject {
  status?: { versions?: { name?: string; version?: string }[] };
}

/** The decision from the inputs (pure): the setting and what the hub said about `baremetal`. */
export function convergedFlowDecision(
  allow: boolean,
  hub:
    | { kind: 'not-openshift' }
    | { kind: 'error'; error: string }
    | { kind: 'absent' }
    | { kind: 'version'; version: string | undefined },
): FlowDecision {
  if (!allow) return { converged: false, reason: 'ALLOW_CONVERGED_FLOW is off' };
  const min = CONVERGED_FLOW_MIN_BAREMETAL_VERSION;
  switch (hub.kind) {
    case 'not-openshift':
      return {
        converged: true,
        reason: 'ALLOW_CONVERGED_FLOW is on and the hub serves no ClusterOperators (not OpenShift)',
      };
    case 'error':
      return { converged: false, reason: `cannot read the baremetal ClusterOperator: ${hub.error}` };
    case 'absent':
      return { converged: false, reason: 'the hub has no baremetal ClusterOperator' };
    case 'version': {
      if (!hub.version)
        return { converged: false, reason: 'the baremetal ClusterOperator reports no operator version' };
      const cmp = compareReleaseVersions(hub.version, min);
      if (cmp === undefined) {
        return {
          converged: false,
          reason: `baremetal operator version ${JSON.stringify(hub.version)} does not parse`,
        };
      }
      return cmp >= 0
        ? { converged: true, reason: `baremetal operator version ${hub.version} >= ${min}` }
        : { converged: false, reason: `baremetal operator version ${hub.version} < ${min}` };
    }
  }
}

/** Asks the hub (discovery, then ClusterOperator `baremetal`) and decides; never throws. */
export async function decideConvergedFlow(
  client: Pick<KubeClient, 'request' | 'getIfExists'>,
  allow: boolean,
  logger?: Logger,
): Promise<FlowDecision> {
  let decision: FlowDecision;
  if (!allow) decision = convergedFlowDecision(false, { kind: 'not-openshift' });
  else {
    let hub: Parameters<typeof convergedFlowDecision>[1];
    try {
      if (!(await new Discovery(client).allServed([CLUSTER_OPERATOR]))) {
        hub = { kind: 'not-openshift' };
      } else {
        const co = await client.getIfExists<ClusterOperator>(CLUSTER_OPERATOR, 'baremetal');
        hub = co
          ? { kind: 'version', version: co.status?.versions?.find((v) => v.name === 'operator')?.version }
          : { kind: 'absent' };
      }
    } catch (err) {
      hub = { kind: 'error', error: err instanceof Error ? err.message : String(err) };
    }
    decision = convergedFlowDecision(true, hub);
  }
  logger?.info(
    { convergedFlow: decision.converged, reason: decision.reason },
    decision.converged
      ? 'using the converged (PreprovisioningImage) flow'
      : 'using the non-converged (live ISO) flow',
  );
  return decision;
}
