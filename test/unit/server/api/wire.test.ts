// Host list on the wire: inventory and connectivity only when asked for, and then serialised once.
import { describe, expect, it } from 'vitest';
import type { ConnectivityReport, Host } from '../../../../src/core/model.ts';
import { CompactConnectivityReport } from '../../../../src/core/network/connectivity-report.ts';
import { type HostListFilter, hostListOf, hostToWire } from '../../../../src/server/api/wire.ts';

function hostListToWire(hosts: readonly Host[], filter: HostListFilter) {
  const list = hostListOf(hosts, filter);
  return list.hosts.map(list.toWire);
}

/** A value whose serialisations are counted (a 1,000-host cluster's report is 0.5 MiB of JSON). */
function counted<T extends object>(value: T): { value: T; count: () => number } {
  let n = 0;
  const wrapped = {
    ...value,
    toJSON: () => {
      n++;
      return value;
    },
  };
  return { value: wrapped, count: () => n };
}

function hosts(n: number) {
  const reports = Array.from({ length: n }, (_, i) =>
    counted({ remote_hosts: [{ host_id: `h${(i + 1) % n}` }] }),
  );
  const inventories = Array.from({ length: n }, (_, i) => counted({ hostname: `host-${i}` }));
  const list = reports.map(
    (r, i) =>
      ({
        id: `h${i}`,
        infra_env_id: 'ie',
        status: 'known',
        role: 'worker',
        connectivity: r.value,
        inventory: inventories[i]!.value,
      }) as unknown as Host,
  );
  const serialised = () => [...reports, ...inventories].reduce((sum, c) => sum + c.count(), 0);
  return { list, serialised };
}

describe('hostListOf', () => {
  it('serialises no inventory or report it leaves out', () => {
    const { list, serialised } = hosts(3);
    const wire = hostListToWire(list, {});
    expect(wire.map((h) => h.id)).toEqual(['h0', 'h1', 'h2']);
    expect(wire[0]).not.toHaveProperty('connectivity');
    expect(wire[0]).not.toHaveProperty('inventory');
    expect(serialised()).toBe(0);
  });

  it('serialises each asked-for value once, as a JSON string', () => {
    const { list, serialised } = hosts(3);
    const wire = hostListToWire(list, { withConnectivity: true, withInventory: true });
    expect(wire[1]!.connectivity).toBe('{"remote_hosts":[{"host_id":"h2"}]}');
    expect(wire[1]!.inventory).toBe('{"hostname":"host-1"}');
    expect(serialised()).toBe(6);
  });

  it('filters by role and status before serialising anything', () => {
    const { list, serialised } = hosts(3);
    (list[1] as { role: string }).role = 'master';
    const wire = hostListToWire(list, { role: 'master', withConnectivity: true });
    expect(wire.map((h) => h.id)).toEqual(['h1']);
    expect(serialised()).toBe(1);
  });
});

describe('hostToWire', () => {
  it('sends a report kept compact as the JSON string of the report it was made from', () => {
    const report: ConnectivityReport = {
      remote_hosts: [
        {
          host_id: 'h2',
          l2_connectivity: [{ outgoing_nic: 'eth0', remote_ip_address: '10.0.0.2', successful: true }],
          l3_connectivity: [{ remote_ip_address: '10.0.0.2', successful: true, average_rtt_ms: 0.25 }],
          mtu_report: [],
        },
      ],
    };
    const host = { id: 'h1', infra_env_id: 'ie', status: 'known', role: 'worker' } as Host;
    const compact = CompactConnectivityReport.of(report);
    expect(compact).toBeInstanceOf(CompactConnectivityReport);
    expect(hostToWire({ ...host, connectivity: compact }).connectivity).toBe(JSON.stringify(report));
  });
});
