// The scale bench's hosts answer connectivity checks (bench/fleet.ts): the report must be what the
// real agent posts, as upstream's definition declares it, and what the operator then stores.
import { describe, expect, it } from 'vitest';
import { connectivityReport, hostId, inventory } from '../../../bench/fleet.ts';
import type { Host, InfraEnv } from '../../../src/core/model.ts';
import { computeConnectivity } from '../../../src/core/network/connectivity.ts';
import { connectivityCheckStep } from '../../../src/core/steps/discovery-steps.ts';
import { parseStepReply } from '../../../src/core/steps/replies.ts';
import { SwaggerContract } from '../../harness/swagger-contract.ts';
import { cluster, host } from '../core/validations/host-fixtures.ts';

const HOSTS = 5;

function benchHost(i: number): Host {
  return host({ id: hostId(i), inventory: JSON.parse(inventory(i)) });
}

describe('bench fleet connectivity reports', () => {
  const hosts = Array.from({ length: HOSTS }, (_, i) => benchHost(i));
  const c = cluster({ hosts });
  const reports = hosts.map((h, i) => {
    const step = connectivityCheckStep({
      host: h,
      cluster: c,
      infraEnv: {} as InfraEnv,
      options: {} as never,
    });
    if (!('args' in step)) throw new Error(`no connectivity check for host ${i}: ${JSON.stringify(step)}`);
    return connectivityReport(i, step.args);
  });

  it("match upstream's connectivity-report and name every other host once", () => {
    const contract = SwaggerContract.load();
    for (const [i, text] of reports.entries()) {
      const report = JSON.parse(text) as { remote_hosts: { host_id: string }[] };
      expect(contract.checkDefinition('connectivity-report', report)).toEqual([]);
      expect(report.remote_hosts.map((r) => r.host_id).sort()).toEqual(
        hosts.map((h) => h.id).filter((id) => id !== hostId(i)),
      );
    }
  });

  it('decode as a step reply and put every host in the majority groups', () => {
    const withReports = hosts.map((h, i) => {
      const parsed = parseStepReply({ step_type: 'connectivity-check', step_id: 'c-1', output: reports[i] });
      expect(parsed.ok).toBe(true);
      const value = parsed.ok ? parsed.value : undefined;
      expect(value?.kind).toBe('connectivity');
      return { ...h, connectivity: value?.kind === 'connectivity' ? value.report : undefined };
    });
    const groups = computeConnectivity(withReports).majority_groups;
    const all = hosts.map((h) => h.id).sort();
    expect(groups['192.168.122.0/24']).toEqual(all);
    expect(groups.IPv4).toEqual(all);
  });
});
