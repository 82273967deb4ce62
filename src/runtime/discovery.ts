// Asks the API server which resources it serves, so controllers for kinds whose CRDs may be absent
// (BareMetalHost, PreprovisioningImage) start only when they can work, and later if the CRD appears.
import { isNotFound, type KubeClient } from './client.ts';
import type { ApiResource } from './types.ts';

interface ApiResourceList {
  resources?: { name: string }[];
}

export class Discovery {
  private readonly client: Pick<KubeClient, 'request'>;

  constructor(client: Pick<KubeClient, 'request'>) {
    this.client = client;
  }

  /** True when every resource is served. One request per distinct group/version. */
  async allServed(resources: readonly ApiResource[]): Promise<boolean> {
    const byGroupVersion = new Map<string, ApiResource[]>();
    for (const r of resources) {
      const gv = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
      byGroupVersion.set(gv, [...(byGroupVersion.get(gv) ?? []), r]);
    }
    for (const [path, wanted] of byGroupVersion) {
      let list: ApiResourceList;
      try {
        list = await this.client.request<ApiResourceList>('GET', path);
      } catch (err) {
        if (isNotFound(err)) return false;
        throw err;
      }
      const served = new Set((list.resources ?? []).map((r) => r.name));
      if (!wanted.every((r) => served.has(r.plural))) return false;
    }
    return true;
  }
}
