import { describe, expect, it } from 'vitest';
import type { ConnectivityReport } from '../../../../src/core/model.ts';
import {
  CompactConnectivityReport,
  type ConnectivityReader,
  connectivityReader,
} from '../../../../src/core/network/connectivity-report.ts';
import { parseStepReply } from '../../../../src/core/steps/replies.ts';
import { seededRandom } from '../../../../src/sim/prng.ts';

const SEED = 20261128;
const WORLDS = 400;

/** A random report as the reply schema gives it: any field may be missing, any list absent or empty. */
function randomReport(random: () => number): ConnectivityReport {
  const maybe = <T>(v: () => T): T | undefined => (random() < 0.2 ? undefined : v());
  const str = () =>
    ['eth0', 'ens3', '10.0.0.1', '10.0.0.2', 'fe80::1', '52:54:00:00:00:01', ''][Math.floor(random() * 7)];
  const bool = () => random() < 0.5;
  const num = () => (random() < 0.3 ? Math.floor(random() * 5) : random() * 100);
  const list = <T>(item: () => T): T[] | undefined =>
    maybe(() => Array.from({ length: Math.floor(random() * 4) }, item));
  const drop = <T extends object>(o: T): T =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
  if (random() < 0.05) return {};
  return {
    remote_hosts: Array.from({ length: Math.floor(random() * 6) }, (_, k) =>
      drop({
        host_id: `host-${k}-${Math.floor(random() * 3)}`,
        l2_connectivity: list(() =>
          drop({
            outgoing_nic: maybe(str),
            outgoing_ip_address: maybe(str),
            remote_ip_address: maybe(str),
            remote_mac: maybe(str),
            successful: maybe(bool),
          }),
        ),
        l3_connectivity: list(() =>
          drop({
            outgoing_nic: maybe(str),
            remote_ip_address: maybe(str),
            successful: maybe(bool),
            average_rtt_ms: maybe(num),
            packet_loss_percentage: maybe(num),
          }),
        ),
        mtu_report: list(() =>
          drop({ outgoing_nic: maybe(str), remote_ip_address: maybe(str), mtu_successful: maybe(bool) }),
        ),
      }),
    ),
  };
}

/** Everything a reader answers, in one list, to compare two readers. */
function readAll(r: ConnectivityReader): unknown[] {
  const out: unknown[] = [r.remoteCount];
  for (let k = 0; k < r.remoteCount; k++) {
    out.push(r.hostId(k), r.l2Count(k), r.l3Count(k), r.mtuCount(k));
    for (let j = 0; j < r.l2Count(k); j++)
      out.push(r.l2OutgoingNic(k, j), r.l2RemoteIp(k, j), r.l2RemoteMac(k, j), r.l2Successful(k, j));
    for (let j = 0; j < r.l3Count(k); j++)
      out.push(
        r.l3RemoteIp(k, j),
        r.l3Successful(k, j),
        r.l3AverageRttMs(k, j),
        r.l3PacketLossPercentage(k, j),
      );
    for (let j = 0; j < r.mtuCount(k); j++)
      out.push(r.mtuOutgoingNic(k, j), r.mtuRemoteIp(k, j), r.mtuSuccessful(k, j));
  }
  return out;
}

