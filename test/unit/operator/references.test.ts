import { describe, expect, it } from 'vitest';
import { crossNamespaceReferences, crossNamespaceRefusal } from '../../../src/records/references.ts';

const settings = (crossNamespaceReferences: 'webhook' | 'refuse' | 'allow' | undefined, webhookPort = 0) => ({
  crossNamespaceReferences,
  webhookPort,
});

describe('crossNamespaceReferences', () => {
  it.each([
    [undefined, 0, 'refuse'],
    [undefined, 9443, 'webhook'],
    ['allow', 0, 'allow'],
    ['refuse', 9443, 'refuse'],
    ['webhook', 0, 'webhook'],
  ] as const)('setting %s with webhook port %i → %s', (value, port, want) => {
    expect(crossNamespaceReferences(settings(value, port))).toBe(want);
  });
});

describe('crossNamespaceRefusal', () => {
  const other = { namespace: 'c', name: 'cd' };
  const same = { namespace: 'a', name: 'cd' };
  it.each([
    // mode, source, target, refused?
    ['refuse', 'InfraEnv', same, false],
    ['refuse', 'InfraEnv', { namespace: '', name: 'cd' }, false],
    ['refuse', 'InfraEnv', other, true],
    ['refuse', 'Agent', other, true],
    ['refuse', 'BareMetalHost', other, true],
    ['webhook', 'InfraEnv', other, false],
    ['webhook', 'Agent', other, false],
    ['webhook', 'BareMetalHost', other, true],
    ['webhook', 'BareMetalHost', same, false],
    ['allow', 'BareMetalHost', other, false],
    ['allow', 'Agent', other, false],
  ] as const)('%s: %s → %j refused=%s', (mode, source, target, refused) => {
    expect(crossNamespaceRefusal(settings(mode), source, 'a', target) !== undefined).toBe(refused);
  });

  it('says what was refused, why, and which setting decides', () => {
    expect(crossNamespaceRefusal(settings(undefined), 'Agent', 'a', other)).toBe(
      'Agent spec.clusterDeploymentName names ClusterDeployment c/cd in another namespace than a, which is not honoured: cross-namespace references are refused unless the admission webhooks authorise them (CROSS_NAMESPACE_REFERENCES=refuse; see docs/operations.md, Multi-tenancy)',
    );
    expect(crossNamespaceRefusal(settings(undefined, 9443), 'BareMetalHost', 'a', other)).toContain(
      'the admission webhooks cannot check who set a BareMetalHost annotation (CROSS_NAMESPACE_REFERENCES=webhook',
    );
  });
});
