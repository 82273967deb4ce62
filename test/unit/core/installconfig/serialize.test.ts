// Go encoding/json semantics of the serialiser: omitempty per kind, nil vs empty, key order.

import { describe, expect, it } from 'vitest';
import {
  goJsonMarshal,
  type InstallConfig,
  toOrderedDocument,
} from '../../../../src/core/installconfig/index.ts';

const minimal = (): InstallConfig => ({
  apiVersion: 'v1',
  baseDomain: 'x',
  networking: { networkType: '', clusterNetwork: null, serviceNetwork: null },
  metadata: { name: 'n' },
  compute: null,
  controlPlane: { name: 'master', replicas: 0 },
  platform: {},
  fips: false,
  pullSecret: '',
  sshKey: '',
});

describe('toOrderedDocument', () => {
  it('emits non-omitempty zero values and drops omitempty ones', () => {
    expect(JSON.stringify(toOrderedDocument(minimal()))).toBe(
      '{"apiVersion":"v1","baseDomain":"x","networking":{"networkType":"","clusterNetwork":null,"serviceNetwork":null},"metadata":{"name":"n"},"compute":null,"controlPlane":{"name":"master","replicas":0},"platform":{},"fips":false,"pullSecret":"","sshKey":""}',
    );
  });
  it('keeps empty pointed-to structs, nil pointer elements and zero ints inside lists', () => {
    const cfg = minimal();
    cfg.controlPlane.fencing = { credentials: [null, { address: '', username: '', password: '' }] };
    cfg.platform = {
      vsphere: { vcenters: [{ datacenters: [], password: '', server: '', user: '', port: 0 }] },
    };
    const doc = toOrderedDocument(cfg) as { controlPlane: unknown; platform: unknown };
    expect(doc.controlPlane).toEqual({
      name: 'master',
      replicas: 0,
      fencing: { credentials: [null, { address: '', username: '', password: '' }] },
    });
    expect(doc.platform).toEqual({
      vsphere: { vcenters: [{ datacenters: [], password: '', server: '', user: '' }] },
    });
  });
  it('treats values of the wrong JS type as Go zero values', () => {
    const cfg = minimal() as unknown as Record<string, unknown>;
    cfg.fips = 'yes';
    cfg.baseDomain = 7;
    cfg.metadata = null;
    const doc = toOrderedDocument(cfg as unknown as InstallConfig) as Record<string, unknown>;
    expect([doc.fips, doc.baseDomain, doc.metadata]).toEqual([false, '', { name: '' }]);
  });
});

describe('goJsonMarshal', () => {
  it('escapes HTML characters and line separators as Go does', () => {
    expect(goJsonMarshal({ a: '<x>&\u2028\u2029' })).toBe('{"a":"\\u003cx\\u003e\\u0026\\u2028\\u2029"}');
  });
});
