// Fencing credentials for an Agent from its BareMetalHost (kubeapi.md §3.6 step 7): either the
// Secret the BMH names, or one generated from the BMH's BMC details. The shapes are planned in
// records/bmac-plan.ts; this file does the reads and the one write.
import type { Agent, BareMetalHost } from '../../api/index.ts';
import { fencingPlan, fencingSecret, fencingSecretPatch } from '../../records/bmac-plan.ts';
import type { OperatorContext } from '../../records/context.ts';
import { readSecret } from '../../records/referenced.ts';
import { SECRET } from '../../records/resources.ts';
import { isAlreadyExists } from '../../runtime/index.ts';

export type FencingOutcome =
  /** Nothing asked for. */
  | { ref: undefined }
  /** Reference this Secret from the Agent spec. */
  | { ref: string }
  /** The Secret could not be generated; the Agent spec is left as it is. */
  | { ref: undefined; error: string };

/**
 * The fencing Secret name for the Agent spec. For `create-fencing-credentials-secret` the BMC
 * credentials Secret is read (live on a cache miss, then labelled so it is cached and watched) and
 * `<agent>-fencing-credentials` is created, or patched when its data or labels differ.
 */
export async function ensureFencingCredentials(
  ctx: OperatorContext,
  bmh: BareMetalHost,
  agent: Agent,
): Promise<FencingOutcome> {
  const plan = fencingPlan(bmh, agent);
  if (!plan) return { ref: undefined };
  if (plan.kind === 'reference') return { ref: plan.name };
  const credentialsName = bmh.spec.bmc?.credentialsName;
  const credentials = credentialsName
    ? await readSecret(ctx, bmh.metadata.namespace ?? '', credentialsName)
    : undefined;
  const built = fencingSecret(bmh, agent, credentials);
  if ('error' in built) return { ref: undefined, error: built.error };
  const wanted = built.secret;
  const ns = wanted.metadata.namespace;
  const existing = await ctx.informers.secrets.getOrFetch(ns, wanted.metadata.name);
  if (!existing) {
    try {
      await ctx.client.create(SECRET, wanted);
    } catch (err) {
      // Created meanwhile (or not yet in the cache): the next pass compares and patches it.
      if (!isAlreadyExists(err)) throw err;
    }
  } else {
    const patch = fencingSecretPatch(existing, wanted);
    if (patch) await ctx.client.patch(SECRET, wanted.metadata.name, ns, 'merge', patch);
  }
  return { ref: wanted.metadata.name };
}
