import { describe, expect, it } from 'vitest';
import type { Cluster, DomainResolutionResponse, Host } from '../../../../src/core/model.ts';
import { decodeDataUrl } from '../../../../src/core/validations/host-dns.ts';
import { bound, host, inventory, peers, unbound } from './host-fixtures.ts';
import { outcome } from './host-helpers.ts';

const UMN: Partial<Cluster> = {
  user_managed_networking: true,
  platform: { type: 'none' },
  machine_networks: [],
};
const res = (domain_name: string, ipv4: string[] = [], ipv6: string[] = [], cnames: string[] = []) => ({
  domain_name,
  ipv4_addresses: ipv4,
  ipv6_addresses: ipv6,
  cnames,
});
const resolving = (...r: ReturnType<typeof res>[]): Host =>
  host({ domain_name_resolutions: { resolutions: r } as DomainResolutionResponse });
const ok = (d: string) => [
  'success',
  `Domain name resolution for the ${d} domain was successful or not required`,
];

describe('api / api-int / apps domain resolution', () => {
  const cases = [
    [
      'api-domain-name-resolved-correctly',
      'api.test.example.com',
      'api.test.example.com',
      'API load balancer',
    ],
    [
      'api-int-domain-name-resolved-correctly',
      'api-int.test.example.com',
      'api-int.test.example.com',
      'internal API load balancer',
    ],
    [
      'apps-domain-name-resolved-correctly',
      'console-openshift-console.apps.test.example.com',
      '*.apps.test.example.com',
      'application ingress',
    ],
  ] as const;

  describe.each(cases)('%s', (id, domain, printable, target) => {
    it('managed networking: not required', () => {
      expect(outcome(bound(), id)).toEqual(ok(printable));
    });
    it('UMN: resolved by IPv4, IPv6 or CNAME', () => {
      for (const r of [
        res(domain, ['10.0.0.5']),
        res(domain, [], ['fd00::5']),
        res(domain, [], [], ['lb.example.com']),
      ]) {
        expect(outcome(bound(resolving(r), UMN), id)).toEqual(ok(printable));
      }
    });
    it('UMN: not resolved', () => {
      const want = [
        'failure',
        `Couldn't resolve domain name ${printable} on the host. To continue installation, create the necessary DNS entries to resolve this domain name to your cluster's ${target} IP address`,
      ];
      expect(outcome(bound(resolving(res(domain)), UMN), id)).toEqual(want);
      expect(outcome(bound(resolving(res('other.example.com', ['1.2.3.4'])), UMN), id)).toEqual(want);
    });
    it('UMN: pointing at this host (literal CIDR-form comparison)', () => {
      expect(outcome(bound(resolving(res(domain, ['192.168.10.10/24'])), UMN), id)).toEqual([
        'failure',
        `Domain ${printable} must not point at 192.168.10.10/24 as it is the API address of this host. This domain must instead point at the IP address of a load balancer when using user managed networking in a multi control-plane node cluster`,
      ]);
      expect(outcome(bound(resolving(res(domain, ['192.168.10.10'])), UMN), id)).toEqual(ok(printable));
    });
    it('UMN: no reply yet is an error', () => {
      expect(outcome(bound(host(), UMN), id)).toEqual([
        'error',
        'Error while evaluating DNS resolution on this host',
      ]);
    });
    it('UMN: no base domain', () => {
      expect(outcome(bound(host(), { ...UMN, base_dns_domain: '' }), id)).toEqual([
        'error',
        `DNS validation for the ${target} domain cannot be completed because the cluster does not have base_dns_domain set. Please update the cluster with the correct base_dns_domain`,
      ]);
    });
    it('day-1 SNO with the dnsmasq hack: not required, unless disabled', () => {
      const sno = { ...UMN, control_plane_count: 1 };
      expect(outcome(bound(host(), sno), id)).toEqual(ok(printable));
      expect(outcome(bound(host(), sno, { config: { enableSingleNodeDnsmasq: false } }), id)[0]).toBe(
        'error',
      );
    });
    it('day-2 UMN SNO still validates', () => {
      const d2 = bound(host({ kind: 'AddToExistingClusterHost' }), {
        ...UMN,
        control_plane_count: 1,
        kind: 'AddHostsCluster',
      });
      expect(outcome(d2, id)[0]).toBe('error');
    });
    it('unbound: suppressed', () => expect(outcome(unbound(), id)[0]).toBe('success-suppress-output'));
  });

  describe('imported clusters', () => {
    const ign = (files: unknown[]) => JSON.stringify({ ignition: { version: '3.2.0' }, storage: { files } });
    const dayTwo = (replies: unknown[]) => {
      const hosts = replies.map((r, i) =>
        host({ id: `d2-${i}`, kind: 'AddToExistingClusterHost', api_vip_connectivity: r as never }),
      );
      return bound(hosts[0]!, { kind: 'AddHostsCluster', imported: true, hosts });
    };
    const kubeconfig = (server: string) =>
      `data:,${encodeURIComponent(`apiVersion: v1\nclusters:\n- cluster:\n    server: ${server}\n  name: c\n`)}`;
    const id = 'api-domain-name-resolved-correctly';
    it('no successful API reply yet → pending', () => {
      expect(outcome(dayTwo([undefined, { is_success: false }, '{bad']), id)).toEqual([
        'pending',
        'DNS validation for the api.test.example.com domain cannot be completed at the moment. This could be due to other validations',
      ]);
    });
    it.each([
      ['keepalived manifest → managed', [{ path: '/etc/kubernetes/manifests/keepalived.yaml' }], 'success'],
      ['coredns manifest → managed', [{ path: '/etc/kubernetes/manifests/coredns.yaml' }], 'success'],
      [
        'kubelet server is an IP → managed',
        [{ path: '/etc/kubernetes/kubeconfig', contents: { source: kubeconfig('https://10.0.0.1:6443') } }],
        'success',
      ],
      [
        'kubelet server is an IPv6 literal → managed',
        [{ path: '/etc/kubernetes/kubeconfig', contents: { source: kubeconfig('https://[fd00::1]:6443') } }],
        'success',
      ],
      [
        'kubelet server is a name → UMN (error: no DNS reply)',
        [
          {
            path: '/etc/kubernetes/kubeconfig',
            contents: { source: kubeconfig('https://api.test.example.com:6443') },
          },
        ],
        'error',
      ],
      ['nothing conclusive → UMN', [{ path: '/etc/motd' }], 'error'],
      [
        'kubeconfig unreadable → UMN',
        [{ path: '/etc/kubernetes/kubeconfig', contents: { source: 'https://x' } }],
        'error',
      ],
    ])('%s', (_name, files, status) => {
      expect(outcome(dayTwo([{ is_success: true, ignition: ign(files) }]), id)[0]).toBe(status);
    });
    it('unreadable ignitions are skipped; none readable → managed', () => {
      expect(outcome(dayTwo([{ is_success: true, ignition: 'not json' }]), id)[0]).toBe('success');
      expect(outcome(dayTwo([{ is_success: true }]), id)[0]).toBe('success');
    });
  });
});

