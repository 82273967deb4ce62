// Connectivity majority groups of a cluster whose hosts all reach each other (every report names
// every other host): the O(n²) computation the cluster monitor runs, and the share of a core it may
// take when reports keep changing, paced as src/controllers/cluster/connectivity-pacing.ts paces it.
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import {
  BACKGROUND_FROM_HOSTS,
  ConnectivityPacing,
  computedConnectivity,
  MAX_SPACING_MS,
  PACE_FACTOR,
} from '../src/controllers/cluster/connectivity-pacing.ts';
import type { Cluster, ConnectivityReport, Host, InfraEnv } from '../src/core/model.ts';
import { CompactConnectivityReport } from '../src/core/network/connectivity-report.ts';
import { connectivityCheckStep } from '../src/core/steps/discovery-steps.ts';
import type { StepsOptions } from '../src/core/steps/index.ts';
import { parseStepReply } from '../src/core/steps/replies.ts';
import { HostFactsStore } from '../src/records/facts.ts';
import { connectivityReport, hostId, inventory } from './fleet.ts';

function fullMesh(n: number): Host[] {
  const ip = (i: number) => `10.0.${Math.floor(i / 250)}.${(i % 250) + 1}`;
  const mac = (i: number) =>
    `52:54:00:00:${(i >> 8).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}`;
  const ids = Array.from(
    { length: n },
    (_, i) => `00000000-0000-4000-8000-${i.toString().padStart(12, '0')}`,
  );
  return ids.map((id, i) => ({
    id,
    status: 'known',
    inventory: {
      interfaces: [
        { name: 'eth0', mac_address: mac(i), ipv4_addresses: [`${ip(i)}/16`], ipv6_addresses: [] },
      ],
    },
    connectivity: {
      remote_hosts: ids.flatMap((other, k) =>
        k === i
          ? []
          : [
              {
                host_id: other,
                l2_connectivity: [
                  { outgoing_nic: 'eth0', remote_ip_address: ip(k), remote_mac: mac(k), successful: true },
                ],
                l3_connectivity: [
                  { outgoing_nic: 'eth0', remote_ip_address: ip(k), successful: true, average_rtt_ms: 0.1 },
                ],
              },
            ],
      ),
    },
  })) as unknown as Host[];
}

export function benchConnectivity(
  line: (name: string, value: string) => void,
  sizes = [100, 300, 1000],
): void {
  for (const n of sizes) {
    const trees = fullMesh(n);
    // The reports as the facts store keeps them (compact), which is what the monitor reads.
    const hosts = trees.map((h) => ({
      ...h,
      connectivity: CompactConnectivityReport.of(h.connectivity as ConnectivityReport) ?? h.connectivity,
    }));
    const [median, min] = medianOfFive(hosts);
    const [treesMedian] = medianOfFive(trees);
    const spacing = Math.min(MAX_SPACING_MS, median * PACE_FACTOR);
    if (n >= BACKGROUND_FROM_HOSTS)
      line(`connectivity groups, ${n}-host full mesh, in slices`, sliced(hosts));
    line(
      `connectivity groups, ${n}-host full mesh`,
      `${median.toFixed(1)} ms median (min ${min.toFixed(1)}; parsed trees ${treesMedian.toFixed(1)}); paced: at most every ${(spacing / 1000).toFixed(1)} s = ${((100 * median) / spacing).toFixed(1)} % of a core`,
    );
  }
}

/** Median and minimum of five computations, ms. */
function medianOfFive(hosts: Host[]): [number, number] {
  const times: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t = performance.now();
    computedConnectivity(hosts, 3);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return [times[2] as number, times[0] as number];
}

/**
 * Heap a stored report holds: reports of a 1,000-host cluster (999 remote hosts each, as
 * make bench-scale's hosts send them) decoded and kept as a step reply keeps them.
 */
export function benchStoredReports(line: (name: string, value: string) => void, count = 40): void {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const hosts = 1000;
  // Each host's argument as the operator builds it, from the hosts' inventories.
  const records = Array.from({ length: hosts }, (_, k) => ({
    id: hostId(k),
    status: 'known',
    inventory: JSON.parse(inventory(k)) as unknown,
  })) as unknown as Host[];
  const cluster = { id: 'bench', hosts: records } as unknown as Cluster;
  const argsOf = (i: number) => {
    const step = connectivityCheckStep({
      host: records[i] as Host,
      cluster,
      infraEnv: {} as InfraEnv,
      options: {} as StepsOptions,
    });
    if (!('args' in step)) throw new Error(`no connectivity check for host ${i}`);
    return step.args;
  };
  const store = new HostFactsStore();
  gc();
  const before = process.memoryUsage().heapUsed;
  let storing = 0;
  let serialising = 0;
  for (let i = 0; i < count; i++) {
    const reply = parseStepReply({
      step_type: 'connectivity-check',
      step_id: 'connectivity-check',
      exit_code: 0,
      output: connectivityReport(i, argsOf(i)),
    });
    if (!reply.ok || reply.value.kind !== 'connectivity') throw new Error('report not decoded');
    const t = performance.now();
    store.update(hostId(i), { connectivity: reply.value.report });
    storing += performance.now() - t;
  }
  gc();
  const perReport = (process.memoryUsage().heapUsed - before) / count;
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    JSON.stringify(store.get(hostId(i))?.connectivity);
    serialising += performance.now() - t;
  }
  line(
    `stored connectivity report, ${hosts}-host cluster`,
    `${(perReport / 2 ** 20).toFixed(2)} MiB of heap each (${count} kept); storing ${(storing / count).toFixed(2)} ms, serialising ${(serialising / count).toFixed(2)} ms each`,
  );
}

/** The computation as the cluster monitor runs it for a large cluster: slices between other work. */
function sliced(hosts: Host[]): string {
  const slices: (() => void)[] = [];
  const pacing = new ConnectivityPacing({ schedule: (slice) => slices.push(slice) });
  pacing.of('bench', hosts, 3);
  const took: number[] = [];
  for (let slice = slices.shift(); slice; slice = slices.shift()) {
    const t = performance.now();
    slice();
    took.push(performance.now() - t);
  }
  const total = took.reduce((a, b) => a + b, 0);
  return `${took.length} slices, longest ${Math.max(...took).toFixed(1)} ms, ${total.toFixed(0)} ms in all`;
}
