// What the fleet holds in the API server, by kind: the objects' JSON as the API serves them, per
// cluster and in all, and the share of that in managedFields. kube-apiserver keeps every object in
// its watch cache and its Go heap grows with them, and its collector's work per write grows with
// that heap (at 10,000 clusters it held 3.9 GB and set the registration rate): a kind that grows
// here grows the hub's API server, whatever the operator's own RSS says.

import type { ApiResource, KubeClient, KubeObject } from '../src/runtime/index.ts';

export interface StoredKind {
  kind: string;
  objects: number;
  bytes: number;
  managedFieldsBytes: number;
}

const PAGE = 500;

async function storedOf(admin: KubeClient, res: ApiResource, namespace: string): Promise<StoredKind> {
  const stored: StoredKind = { kind: res.kind, objects: 0, bytes: 0, managedFieldsBytes: 0 };
  let next: string | undefined;
  do {
    const page = await admin.list<KubeObject>(res, { namespace, limit: PAGE, continue: next });
    for (const item of page.items) {
      stored.objects++;
      stored.bytes += Buffer.byteLength(JSON.stringify(item));
      const managed = item.metadata.managedFields;
      if (managed) stored.managedFieldsBytes += Buffer.byteLength(JSON.stringify(managed));
    }
    next = page.metadata?.continue || undefined;
  } while (next);
  return stored;
}

/** Lists each kind in `namespace` page by page and adds up what each object's JSON takes. */
export async function measureStoredObjects(
  admin: KubeClient,
  kinds: readonly ApiResource[],
  namespace: string,
): Promise<StoredKind[]> {
  const out: StoredKind[] = [];
  for (const res of kinds) out.push(await storedOf(admin, res, namespace));
  return out;
}
