// Role suggestion for a large cluster of auto-assign hosts: what one Agent reconcile pays when it
// refreshes suggested roles (every auto-assign host's fitness for master is evaluated).

import type { Host } from '../src/core/model.ts';
import { refreshSuggestedRoles } from '../src/core/statemachine/index.ts';
import { roleFitness } from '../src/records/hosts/role-fitness.ts';
import { cluster, host, inventory } from '../test/unit/core/validations/host-fixtures.ts';

export function benchRoleSuggestion(line: (name: string, value: string) => void): void {
  const ip = (i: number) => `192.168.${10 + (i >> 8)}.${(i % 250) + 2}`;
  for (const n of [10, 50, 100, 200]) {
    const hosts: Host[] = Array.from({ length: n }, (_, i) =>
      host({
        id: `host-${i}`,
        role: 'auto-assign',
        suggested_role: 'auto-assign',
        inventory: inventory({
          hostname: `node-${i}`,
          interfaces: [
            {
              name: 'eth0',
              ipv4_addresses: [`${ip(i)}/16`],
              mac_address: `aa:bb:cc:00:${(i >> 8).toString(16).padStart(2, '0')}:${(i & 0xff).toString(16).padStart(2, '0')}`,
            },
          ],
        }),
      }),
    );
    // Every host reports reaching every other one (what connectivity checks produce).
    for (const h of hosts) {
      h.connectivity = {
        remote_hosts: hosts
          .filter((o) => o.id !== h.id)
          .map((o, k) => ({
            host_id: o.id,
            l2_connectivity: [{ remote_ip_address: ip(k), successful: true }],
            l3_connectivity: [{ remote_ip_address: ip(k), successful: true, average_rtt_ms: 0.2 }],
          })),
      };
    }
    const c = cluster({ hosts, machine_networks: [{ cidr: '192.168.0.0/16' }] });
    const now = new Date();
    const runs = n <= 50 ? 20 : 3;
    const t0 = performance.now();
    let suggested = 0;
    for (let r = 0; r < runs; r++) {
      const out = refreshSuggestedRoles(c, roleFitness(c, undefined, now), { enableAutoAssign: true });
      suggested = out.hosts.filter((h) => h.suggested_role === 'master').length;
    }
    const ms = (performance.now() - t0) / runs;
    line(
      `roles: suggestion refresh, ${n} auto-assign hosts`,
      `${ms.toFixed(1)} ms per Agent reconcile (${suggested} masters)`,
    );
  }
}
