// Reading Secrets and ConfigMaps that CRs reference. Only labelled ones are cached; on a miss the
// object is read live and then labelled (watch + backup labels, as upstream), so the next read and
// later changes come from the cache and trigger reconciles.
import { BACKUP_LABEL, WATCH_LABEL } from '../api/index.ts';
import type { KubeObject } from '../runtime/index.ts';
import type { OperatorContext } from './context.ts';
import { CONFIG_MAP, SECRET } from './resources.ts';

export interface DataObject extends KubeObject {
  data?: Record<string, string>;
  type?: string;
}

/**
 * The referenced object from the cache, else read live; when it lacks the watch and backup labels,
 * PATCHes them onto it (a write to the user's Secret or ConfigMap) so it is cached from now on.
 */
export async function getAndLabelForWatch(
  ctx: OperatorContext,
  kind: 'secret' | 'configmap',
  ns: string,
  name: string,
) {
  const informer = kind === 'secret' ? ctx.informers.secrets : ctx.informers.configMaps;
  const obj = (await informer.getOrFetch(ns, name)) as DataObject | undefined;
  if (!obj) return undefined;
  const labels = obj.metadata.labels ?? {};
  if (labels[WATCH_LABEL] !== 'true' || labels[BACKUP_LABEL] !== 'true') {
    await ctx.client.patch(kind === 'secret' ? SECRET : CONFIG_MAP, name, ns, 'merge', {
      metadata: { labels: { [WATCH_LABEL]: 'true', [BACKUP_LABEL]: 'true' } },
    });
  }
  return obj;
}

/**
 * What getAndLabelForWatch answers when the cache already holds the object with both labels (no
 * read, no write), answered without a promise: every host poll reads its cluster's and its
 * infra-env's pull Secret. Undefined: not so, ask getAndLabelForWatch.
 */
export function watchedFromCache(
  ctx: OperatorContext,
  kind: 'secret' | 'configmap',
  ns: string,
  name: string,
): DataObject | undefined {
  const informer = kind === 'secret' ? ctx.informers.secrets : ctx.informers.configMaps;
  const obj = informer.get(ns, name) as DataObject | undefined;
  const labels = obj?.metadata.labels;
  return labels?.[WATCH_LABEL] === 'true' && labels[BACKUP_LABEL] === 'true' ? obj : undefined;
}

/** A Secret's data decoded (base64 → utf8). */
export function decodedSecretData(s: DataObject): Record<string, string> {
  return Object.fromEntries(
    Object.entries(s.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]),
  );
}

/**
 * The Secret's decoded data (base64 → utf8), or undefined when it does not exist. Labels the Secret
 * for the watch on first read (see getAndLabelForWatch).
 */
export async function readSecret(
  ctx: OperatorContext,
  ns: string,
  name: string,
): Promise<Record<string, string> | undefined> {
  const s = await getAndLabelForWatch(ctx, 'secret', ns, name);
  return s ? decodedSecretData(s) : undefined;
}

/** The ConfigMap's data, or undefined when it does not exist; labels it like readSecret. */
export async function readConfigMap(
  ctx: OperatorContext,
  ns: string,
  name: string,
): Promise<Record<string, string> | undefined> {
  const cm = await getAndLabelForWatch(ctx, 'configmap', ns, name);
  return cm ? (cm.data ?? {}) : undefined;
}
