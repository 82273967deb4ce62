// The "second check" on the RBAC table: every rule is justified by code paths that exist, and the
// generated config/rbac files match the table.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clusterRules, namespaceRules, RULES, rbacFiles } from '../../../src/rbac/rules.ts';

describe('RBAC rules', () => {
  it('justifies every rule with at least one code path', () => {
    for (const r of RULES) expect(r.usedBy.length, r.resources.join(',')).toBeGreaterThan(0);
  });

  it('names code paths that exist: file:symbol, the symbol present in the file', () => {
    for (const r of RULES) {
      for (const u of r.usedBy) {
        const m = /^([^:\s]+\.ts):([A-Za-z_][\w]*)/.exec(u);
        expect(m, `malformed usedBy: ${u}`).not.toBeNull();
        const [, file, symbol] = m as RegExpExecArray;
        expect(existsSync(file!), `${file} missing`).toBe(true);
        expect(readFileSync(file!, 'utf8'), `${symbol} not in ${file}`).toContain(symbol!);
      }
    }
  });

  it('lists exactly these rules', () => {
    const summary = RULES.map(
      (r) => `${r.scope} ${r.apiGroup || 'core'} ${r.resources.join(',')}: ${r.verbs.join(',')}`,
    );
    expect(summary).toEqual([
      'cluster agent-install.openshift.io agents: get,list,watch,create,update,patch,delete',
      'cluster agent-install.openshift.io agents/status: update',
      'cluster agent-install.openshift.io infraenvs,agentclassifications,agentserviceconfigs: get,list,watch,patch',
      'cluster agent-install.openshift.io infraenvs/status,agentclassifications/status,agentserviceconfigs/status: update',
      'cluster agent-install.openshift.io nmstateconfigs: list,watch',
      'cluster extensions.hive.openshift.io agentclusterinstalls: get,list,watch,patch,delete',
      'cluster extensions.hive.openshift.io agentclusterinstalls/status: update',
      'cluster hive.openshift.io clusterdeployments: get,list,watch,patch',
      'cluster hive.openshift.io clusterdeployments/finalizers: update',
      'cluster hive.openshift.io clusterimagesets: list,watch',
      'cluster metal3.io baremetalhosts: list,watch,patch',
      'cluster metal3.io preprovisioningimages: get,list,watch,patch',
      'cluster metal3.io preprovisioningimages/status: update',
      'cluster core secrets: get,list,watch,create,patch',
      'cluster core configmaps: get,list,watch,patch',
      'cluster core events: list,create,patch',
      'cluster config.openshift.io clusterversions: get',
      'cluster config.openshift.io clusteroperators: get',
      'cluster authorization.k8s.io subjectaccessreviews: create',
      'cluster authentication.k8s.io tokenreviews: create',
      'namespace core services: list,watch',
      'namespace networking.k8s.io ingresses: list,watch',
      'namespace route.openshift.io routes: list,watch',
      'namespace coordination.k8s.io leases: get,list,watch,create,update',
    ]);
  });

  it('grants no wildcard and no duplicate resource/verb pair', () => {
    const seen = new Set<string>();
    for (const r of [...clusterRules(), ...namespaceRules()]) {
      for (const g of r.apiGroups)
        for (const res of r.resources)
          for (const v of r.verbs) {
            expect(`${g}${res}${v}`).not.toContain('*');
            const key = `${g}/${res}/${v}`;
            expect(seen.has(key), key).toBe(false);
            seen.add(key);
          }
    }
  });

  it('matches the committed config/rbac files', () => {
    for (const [rel, content] of rbacFiles()) expect(readFileSync(rel, 'utf8'), rel).toBe(content);
  });
});
