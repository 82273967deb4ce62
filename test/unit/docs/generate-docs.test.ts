import { describe, expect, it } from 'vitest';
import { kindRows, renderApiReference } from '../../../hack/docs/api.ts';
import { renderConditionsReference } from '../../../hack/docs/conditions.ts';
import { renderConfiguration } from '../../../hack/docs/configuration.ts';
import { agentClusterInstallKind, KINDS } from '../../../src/api/index.ts';
import { operatorSettings } from '../../../src/records/config.ts';
import { runtimeSettings } from '../../../src/runtime/config.ts';

describe('generated docs', () => {
  it('api.md has a section per kind and every field with required/default/enum', () => {
    const md = renderApiReference();
    for (const k of KINDS) expect(md).toContain(`## ${k.kind}\n`);
    const rows = kindRows(agentClusterInstallKind);
    const byPath = new Map(rows.map((r) => [r.path, r]));
    expect(byPath.get('spec.provisionRequirements.controlPlaneAgents')).toMatchObject({
      required: true,
      type: 'integer',
    });
    expect(byPath.get('spec.networking.networkType')?.constraints[0]).toContain('"OVNKubernetes"');
    expect(byPath.get('spec.controlPlane.hyperthreading')?.default).toBe('Enabled');
    expect(byPath.get('spec.networking.clusterNetwork[].hostPrefix')).toBeDefined();
    expect(md).toContain('| `spec.clusterDeploymentRef` | object | yes |');
  });

  it('conditions.md lists outcomes of every condition type with the states producing them', () => {
    const md = renderConditionsReference();
    for (const type of [
      'SpecSynced',
      'RequirementsMet',
      'Validated',
      'Completed',
      'Failed',
      'Stopped',
      'Connected',
      'Installed',
      'Bound',
      'ImageCreated',
    ]) {
      expect(md).toContain(`### ${type}\n`);
    }
    expect(md).toContain('| True | InstallationFailed | The installation failed: <status_info> | `error` |');
    expect(md).toContain(
      '| False | InstallationOnHold | The installation is on hold. To unhold set holdInstallation to false | `ready` (holdInstallation) |',
    );
    expect(md).toContain(
      '| False | AgentIsNotApproved | The agent is not approved | `known` (not approved), `known-unbound` (not approved) |',
    );
  });

  it('configuration.md lists every flag and environment variable', () => {
    const md = renderConfiguration();
    for (const s of [...Object.values(runtimeSettings), ...Object.values(operatorSettings)]) {
      expect(md).toContain(`| \`--${s.flag}\` | \`${s.env}\` |`);
    }
    expect(md).toContain('| `--leader-election-lease-duration` | `LEADER_ELECTION_LEASE_DURATION` | `15s` |');
  });
});
