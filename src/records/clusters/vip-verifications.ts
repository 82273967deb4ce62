// VIP verifications (the `verify-vips` step's answers): a frequent, low-value cluster fact kept in
// memory (docs/design/records.md), keyed by cluster id and VIP. They feed the api-vips-valid and
// ingress-vips-valid cluster validations; after a restart the next verify-vips round brings them
// back, and until then (warm-up) those validations keep their stored results.

import type { VipEntry } from '../../core/model.ts';
import { canonicalIp } from '../../core/network/cidr.ts';
import { perObject } from '../../util/per-object.ts';
import type { OperatorContext } from '../context.ts';
import type { AgentCluster } from '../index.ts';

type Verification = NonNullable<VipEntry['verification']>;

const byContext = perObject((_: OperatorContext) => new Map<string, Map<string, Verification>>());

function storeOf(ctx: OperatorContext): Map<string, Map<string, Verification>> {
  return byContext.of(ctx);
}

/**
 * Records a host's verify-vips reply for its cluster; true when a verification changed (the
 * caller then enqueues the ClusterDeployment). Unknown verification words are ignored.
 */
export function recordVipVerifications(
  ctx: OperatorContext,
  clusterId: string,
  vips: readonly { vip: string; verification?: string }[],
): boolean {
  const store = storeOf(ctx);
  const cluster = store.get(clusterId) ?? new Map<string, Verification>();
  store.set(clusterId, cluster);
  let changed = false;
  for (const v of vips) {
    const verification = v.verification;
    if (verification !== 'succeeded' && verification !== 'failed' && verification !== 'unverified') continue;
    const ip = canonicalIp(v.vip);
    if (cluster.get(ip) !== verification) {
      cluster.set(ip, verification);
      changed = true;
    }
  }
  return changed;
}

export function forgetVipVerifications(ctx: OperatorContext, clusterId: string): void {
  storeOf(ctx).delete(clusterId);
}

/** The cluster with the verifications known for its VIPs (entries without one are left alone). */
export function withVipVerifications(ctx: OperatorContext, cluster: AgentCluster): AgentCluster {
  const known = storeOf(ctx).get(cluster.id);
  if (!known || known.size === 0) return cluster;
  const apply = (entries: VipEntry[]) =>
    entries.map((e) => {
      const verification = known.get(canonicalIp(e.ip));
      return verification ? { ...e, verification } : e;
    });
  return { ...cluster, api_vips: apply(cluster.api_vips), ingress_vips: apply(cluster.ingress_vips) };
}
