import { describe, expect, it } from 'vitest';
import type { ConnectivityRemoteHost, Host } from '../../../../src/core/model.ts';
import { summarizeRemotes } from '../../../../src/core/validations/host-latency.ts';
import { bound, host, inventory, peers, unbound } from './host-fixtures.ts';
import { outcome } from './host-helpers.ts';

const LAT = 'sufficient-network-latency-requirement-for-role';
const LOSS = 'sufficient-packet-loss-requirement-for-role';

const l3 = (host_id: string, ip: string, rtt: number, loss = 0): ConnectivityRemoteHost => ({
  host_id,
  l3_connectivity: [
    { remote_ip_address: ip, successful: true, average_rtt_ms: rtt, packet_loss_percentage: loss },
  ],
});
const withReport = (remote: ConnectivityRemoteHost[], o: Partial<Host> = {}) =>
  host({ connectivity: { remote_hosts: remote }, ...o });

const actionsLatency =
  'Actions:\n1: Please try the following commands on the host master-0 and examine averages to investigate the latency issue further\n\n' +
  '2: Please try the following commands on the host master-0 to investigate the packet loss further\n\n' +
  'ping -c 10 -W 3 -q -I eth0 192.168.10.10/24\n';

describe('network latency (masters: 100 ms, strict >)', () => {
  it.each([
    [99.99, 'success'],
    [100, 'success'],
    [100.01, 'failure'],
  ])('%d ms to another master → %s', (rtt, status) => {
    const [s] = outcome(bound(withReport([l3('host-1', '192.168.10.11', rtt)])), LAT);
    expect(s).toBe(status);
  });

  it('failure message (literal \\n after the first sentence)', () => {
    expect(outcome(bound(withReport([l3('host-1', '192.168.10.11', 150.5)])), LAT)).toEqual([
      'failure',
      'A total network latency above the tolerated threshold of 100.00 ms was encountered when performing network latency tests between host host-0 and master-1 (150.50 ms)\\n' +
        actionsLatency,
    ]);
  });

  it('no interfaces → no actions', () => {
    const h = withReport([l3('host-1', '192.168.10.11', 150)], { inventory: inventory({ interfaces: [] }) });
    expect(outcome(bound(h), LAT)[1]).toBe(
      'A total network latency above the tolerated threshold of 100.00 ms was encountered when performing network latency tests between host host-0 and master-1 (150.00 ms)\\n',
    );
  });

  it('workers use the 1000 ms threshold and only compare with workers', () => {
    const w = (id: string, n: number) =>
      host({
        id,
        role: 'worker',
        suggested_role: 'worker',
        inventory: inventory({ hostname: `worker-${n}` }),
      });
    const me = {
      ...w('w0', 0),
      connectivity: { remote_hosts: [l3('w1', '10.0.0.1', 1000.5), l3('host-1', '10.0.0.2', 5000)] },
    };
    const input = bound(me, { hosts: [me, w('w1', 1), ...peers()] });
    expect(outcome(input, LAT)[1]).toMatch(
      /^A total network latency above the tolerated threshold of 1000\.00 ms .* and worker-1 \(1000\.50 ms\)\\n/,
    );
  });

  it('one failure per remote IP; remote hosts without inventory are skipped', () => {
    const noInv = host({ id: 'host-9', inventory: undefined });
    const me = withReport([
      {
        host_id: 'host-1',
        l3_connectivity: [
          { remote_ip_address: '192.168.10.11', average_rtt_ms: 200 },
          { remote_ip_address: '192.168.10.11', average_rtt_ms: 300 },
        ],
      },
      l3('host-9', '192.168.10.19', 500),
    ]);
    const input = bound(me, { hosts: [me, ...peers(), noInv] });
    expect(outcome(input, LAT)[1]).toContain('and master-1 (200.00 ms)\\n');
  });

  it('unknown remote host', () => {
    expect(outcome(bound(withReport([l3('ghost', '1.1.1.1', 500)])), LAT)).toEqual([
      'failure',
      'Error while attempting to validate network latency: host with ID ghost was not found',
    ]);
  });

  it.each([
    ['single host cluster', (h: Host) => bound(h, { hosts: [h] })],
    ['auto-assign role', (h: Host) => bound({ ...h, role: 'auto-assign', suggested_role: '' })],
    [
      'day-2 host',
      (h: Host) => bound({ ...h, kind: 'AddToExistingClusterHost' }, { kind: 'AddHostsCluster' }),
    ],
    ['SNO (no threshold)', (h: Host) => bound(h, { control_plane_count: 1 })],
  ])('%s → satisfied', (_name, make) => {
    expect(outcome(make(withReport([l3('host-1', '192.168.10.11', 999)])), LAT)).toEqual([
      'success',
      'Network latency requirement has been satisfied.',
    ]);
  });

  it('pending / suppressed', () => {
    expect(outcome(bound(host({ connectivity: undefined })), LAT)).toEqual([
      'pending',
      'Missing network latency information.',
    ]);
    expect(outcome(bound(host({ inventory: undefined })), LAT)).toEqual([
      'pending',
      'The inventory is not available yet.',
    ]);
    expect(outcome(unbound(), LAT)[0]).toBe('success-suppress-output');
    expect(outcome(unbound({ inventory: undefined }), LAT)[0]).toBe('pending');
  });
});

