// The Agent cache keeps digests of the raw-inventory and validations backup annotations once the
// Agent has a host state (issue 16): the metadata patch still sees exactly when they differ, and
// an Agent without a state (the one a restore reads) keeps them whole.
import { describe, expect, it } from 'vitest';
import type { Agent, InfraEnv } from '../../../../src/api/index.ts';
import {
  AGENT_INVENTORY_ANNOTATION,
  AGENT_STATE_ANNOTATION,
  AGENT_VALIDATIONS_INFO_ANNOTATION,
} from '../../../../src/api/index.ts';
import { restoreFromAnnotations } from '../../../../src/controllers/agent/restore.ts';
import type { Host, ValidationsInfo } from '../../../../src/core/model.ts';
import {
  agentForCache,
  backupDigest,
  isBackupDigest,
  sameAnnotationValue,
} from '../../../../src/records/agents/cache.ts';
import { agentMetadataPatch } from '../../../../src/records/agents/metadata.ts';
import { cacheStringPool, LAST_APPLIED_ANNOTATION } from '../../../../src/runtime/index.ts';
import { stableJson } from '../../../../src/util/stable-json.ts';
import { agent, INFRA_ENV_ID, inventory, knownUnboundHost } from '../../controllers/agent/fixtures.ts';

const validations: ValidationsInfo = {
  hardware: [{ id: 'has-inventory', status: 'success', message: 'Valid inventory exists for the host' }],
};

const host = (overrides: Partial<Host> = {}) =>
  knownUnboundHost({ validations_info: validations, ...overrides });

const ie = { metadata: { name: 'pool', namespace: 'ns', uid: INFRA_ENV_ID }, spec: {} } as InfraEnv;
const patchFor = (a: Agent, h: Host) =>
  agentMetadataPatch({ agent: a, host: h, infraEnv: ie, clusterDeploymentNamespace: '', autoApprove: false });

/** An Agent as the API server holds it once its metadata matches `h`. */
function stored(h: Host, withState = true): Agent {
  const a = agent();
  const settled = patchFor(a, h) as {
    metadata: { labels: Record<string, string>; annotations: Record<string, string> };
  };
  if (!withState) delete a.status;
  a.metadata.managedFields = [{ manager: 'kubectl' }];
  a.metadata.labels = { ...a.metadata.labels, ...settled.metadata.labels };
  a.metadata.annotations = {
    [LAST_APPLIED_ANNOTATION]: '{"kind":"Agent"}',
    'example.com/kept': 'as is',
    ...settled.metadata.annotations,
  };
  return a;
}

describe('agentForCache', () => {
  it('keeps digests of the two large backup annotations of an Agent with a state', () => {
    const h = host();
    const cached = agentForCache(stored(h)) as Agent;
    const ann = cached.metadata.annotations ?? {};
    expect(ann[AGENT_INVENTORY_ANNOTATION]).toBe(backupDigest(stableJson(h.inventory)));
    expect(ann[AGENT_VALIDATIONS_INFO_ANNOTATION]).toBe(backupDigest(stableJson(validations)));
    expect(ann[AGENT_VALIDATIONS_INFO_ANNOTATION]!.length).toBeLessThan(60);
    // The small ones and anyone else's stay; managedFields and the last-applied manifest go.
    expect(ann[AGENT_STATE_ANNOTATION]).toBe('known-unbound');
    expect(ann['example.com/kept']).toBe('as is');
    expect(ann[LAST_APPLIED_ANNOTATION]).toBeUndefined();
    expect(cached.metadata.managedFields).toBeUndefined();
  });

  it('pools the strings it keeps, never a backup value the digest replaced', () => {
    const h = host();
    const cached = agentForCache(stored(h)) as Agent;
    expect(cacheStringPool.has(stableJson(validations))).toBe(false);
    expect(cacheStringPool.has(cached.metadata.annotations![AGENT_VALIDATIONS_INFO_ANNOTATION]!)).toBe(true);
    expect(cacheStringPool.has('known-unbound')).toBe(true);
  });

  it('is idempotent', () => {
    const once = agentForCache(stored(host())) as Agent;
    const twice = agentForCache(structuredClone(once)) as Agent;
    expect(twice.metadata.annotations).toEqual(once.metadata.annotations);
  });

  it('keeps the annotations whole on an Agent without a state, for the restore to read', () => {
    const h = host();
    const cached = agentForCache(stored(h, false)) as Agent;
    expect(cached.metadata.annotations?.[AGENT_VALIDATIONS_INFO_ANNOTATION]).toBe(stableJson(validations));
    const restored = restoreFromAnnotations(cached, undefined);
    expect(restored?.status?.validationsInfo).toEqual(validations);
    expect(restored?.status?.inventory?.hostname).toBe('worker-0');
  });
});

describe('the metadata patch against a cached Agent', () => {
  it('sends nothing while the digests match what the host implies', () => {
    const h = host();
    expect(patchFor(agentForCache(stored(h)) as Agent, h)).toBeUndefined();
  });

  it('sends the whole new value when the inventory or the validations change', () => {
    const h = host();
    const cached = agentForCache(stored(h)) as Agent;
    const changed = host({
      validations_info: { hardware: [] },
      inventory: inventory({ hostname: 'renamed' }),
    });
    const patch = patchFor(cached, changed) as { metadata: { annotations: Record<string, string> } };
    expect(patch.metadata.annotations).toEqual({
      [AGENT_INVENTORY_ANNOTATION]: stableJson(changed.inventory),
      [AGENT_VALIDATIONS_INFO_ANNOTATION]: stableJson({ hardware: [] }),
    });
  });

  it('removes a digested annotation the host no longer implies', () => {
    const h = host();
    const cached = agentForCache(stored(h)) as Agent;
    const patch = patchFor(cached, host({ validations_info: {} })) as {
      metadata: { annotations: Record<string, string | null> };
    };
    expect(patch.metadata.annotations).toEqual({ [AGENT_VALIDATIONS_INFO_ANNOTATION]: null });
  });
});

describe('sameAnnotationValue', () => {
  it('matches a digest only for the digested keys', () => {
    const value = '{"a":1}';
    expect(sameAnnotationValue(AGENT_INVENTORY_ANNOTATION, value, value)).toBe(true);
    expect(sameAnnotationValue(AGENT_INVENTORY_ANNOTATION, backupDigest(value), value)).toBe(true);
    expect(sameAnnotationValue(AGENT_INVENTORY_ANNOTATION, backupDigest('{"a":2}'), value)).toBe(false);
    expect(sameAnnotationValue('example.com/other', backupDigest(value), value)).toBe(false);
    expect(sameAnnotationValue(AGENT_INVENTORY_ANNOTATION, undefined, value)).toBe(false);
    expect(isBackupDigest(value)).toBe(false);
    expect(isBackupDigest(undefined)).toBe(false);
  });
});
