// Pure helpers: conditions, owner references.
import { describe, expect, it } from 'vitest';
import {
  type Condition,
  findCondition,
  formatTime,
  isConditionTrue,
  removeCondition,
  setCondition,
} from '../../../src/runtime/conditions.ts';
import {
  AlreadyOwnedError,
  getControllerOf,
  isOwnedBy,
  setControllerReference,
  setOwnerReference,
} from '../../../src/runtime/owner.ts';
import type { KubeObject } from '../../../src/runtime/types.ts';

describe('conditions', () => {
  const t1 = new Date('2026-01-01T10:00:00.123Z');
  const t2 = new Date('2026-01-01T11:00:00.999Z');

  it('formats times as metav1.Time does (whole seconds, UTC)', () => {
    expect(formatTime(t1)).toBe('2026-01-01T10:00:00Z');
  });

  it('adds a condition with a transition time', () => {
    const list = setCondition(
      undefined,
      { type: 'Ready', status: 'False', reason: 'Waiting', message: 'm' },
      t1,
    );
    expect(list).toEqual([
      {
        type: 'Ready',
        status: 'False',
        reason: 'Waiting',
        message: 'm',
        lastTransitionTime: '2026-01-01T10:00:00Z',
      },
    ]);
  });

  it('keeps lastTransitionTime while the status is unchanged, so an idle rewrite is a no-op', () => {
    const first = setCondition<Condition>([], { type: 'Ready', status: 'False', reason: 'Waiting' }, t1);
    const again = setCondition(first, { type: 'Ready', status: 'False', reason: 'Waiting' }, t2);
    expect(again).toEqual(first);
    const newReason = setCondition(
      first,
      { type: 'Ready', status: 'False', reason: 'StillWaiting', message: 'x' },
      t2,
    );
    expect(newReason[0]).toMatchObject({
      reason: 'StillWaiting',
      message: 'x',
      lastTransitionTime: formatTime(t1),
    });
    const flipped = setCondition(newReason, { type: 'Ready', status: 'True', reason: 'Done' }, t2);
    expect(flipped[0]).toEqual({
      type: 'Ready',
      status: 'True',
      reason: 'Done',
      lastTransitionTime: formatTime(t2),
    });
    expect(first[0]!.reason).toBe('Waiting'); // input untouched
  });

  it('preserves order and other conditions; find/isTrue/remove', () => {
    let list = setCondition<Condition>([], { type: 'A', status: 'True' }, t1);
    list = setCondition(list, { type: 'B', status: 'False' }, t1);
    list = setCondition(list, { type: 'A', status: 'False' }, t2);
    expect(list.map((c) => c.type)).toEqual(['A', 'B']);
    expect(isConditionTrue(list, 'A')).toBe(false);
    expect(findCondition(list, 'B')?.status).toBe('False');
    expect(removeCondition(list, 'A').map((c) => c.type)).toEqual(['B']);
  });
});

describe('owner references', () => {
  const owner: KubeObject = {
    apiVersion: 'example.io/v1',
    kind: 'Widget',
    metadata: { name: 'w', namespace: 'ns', uid: 'u1' },
  };
  const other: KubeObject = {
    apiVersion: 'example.io/v1',
    kind: 'Widget',
    metadata: { name: 'x', namespace: 'ns', uid: 'u2' },
  };

  it('sets a controller reference, idempotently', () => {
    const child: KubeObject = { metadata: { name: 'c', namespace: 'ns' } };
    setControllerReference(child, owner);
    setControllerReference(child, owner);
    expect(child.metadata.ownerReferences).toEqual([
      {
        apiVersion: 'example.io/v1',
        kind: 'Widget',
        name: 'w',
        uid: 'u1',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(getControllerOf(child)?.uid).toBe('u1');
    expect(isOwnedBy(child, owner)).toBe(true);
  });

  it('refuses a second controller and cross-namespace owners', () => {
    const child: KubeObject = { metadata: { name: 'c', namespace: 'ns' } };
    setControllerReference(child, owner);
    expect(() => setControllerReference(child, other)).toThrow(AlreadyOwnedError);
    setOwnerReference(child, other);
    expect(child.metadata.ownerReferences).toHaveLength(2);
    const elsewhere: KubeObject = { metadata: { name: 'c', namespace: 'other' } };
    expect(() => setControllerReference(elsewhere, owner)).toThrow(/cross-namespace/);
    const clusterOwner: KubeObject = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'ns', uid: 'n1' },
    };
    expect(() => setOwnerReference(elsewhere, clusterOwner)).not.toThrow();
    expect(() => setOwnerReference(elsewhere, { metadata: { name: 'x' } })).toThrow(/owner needs/);
  });
});
