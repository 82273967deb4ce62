// Which ironic URL a spoke calls back to on a dual-stack hub (kubeapi.md §3.7.1).
import { describe, expect, it } from 'vitest';
import { ipFamiliesFromAnnotation, ironicUrlForSpoke } from '../../../../src/core/ignition/index.ts';

const V4 = 'https://10.0.0.5:6385';
const V6 = 'https://[fd00:1::5]:6385';
const fam = (...f: ('ipv4' | 'ipv6')[]) => new Set(f);

describe('ironicUrlForSpoke', () => {
  it.each([
    ['one URL is used as given', V4, fam('ipv6'), V4],
    [
      'host names are used as given',
      'https://ironic.example,https://ironic6.example',
      fam('ipv6'),
      'https://ironic.example,https://ironic6.example',
    ],
    [
      'two URLs of one family are used as given',
      `${V4},https://10.0.0.6`,
      fam('ipv6'),
      `${V4},https://10.0.0.6`,
    ],
    ['three URLs are used as given', `${V4},${V6},${V4}`, fam('ipv6'), `${V4},${V6},${V4}`],
    ['dual-stack hub, unknown spoke: primary', `${V4},${V6}`, undefined, V4],
    ['dual-stack hub, v6-primary, unknown spoke: primary', `${V6},${V4}`, undefined, V6],
    ['dual-stack hub, v4 spoke', `${V4},${V6}`, fam('ipv4'), V4],
    ['dual-stack hub, dual-stack spoke: v4', `${V6},${V4}`, fam('ipv4', 'ipv6'), V4],
    ['dual-stack hub, v6-only spoke', `${V4},${V6}`, fam('ipv6'), V6],
    ['dual-stack hub, v6-only spoke, v6 listed first', `${V6},${V4}`, fam('ipv6'), V6],
    ['bare IPv6 host without port', `${V4},https://[fd00::9]`, fam('ipv6'), 'https://[fd00::9]'],
  ])('%s', (_name, urls, families, want) => {
    expect(ironicUrlForSpoke(urls, families)).toBe(want);
  });
});

describe('ipFamiliesFromAnnotation', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['v4', ['ipv4']],
    ['v6', ['ipv6']],
    ['v4,v6', ['ipv4', 'ipv6']],
    [' V6 , v4 ', ['ipv6', 'ipv4']],
    ['ipv6', undefined],
    ['v4,v5', undefined],
  ])('%j', (value, want) => {
    const got = ipFamiliesFromAnnotation(value);
    expect(got ? [...got] : undefined).toEqual(want);
  });
});