describe('decodeDataUrl', () => {
  it.each([
    ['data:,hello%20world', 'hello world'],
    ['data:text/plain;base64,aGk=', 'hi'],
    ['data:,%E0%A4%A', undefined],
    ['http://x', undefined],
  ])('%s', (src, want) => expect(decodeDataUrl(src)).toBe(want));
});

describe('dns-wildcard-not-configured', () => {
  const fqdn = 'validateNoWildcardDNS.test.example.com.';
  const rel = 'validateNoWildcardDNS.test.example.com';
  const id = 'dns-wildcard-not-configured';
  it.each([
    ['no wildcard', [res(fqdn), res(rel)], ['success', 'DNS wildcard check was successful']],
    [
      'FQDN wildcard',
      [res(fqdn, ['1.2.3.4'], ['fd00::4'], ['x.example.com']), res(rel)],
      [
        'failure',
        'DNS wildcard configuration was detected for domain *.test.example.com - the installation will not be able to complete while this record exists. Please remove it to proceed. The domain resolves to 1.2.3.4, fd00::4, x.example.com',
      ],
    ],
    [
      'relative name resolves (DHCP domain search)',
      [res(fqdn), res(rel, ['5.6.7.8'])],
      [
        'failure',
        'Unexpected domain name resolution was detected for the relative domain name with the sub-domain *.test.example.com despite the fact that no resolution exists for a Fully Qualified Domain Name (FQDN) with same sub-domain. This is usually a sign of DHCP-provided domain-search configuration. The installation will not be able to complete with this configuration in place. Please remove it to proceed. The relative domain name resolves to 5.6.7.8',
      ],
    ],
    [
      'FQDN probe missing',
      [res(rel)],
      [
        'error',
        "Internal error - DNS wildcard check cannot be performed because the DNS validation result doesn't contain the wildcard domain",
      ],
    ],
    [
      'relative probe missing',
      [res(fqdn)],
      [
        'error',
        "Internal error - DNS wildcard check cannot be performed because the DNS validation result doesn't contain the wildcard domain",
      ],
    ],
  ] as const)('%s', (_name, r, want) => {
    expect(outcome(bound(resolving(...r)), id)).toEqual(want);
  });
  it('runs regardless of managed networking', () => {
    expect(outcome(bound(resolving(res(fqdn, ['1.1.1.1']), res(rel)), UMN), id)[0]).toBe('failure');
  });
  it('pending before any DNS reply; day-2 passes; unbound suppressed', () => {
    expect(outcome(bound(), id)).toEqual([
      'pending',
      'DNS wildcard check cannot be performed yet because the host has not yet performed DNS resolution',
    ]);
    const d2 = bound(host({ kind: 'AddToExistingClusterHost' }), { kind: 'AddHostsCluster' });
    expect(outcome(d2, id)).toEqual(['success', 'DNS wildcard check is not required for day2']);
    expect(outcome(unbound(), id)[0]).toBe('success-suppress-output');
  });
});

it('fixtures', () => {
  expect(inventory().hostname).toBe('master-0');
  expect(peers()).toHaveLength(2);
});
