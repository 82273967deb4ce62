// Host facts read from the Secrets an Agent references (kubeapi.md §3.4.5): the ignition endpoint
// token (ignitionEndpointTokenReference, key `ignition-token`) and the BMC fencing credentials
// (fencingCredentialsSecretRef: address, username, password, optional certificateVerification).
// Reading labels the Secrets for the watch and backup, so later edits reconcile the Agent.

import type { Agent } from '../../api/index.ts';
import type { OperatorContext } from '../context.ts';
import type { HostRuntimeFacts, SpecSyncError } from '../index.ts';
import { readSecret } from '../referenced.ts';

export interface ReferencedFacts {
  facts: HostRuntimeFacts;
  /** The ignition endpoint token (day-2 api-vip-connectivity step). */
  ignitionToken?: string;
  error?: SpecSyncError;
}

export async function referencedFacts(ctx: OperatorContext, agent: Agent): Promise<ReferencedFacts> {
  const facts: HostRuntimeFacts = {};
  const out: ReferencedFacts = { facts };
  const missing = (ns: string, name: string, what: string): SpecSyncError => ({
    kind: 'backend',
    message: `failed to get ${what} secret ${ns}/${name}: secrets "${name}" not found`,
  });
  const ref = agent.spec.ignitionEndpointTokenReference;
  if (ref?.name) {
    const ns = ref.namespace || agent.metadata.namespace || '';
    const data = await readSecret(ctx, ns, ref.name);
    if (!data) out.error ??= missing(ns, ref.name, 'ignition endpoint token');
    else {
      const token = data['ignition-token'] ?? '';
      facts.ignition_endpoint_token_set = token !== '';
      if (token) out.ignitionToken = token;
    }
  }
  const fencing = agent.spec.fencingCredentialsSecretRef;
  if (fencing) {
    const ns = agent.metadata.namespace ?? '';
    const data = await readSecret(ctx, ns, fencing);
    if (!data) out.error ??= missing(ns, fencing, 'fencing credentials');
    else {
      facts.fencing_credentials = JSON.stringify({
        address: data.address ?? '',
        username: data.username ?? '',
        password: data.password ?? '',
        ...(data.certificateVerification ? { certificate_verification: data.certificateVerification } : {}),
      });
    }
  }
  return out;
}