describe('CompactConnectivityReport', () => {
  it(`serialises to the tree's text and reads as the tree reads (${WORLDS} seeded reports, seed ${SEED})`, () => {
    const random = seededRandom(SEED);
    for (let i = 0; i < WORLDS; i++) {
      const tree = randomReport(random);
      const compact = CompactConnectivityReport.of(tree);
      expect(compact, `report ${i}`).toBeDefined();
      expect(JSON.stringify(compact), `report ${i}`).toBe(JSON.stringify(tree));
      expect(readAll(compact as CompactConnectivityReport), `report ${i}`).toEqual(
        readAll(connectivityReader(tree)),
      );
      expect((compact as CompactConnectivityReport).equals(CompactConnectivityReport.of(tree)!)).toBe(true);
    }
  });

  it('tells reports apart by any field, and by an absent list from an empty one', () => {
    const base: ConnectivityReport = {
      remote_hosts: [
        {
          host_id: 'a',
          l2_connectivity: [{ remote_ip_address: '10.0.0.1', successful: true }],
          l3_connectivity: [{ remote_ip_address: '10.0.0.1', successful: true, average_rtt_ms: 0.5 }],
          mtu_report: [],
        },
      ],
    };
    const variants: ConnectivityReport[] = [
      { remote_hosts: [{ ...base.remote_hosts![0]!, host_id: 'b' }] },
      { remote_hosts: [{ ...base.remote_hosts![0]!, l2_connectivity: [{ remote_ip_address: '10.0.0.1' }] }] },
      {
        remote_hosts: [
          {
            ...base.remote_hosts![0]!,
            l3_connectivity: [{ remote_ip_address: '10.0.0.1', successful: true, average_rtt_ms: 0.6 }],
          },
        ],
      },
      {
        remote_hosts: [
          {
            host_id: 'a',
            l2_connectivity: base.remote_hosts![0]!.l2_connectivity,
            l3_connectivity: base.remote_hosts![0]!.l3_connectivity,
          },
        ],
      },
      { remote_hosts: [] },
      {},
    ];
    const c = CompactConnectivityReport.of(base)!;
    for (const v of variants) {
      expect(JSON.stringify(v)).not.toBe(JSON.stringify(base));
      expect(c.equals(CompactConnectivityReport.of(v)!), JSON.stringify(v)).toBe(false);
    }
  });

  it('is not made of a report it could not give back exactly: unknown keys, nulls, another key order', () => {
    const odd: unknown[] = [
      { remote_hosts: [{ host_id: 'a', extra: 1 }] },
      {
        remote_hosts: [
          { host_id: 'a', l2_connectivity: [{ successful: true, remote_ip_address: '10.0.0.1' }] },
        ],
      },
      { remote_hosts: [{ host_id: 'a', l3_connectivity: [{ remote_ip_address: null }] }] },
      { remote_hosts: [{ l2_connectivity: [], host_id: 'a' }] },
      { remote_hosts: null },
      { other: [] },
    ];
    for (const o of odd)
      expect(CompactConnectivityReport.of(o as ConnectivityReport), JSON.stringify(o)).toBeUndefined();
  });

  it('keeps a parsed agent reply exactly as the tree would have sent it', () => {
    // Keys in the Go agent's order (alphabetical), an unknown key, nulls: the parse decides what is kept.
    const output = JSON.stringify({
      remote_hosts: [
        {
          host_id: 'h1',
          l2_connectivity: [
            {
              outgoing_ip_address: '10.0.0.2',
              outgoing_nic: 'eth0',
              remote_ip_address: '10.0.0.1',
              remote_mac: '52:54:00:00:00:01',
              successful: true,
            },
          ],
          l3_connectivity: [
            {
              average_rtt_ms: 0.173,
              outgoing_nic: 'eth0',
              packet_loss_percentage: 0,
              remote_ip_address: '10.0.0.1',
              successful: true,
            },
          ],
          mtu_report: [{ mtu_successful: true, outgoing_nic: 'eth0', remote_ip_address: '10.0.0.1' }],
        },
        { host_id: 'h2', l2_connectivity: null, l3_connectivity: [] },
      ],
    });
    const parsed = parseStepReply({
      step_type: 'connectivity-check',
      step_id: 's',
      exit_code: 0,
      output,
    } as never);
    if (!parsed.ok || parsed.value.kind !== 'connectivity') throw new Error('reply did not parse');
    const tree = parsed.value.report as ConnectivityReport;
    const compact = CompactConnectivityReport.of(tree);
    expect(compact).toBeDefined();
    expect(JSON.stringify(compact)).toBe(JSON.stringify(tree));
  });
});