describe('packet loss (masters 0 %, workers 10 %)', () => {
  it.each([
    [0, 'success'],
    [0.01, 'failure'],
  ])('%d %% to another master → %s', (loss, status) => {
    expect(outcome(bound(withReport([l3('host-1', '192.168.10.11', 1, loss)])), LOSS)[0]).toBe(status);
  });

  it('failure message', () => {
    expect(outcome(bound(withReport([l3('host-1', '192.168.10.11', 1, 12.5)])), LOSS)).toEqual([
      'failure',
      'A total packet loss above the tolerated threshold of 0.00% was encountered when performing connectivity validation between host host-0 and master-1 (12.50%)\\n' +
        'Actions:\n1: Check if there are multiple devices on the same L2 network, if so then use the built-in nmstate-based advanced networking configuration to create a bond or disable all but one of the interfaces.\n' +
        '2: Please try the following commands on the host master-0 to investigate the packet loss further\n\n' +
        'ping -c 10 -W 3 -q -I eth0 192.168.10.10/24\n',
    ]);
  });

  it('worker boundary at 10 %', () => {
    const w = (id: string) => host({ id, role: 'worker', suggested_role: 'worker' });
    for (const [loss, status] of [
      [10, 'success'],
      [10.5, 'failure'],
    ] as const) {
      const me = { ...w('w0'), connectivity: { remote_hosts: [l3('w1', '10.0.0.1', 1, loss)] } };
      expect(outcome(bound(me, { hosts: [me, w('w1')] }), LOSS)[0]).toBe(status);
    }
  });

  it('unknown remote host / pending', () => {
    expect(outcome(bound(withReport([l3('ghost', '1.1.1.1', 1, 50)])), LOSS)).toEqual([
      'failure',
      'Error while attempting to validate packet loss validation: host with ID ghost was not found',
    ]);
    expect(outcome(bound(host({ connectivity: undefined })), LOSS)).toEqual([
      'pending',
      'Missing packet loss information.',
    ]);
    expect(outcome(bound(host({ connectivity: undefined }), { hosts: [host()] }), LOSS)).toEqual([
      'success',
      'Packet loss requirement has been satisfied.',
    ]);
  });
});

describe('list and ping truncation', () => {
  it('5 entries listed, the 6th with "and others..."', () => {
    const remotes = Array.from({ length: 7 }, (_, i) => ({
      hostname: `h${i}`,
      value: i + 0.5,
      suffix: ' ms',
    }));
    expect(summarizeRemotes(remotes)).toBe(
      'h0 (0.50 ms), h1 (1.50 ms), h2 (2.50 ms), h3 (3.50 ms), h4 (4.50 ms), h5 (5.50 ms) and others...',
    );
    expect(summarizeRemotes(remotes.slice(0, 5))).toBe(
      'h0 (0.50 ms), h1 (1.50 ms), h2 (2.50 ms), h3 (3.50 ms), h4 (4.50 ms)',
    );
    expect(summarizeRemotes([{ hostname: 'x', value: 0.125, suffix: '%' }])).toBe('x (0.12%)');
  });

  it('5 ping lines per interface, then "etc... "', () => {
    const addresses = Array.from({ length: 7 }, (_, i) => `10.0.0.${i}/24`);
    const h = withReport([l3('host-1', '192.168.10.11', 1, 50)], {
      inventory: inventory({
        interfaces: [
          { name: 'eth0', ipv4_addresses: addresses },
          { name: 'eth1', ipv4_addresses: ['10.1.0.1/24'] },
        ],
      }),
    });
    const message = outcome(bound(h), LOSS)[1];
    const pings = message.split('\n').filter((l) => l.startsWith('ping') || l.startsWith('etc'));
    expect(pings).toEqual([
      'ping -c 10 -W 3 -q -I eth0 10.0.0.0/24',
      'ping -c 10 -W 3 -q -I eth0 10.0.0.1/24',
      'ping -c 10 -W 3 -q -I eth0 10.0.0.2/24',
      'ping -c 10 -W 3 -q -I eth0 10.0.0.3/24',
      'ping -c 10 -W 3 -q -I eth0 10.0.0.4/24',
      'etc... ',
      'ping -c 10 -W 3 -q -I eth1 10.1.0.1/24',
    ]);
  });
});
