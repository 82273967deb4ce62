import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ClusterStatus } from '../../../../src/core/model.ts';
import { CLUSTER_RULE_VALIDATION_IDS } from '../../../../src/core/statemachine/condition-ids.ts';
import {
  CLUSTER_OPERATOR_VALIDATION_IDS,
  CLUSTER_VALIDATIONS,
  validateCluster,
} from '../../../../src/core/validations/cluster.ts';
import { CLUSTER_VALIDATION_IDS } from '../../../../src/core/validations/types.ts';
import { NOW, readyCluster, readyHost, run } from './cluster-fixtures.ts';

describe('framework', () => {
  it.each(['insufficient', 'ready', 'pending-for-input', 'preparing-for-installation'] as ClusterStatus[])(
    'computes in %s',
    (status) => {
      const report = run(readyCluster({ status }));
      expect(report.computed).toBe(true);
      expect(Object.keys(report.conditions).sort()).toEqual([...CLUSTER_VALIDATION_IDS].sort());
    },
  );

  it.each([
    'installing',
    'finalizing',
    'installed',
    'error',
    'cancelled',
    'adding-hosts',
    'unmonitored',
  ] as ClusterStatus[])('leaves %s alone', (status) => {
    expect(run(readyCluster({ status }))).toEqual({
      computed: false,
      outcomes: [],
      validations_info: {},
      conditions: {},
      ignored: [],
    });
  });

  it('produces every id the state machine reads, all passing for a ready cluster', () => {
    const report = run(readyCluster());
    for (const id of CLUSTER_RULE_VALIDATION_IDS) expect(report.conditions[id], id).toBe(true);
    expect(Object.values(report.conditions).every((v) => v)).toBe(true);
    expect(report.ignored).toEqual([]);
  });

  it('registers every cluster validation id exactly once', () => {
    const ids = [...CLUSTER_VALIDATIONS.map((v) => v.id), ...CLUSTER_OPERATOR_VALIDATION_IDS];
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual([...CLUSTER_VALIDATION_IDS].sort());
  });

  it('validations_info: categories in sorted order, each list sorted by id', () => {
    const info = run(readyCluster()).validations_info;
    expect(Object.keys(info)).toEqual(['configuration', 'hosts-data', 'network', 'operators']);
    for (const list of Object.values(info)) {
      const ids = list.map((r) => r.id);
      expect(ids).toEqual([...ids].sort());
    }
    expect(info['hosts-data']?.map((r) => r.id)).toEqual([
      'all-hosts-are-ready-to-install',
      'sufficient-masters-count',
    ]);
    expect(info.configuration?.map((r) => r.id)).toEqual([
      'platform-requirements-satisfied',
      'pull-secret-set',
    ]);
    expect(info.network?.map((r) => r.id)).toEqual([
      'api-vips-defined',
      'api-vips-valid',
      'cluster-cidr-defined',
      'custom-manifests-requirements-satisfied',
      'dns-domain-defined',
      'ingress-vips-defined',
      'ingress-vips-valid',
      'machine-cidr-defined',
      'machine-cidr-equals-to-calculated-cidr',
      'network-prefix-valid',
      'network-type-valid',
      'networks-same-address-families',
      'no-cidrs-overlapping',
      'ntp-server-configured',
      'service-cidr-defined',
    ]);
  });

  it('golden: validations_info of a ready cluster', () => {
    const golden = join(import.meta.dirname, 'golden', 'ready-cluster-validations-info.json');
    const actual = `${JSON.stringify(run(readyCluster()).validations_info, null, 2)}\n`;
    if (process.env.UPDATE_GOLDEN === '1' || !existsSync(golden)) writeFileSync(golden, actual);
    expect(actual).toBe(readFileSync(golden, 'utf8'));
  });

  it('accepts the clock as a number', () => {
    expect(validateCluster({ cluster: readyCluster(), now: NOW.getTime() }).computed).toBe(true);
  });

  it('ignores disabled hosts', () => {
    const c = readyCluster();
    c.hosts.push({ ...c.hosts[0]!, id: 'off', status: 'disabled', role: 'worker' });
    expect(run(c).conditions['sufficient-masters-count']).toBe(true);
    expect(run(c).conditions['all-hosts-are-ready-to-install']).toBe(true);
  });
});

describe('DISABLED_CLUSTER_VALIDATIONS', () => {
  it('reports disabled and passes', () => {
    const report = run(readyCluster({ base_dns_domain: '' }), {
      config: { disabledClusterValidations: ['dns-domain-defined'] },
    });
    expect(report.outcomes.find((o) => o.id === 'dns-domain-defined')).toEqual({
      id: 'dns-domain-defined',
      category: 'network',
      status: 'disabled',
      message: 'Validation disabled by configuration',
    });
    expect(report.conditions['dns-domain-defined']).toBe(true);
  });

  it('does not apply when the cluster has its own ignore list', () => {
    const report = run(
      readyCluster({ base_dns_domain: '', ignored_cluster_validations: '["network-prefix-valid"]' }),
      {
        config: { disabledClusterValidations: ['dns-domain-defined'] },
      },
    );
    expect(report.outcomes.find((o) => o.id === 'dns-domain-defined')?.status).toBe('failure');
    expect(report.conditions['dns-domain-defined']).toBe(false);
  });
});

describe('ignored_cluster_validations', () => {
  const broken = () =>
    readyCluster({
      base_dns_domain: '',
      pull_secret_set: false,
      network_type: 'Bogus',
      hosts: [readyHost(0, { status: 'insufficient' })],
      api_vips: [],
      ingress_vips: [],
    });

  it('forces listed validations to pass, keeping status and message', () => {
    const report = run(broken(), {
      cluster: { ...broken(), ignored_cluster_validations: '["dns-domain-defined","network-type-valid"]' },
    });
    expect(report.conditions['dns-domain-defined']).toBe(true);
    expect(report.conditions['network-type-valid']).toBe(true);
    expect(report.outcomes.find((o) => o.id === 'dns-domain-defined')?.status).toBe('failure');
    expect(report.ignored).toEqual(['dns-domain-defined', 'network-type-valid']);
    expect(report.conditions['no-cidrs-overlapping']).toBe(true); // never failed
  });

  it('"all" ignores everything except the never-ignorable ones', () => {
    const report = run({ ...broken(), ignored_cluster_validations: '["all"]' });
    for (const id of [
      'api-vips-defined',
      'ingress-vips-defined',
      'all-hosts-are-ready-to-install',
      'sufficient-masters-count',
      'pull-secret-set',
    ]) {
      expect(report.conditions[id], id).toBe(false);
    }
    expect(report.conditions['dns-domain-defined']).toBe(true);
    expect(report.conditions['network-type-valid']).toBe(true);
    expect(report.ignored).not.toContain('pull-secret-set');
  });

  it('accepts the comma form; malformed JSON ignores nothing', () => {
    expect(
      run({ ...broken(), ignored_cluster_validations: 'dns-domain-defined' }).conditions[
        'dns-domain-defined'
      ],
    ).toBe(true);
    expect(run({ ...broken(), ignored_cluster_validations: '[oops' }).conditions['dns-domain-defined']).toBe(
      false,
    );
  });
});
