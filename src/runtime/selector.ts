// metav1.LabelSelector matching and an index that answers "which cached objects match this selector"
// without scanning the whole store (e.g. InfraEnv.spec.nmStateConfigLabelSelector → NMStateConfigs).
import type { Store } from './store.ts';
import type { KubeObject } from './types.ts';

export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export const LABEL_PAIRS_INDEX = 'label-pairs';

/** Files an object under every 'key=value' label pair it carries. */
export function indexByLabelPairs(obj: KubeObject): string[] {
  const labels = obj.metadata.labels;
  if (!labels) return [];
  return Object.entries(labels).map(([k, v]) => `${k}=${v}`);
}

/** An empty selector matches everything (metav1 semantics); callers wanting "nothing" check first. */
export function matchesLabelSelector(
  labels: Record<string, string> | undefined,
  sel: LabelSelector,
): boolean {
  const l = labels ?? {};
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (l[k] !== v) return false;
  for (const r of sel.matchExpressions ?? []) {
    const has = Object.hasOwn(l, r.key);
    const value = l[r.key];
    switch (r.operator) {
      case 'In':
        if (!has || !r.values?.includes(value!)) return false;
        break;
      case 'NotIn':
        if (has && r.values?.includes(value!)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** Renders a selector in the query-string syntax the API server accepts (?labelSelector=). */
export function formatLabelSelector(sel: LabelSelector): string {
  const parts = Object.entries(sel.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const r of sel.matchExpressions ?? []) {
    const values = [...(r.values ?? [])].sort().join(',');
    if (r.operator === 'In') parts.push(`${r.key} in (${values})`);
    else if (r.operator === 'NotIn') parts.push(`${r.key} notin (${values})`);
    else if (r.operator === 'Exists') parts.push(r.key);
    else parts.push(`!${r.key}`);
  }
  return parts.join(',');
}

/**
 * Cached objects matching the selector. With the label-pairs index on the store, only the smallest
 * matchLabels bucket is scanned; without matchLabels (or without the index) the scan is limited to
 * `namespace` when given, else the whole store.
 */
export function selectFromStore<T extends KubeObject>(
  store: Store<T>,
  sel: LabelSelector,
  namespace?: string,
): T[] {
  let candidates: T[] | undefined;
  if (store.hasIndex(LABEL_PAIRS_INDEX)) {
    for (const [k, v] of Object.entries(sel.matchLabels ?? {})) {
      const bucket = store.byIndex(LABEL_PAIRS_INDEX, `${k}=${v}`);
      if (!candidates || bucket.length < candidates.length) candidates = bucket;
      if (bucket.length === 0) return [];
    }
  }
  candidates ??= namespace ? store.byNamespace(namespace) : store.list();
  return candidates.filter(
    (o) =>
      (namespace === undefined || o.metadata.namespace === namespace) &&
      matchesLabelSelector(o.metadata.labels, sel),
  );
}
