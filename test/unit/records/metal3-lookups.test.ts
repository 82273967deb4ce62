// The BMH and PreprovisioningImage lookups BMAC's and the PPI controller's watches map events
// with: indexed, with the same matching rules the namespace walks they replace had (MACs and the
// InfraEnv label without case for BMHs, the fencing annotation required, one namespace only).
import { describe, expect, it } from 'vitest';
import type { BareMetalHost, InfraEnv, PreprovisioningImage } from '../../../src/api/index.ts';
import { BMH_CREATE_FENCING_CREDENTIALS_SECRET_ANNOTATION, INFRAENV_LABEL } from '../../../src/api/index.ts';
import type { OperatorContext } from '../../../src/records/context.ts';
import {
  bmhsBootingFrom,
  bmhsFencingWith,
  bmhsOfInfraEnv,
  ppisOfInfraEnv,
} from '../../../src/records/metal3.ts';
import { BARE_METAL_HOST, PREPROVISIONING_IMAGE } from '../../../src/records/resources.ts';
import { type ApiResource, type KubeObject, Store } from '../../../src/runtime/index.ts';

function bmh(
  ns: string,
  name: string,
  opts: { mac?: string; infraEnv?: string; bmcSecret?: string; fencing?: boolean } = {},
): BareMetalHost {
  return {
    metadata: {
      namespace: ns,
      name,
      labels: opts.infraEnv ? { [INFRAENV_LABEL]: opts.infraEnv } : {},
      annotations: opts.fencing ? { [BMH_CREATE_FENCING_CREDENTIALS_SECRET_ANNOTATION]: '' } : {},
    },
    spec: {
      ...(opts.mac ? { bootMACAddress: opts.mac } : {}),
      ...(opts.bmcSecret ? { bmc: { address: 'redfish://bmc', credentialsName: opts.bmcSecret } } : {}),
    },
  } as unknown as BareMetalHost;
}

function world(bmhs: BareMetalHost[], ppis: PreprovisioningImage[] = []) {
  const stores = new Map<string, Store<KubeObject>>([
    [BARE_METAL_HOST.plural, new Store()],
    [PREPROVISIONING_IMAGE.plural, new Store()],
  ]);
  for (const b of bmhs) stores.get(BARE_METAL_HOST.plural)?.upsert(b);
  for (const p of ppis) stores.get(PREPROVISIONING_IMAGE.plural)?.upsert(p);
  const ctx = {
    mgr: { informer: (res: ApiResource) => ({ store: stores.get(res.plural) }) },
  } as unknown as OperatorContext;
  return { ctx, bmhStore: stores.get(BARE_METAL_HOST.plural) as Store<KubeObject> };
}

const names = (objs: KubeObject[]) => objs.map((o) => `${o.metadata.namespace}/${o.metadata.name}`).sort();
const ie = (ns: string, name: string) => ({ metadata: { namespace: ns, name } }) as unknown as InfraEnv;

describe('BMH and PPI lookups', () => {
  it('BMHs booting from an Agent MAC: any case, its namespace only', () => {
    const { ctx } = world([
      bmh('ns', 'upper', { mac: '52:54:00:AA:BB:01' }),
      bmh('ns', 'lower', { mac: '52:54:00:aa:bb:02' }),
      bmh('ns', 'none'),
      bmh('other', 'same-mac', { mac: '52:54:00:aa:bb:01' }),
    ]);
    expect(names(bmhsBootingFrom(ctx, 'ns', ['52:54:00:aa:bb:01', '52:54:00:AA:BB:02', '']))).toEqual([
      'ns/lower',
      'ns/upper',
    ]);
    expect(bmhsBootingFrom(ctx, 'ns', [])).toEqual([]);
  });

  it('BMHs of an InfraEnv: the label compared without case', () => {
    const { ctx } = world([
      bmh('ns', 'a', { infraEnv: 'MyEnv' }),
      bmh('ns', 'b', { infraEnv: 'other' }),
      bmh('other', 'c', { infraEnv: 'myenv' }),
    ]);
    expect(names(bmhsOfInfraEnv(ctx, ie('ns', 'myenv')))).toEqual(['ns/a']);
  });

  it('BMHs fencing with a Secret: only those asking for generated fencing credentials', () => {
    const { ctx } = world([
      bmh('ns', 'fencing', { bmcSecret: 'bmc', fencing: true }),
      bmh('ns', 'plain', { bmcSecret: 'bmc' }),
      bmh('other', 'elsewhere', { bmcSecret: 'bmc', fencing: true }),
    ]);
    const secret = { metadata: { namespace: 'ns', name: 'bmc' } } as KubeObject;
    expect(names(bmhsFencingWith(ctx, secret))).toEqual(['ns/fencing']);
  });

  it('an index follows a BMH whose MAC changes', () => {
    const { ctx, bmhStore } = world([bmh('ns', 'h', { mac: '52:54:00:00:00:01' })]);
    expect(bmhsBootingFrom(ctx, 'ns', ['52:54:00:00:00:01'])).toHaveLength(1);
    bmhStore.upsert(bmh('ns', 'h', { mac: '52:54:00:00:00:02' }));
    expect(bmhsBootingFrom(ctx, 'ns', ['52:54:00:00:00:01'])).toEqual([]);
    expect(bmhsBootingFrom(ctx, 'ns', ['52:54:00:00:00:02'])).toHaveLength(1);
  });

  it('PreprovisioningImages of an InfraEnv: the label as it is', () => {
    const ppi = (ns: string, name: string, label: string) =>
      ({ metadata: { namespace: ns, name, labels: { [INFRAENV_LABEL]: label } } }) as PreprovisioningImage;
    const { ctx } = world([], [ppi('ns', 'a', 'env'), ppi('ns', 'b', 'Env'), ppi('other', 'c', 'env')]);
    expect(names(ppisOfInfraEnv(ctx, ie('ns', 'env')))).toEqual(['ns/a']);
  });
});
