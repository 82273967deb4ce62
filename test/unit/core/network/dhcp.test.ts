import { describe, expect, it } from 'vitest';
import {
  apiVipMac,
  dataUrl,
  formatLease,
  goPathEscape,
  ingressVipMac,
  isValidLease,
  keepalivedMonitorConf,
  pearsonHash,
} from '../../../../src/core/network/dhcp.ts';

describe('VIP MACs', () => {
  // Expected values computed independently (RFC 3074 table, upstream's hashing loop).
  it.each([
    ['8d5b0f5e-6c6a-4a3c-9b1e-3f2b9a1c7d42', '00:1a:4a:15:19:57', '00:1a:4a:a3:15:7b'],
    ['00000000-0000-0000-0000-000000000000', '00:1a:4a:2c:13:55', '00:1a:4a:11:95:b9'],
  ])('%s', (id, api, ingress) => {
    expect(apiVipMac(id)).toBe(api);
    expect(ingressVipMac(id)).toBe(ingress);
  });
  it('pearson hash of empty input and length', () => {
    expect(pearsonHash(new Uint8Array(), 2)).toEqual([251, 175]);
    expect(pearsonHash(new Uint8Array([1, 2, 3]), 0)).toEqual([]);
    expect(pearsonHash(new Uint8Array([1]), 4)).toHaveLength(4);
  });
});

describe('leases', () => {
  const lease = `lease {
  interface "api";
  fixed-address 192.168.111.100;
  renew 3 2026/01/07 12:00:00;
  rebind 3 2026/01/07 13:00:00;
  expire 3 2026/01/07 14:00:00;
}`;
  it('replaces renew / rebind / expire with never', () => {
    expect(formatLease(lease)).toBe(`lease {
  interface "api";
  fixed-address 192.168.111.100;
  renew never;
  rebind never;
  expire never;
}`);
  });
  it('validates the lease shape', () => {
    expect(isValidLease(lease)).toBe(true);
    expect(isValidLease('')).toBe(true);
    expect(isValidLease('lease { interface "api" }')).toBe(false);
    expect(isValidLease('garbage')).toBe(false);
  });
});

describe('keepalived monitor file', () => {
  const base = {
    id: '00000000-0000-0000-0000-000000000000',
    vip_dhcp_allocation: true,
    user_managed_networking: false,
    api_vips: [{ ip: '10.0.0.5' }],
    ingress_vips: [{ ip: '10.0.0.6' }],
  };
  it('renders both VIPs', () => {
    expect(keepalivedMonitorConf(base)).toEqual({
      content: `api-vip:
  name: api
  mac-address: 00:1a:4a:2c:13:55
  ip-address: 10.0.0.5
ingress-vip:
  name: ingress
  mac-address: 00:1a:4a:11:95:b9
  ip-address: 10.0.0.6
`,
    });
  });
  it('only in DHCP mode without UMN; both VIPs required', () => {
    expect(keepalivedMonitorConf({ ...base, vip_dhcp_allocation: false })).toBeUndefined();
    expect(keepalivedMonitorConf({ ...base, user_managed_networking: true })).toBeUndefined();
    expect(keepalivedMonitorConf({ ...base, ingress_vips: [] })).toEqual({
      error: 'Either API VIP <10.0.0.5> or Ingress VIP <> are not set',
    });
    expect(keepalivedMonitorConf({ ...base, api_vips: [] })).toEqual({
      error: 'Either API VIP <> or Ingress VIP <10.0.0.6> are not set',
    });
  });
  it('data URLs use Go path escaping', () => {
    expect(goPathEscape('a b/c;d,e?f$g&h+i:j=k@l~m_n.o-p!é')).toBe(
      'a%20b%2Fc%3Bd%2Ce%3Ff$g&h+i:j=k@l~m_n.o-p%21%C3%A9',
    );
    expect(dataUrl('')).toBe('');
    expect(dataUrl('lease {\n}')).toBe('data:,lease%20%7B%0A%7D');
  });
});
