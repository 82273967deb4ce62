// The shared validation types (src/core/validations/types.ts), as host and cluster validations use them.
import { describe, expect, it } from 'vitest';
import {
  buildConditions,
  buildValidationsInfo,
  CLUSTER_VALIDATION_IDS,
  compareStrings,
  failingValidationMessages,
  HOST_VALIDATION_IDS,
  isPassingStatus,
  isValidationIgnored,
  NON_IGNORABLE_CLUSTER_VALIDATIONS,
  NON_IGNORABLE_HOST_VALIDATIONS,
  parseIgnoredValidations,
  sameValidationsInfo,
  shouldStoreValidationsInfo,
  type ValidationOutcome,
  validationChanges,
} from '../../../../src/core/validations/types.ts';

const o = (
  id: string,
  category: string,
  status: ValidationOutcome['status'],
  message = id,
): ValidationOutcome => ({
  id,
  category,
  status,
  message,
});

describe('buildValidationsInfo', () => {
  const outcomes = [
    o('z-net', 'network', 'success'),
    o('b-hw', 'hardware', 'failure'),
    o('hidden', 'hardware', 'success-suppress-output'),
    o('y-op', 'operators', 'success'),
    o('a-hw', 'hardware', 'pending'),
    o('a-op', 'operators', 'disabled'),
  ];
  it('categories sorted, registration order kept, suppressed dropped', () => {
    const info = buildValidationsInfo(outcomes);
    expect(Object.keys(info)).toEqual(['hardware', 'network', 'operators']);
    expect(info.hardware).toEqual([
      { id: 'b-hw', status: 'failure', message: 'b-hw' },
      { id: 'a-hw', status: 'pending', message: 'a-hw' },
    ]);
    expect(info.operators!.map((e) => e.id)).toEqual(['y-op', 'a-op']);
  });
  it('sorts the named categories by id', () => {
    const info = buildValidationsInfo(outcomes, { sortByIdCategories: ['operators'] });
    expect(info.operators!.map((e) => e.id)).toEqual(['a-op', 'y-op']);
    expect(info.hardware!.map((e) => e.id)).toEqual(['b-hw', 'a-hw']);
  });
  it('sorts every category with "all" (cluster validations)', () => {
    const info = buildValidationsInfo(outcomes, { sortByIdCategories: 'all' });
    expect(info.hardware!.map((e) => e.id)).toEqual(['a-hw', 'b-hw']);
  });
  it('empty input → empty object', () => expect(buildValidationsInfo([])).toEqual({}));
});

describe('conditions', () => {
  it.each([
    ['success', true],
    ['success-suppress-output', true],
    ['disabled', true],
    ['failure', false],
    ['pending', false],
    ['error', false],
  ] as const)('%s passes: %s', (status, want) => expect(isPassingStatus(status)).toBe(want));
  it('buildConditions covers suppressed outcomes too', () => {
    expect(buildConditions([o('a', 'x', 'success-suppress-output'), o('b', 'x', 'error')])).toEqual({
      a: true,
      b: false,
    });
  });
});

describe('ignored validations', () => {
  it.each([
    [undefined, []],
    [null, []],
    ['', []],
    ['  ', []],
    ['["a","b"]', ['a', 'b']],
    ['[]', []],
    ['a, b ,,c', ['a', 'b', 'c']],
    [['x'], ['x']],
  ])('parse %j', (value, want) => expect(parseIgnoredValidations(value as never)).toEqual(want));
  it.each(['[1]', '[{"a":1}]'])('rejects JSON that is not a list of strings: %s', (v) => {
    expect(() => parseIgnoredValidations(v)).toThrow('JSON list of strings');
  });
  it('malformed JSON throws', () => expect(() => parseIgnoredValidations('[x')).toThrow());
  it.each([
    [['all'], 'mtu-valid', true],
    [['all'], 'connected', false],
    [['mtu-valid'], 'mtu-valid', true],
    [['mtu-valid'], 'ntp-synced', false],
    [['hostname-valid'], 'hostname-valid', false],
  ])('%j ignores %s: %s', (ignored, id, want) => {
    expect(isValidationIgnored(ignored, id, NON_IGNORABLE_HOST_VALIDATIONS)).toBe(want);
  });
  it('cluster never-ignorable list', () => {
    expect(NON_IGNORABLE_CLUSTER_VALIDATIONS).toEqual([
      'api-vips-defined',
      'ingress-vips-defined',
      'all-hosts-are-ready-to-install',
      'sufficient-masters-count',
      'pull-secret-set',
    ]);
    expect(isValidationIgnored(['all'], 'pull-secret-set', NON_IGNORABLE_CLUSTER_VALIDATIONS)).toBe(false);
  });
});

describe('failingValidationMessages ($FAILING_VALIDATIONS)', () => {
  it('only failures, sorted byte-wise, joined with " ; "', () => {
    const info = buildValidationsInfo([
      o('a', 'network', 'failure', 'b message'),
      o('b', 'hardware', 'failure', 'B message'),
      o('c', 'hardware', 'pending', 'a pending'),
      o('d', 'network', 'failure', 'a message'),
    ]);
    expect(failingValidationMessages(info)).toBe('B message ; a message ; b message');
    expect(failingValidationMessages({})).toBe('');
  });
  it('compareStrings', () => {
    expect([compareStrings('a', 'b'), compareStrings('b', 'a'), compareStrings('a', 'a')]).toEqual([
      -1, 1, 0,
    ]);
  });
});

describe('id lists', () => {
  it('host ids are unique and include enum-only ids', () => {
    expect(new Set(HOST_VALIDATION_IDS).size).toBe(HOST_VALIDATION_IDS.length);
    expect(HOST_VALIDATION_IDS).toContain('release-domain-name-resolved-correctly');
    expect(HOST_VALIDATION_IDS).toContain('ocs-requirements-satisfied');
  });
  it('cluster ids are unique', () => {
    expect(new Set(CLUSTER_VALIDATION_IDS).size).toBe(CLUSTER_VALIDATION_IDS.length);
    expect(CLUSTER_VALIDATION_IDS).toContain('openshift-ai-gpu-requirements-satisfied');
  });
});

describe('validation changes and storing', () => {
  const info = (...entries: [string, string, ValidationOutcome['status']][]) =>
    buildValidationsInfo(entries.map(([id, cat, st]) => o(id, cat, st)));
  it('classifies status changes', () => {
    const before = info(
      ['a', 'hardware', 'success'],
      ['b', 'hardware', 'pending'],
      ['c', 'network', 'failure'],
      ['d', 'network', 'success'],
      ['e', 'network', 'failure'],
    );
    const after = info(
      ['a', 'hardware', 'failure'],
      ['b', 'hardware', 'failure'],
      ['c', 'network', 'success'],
      ['d', 'network', 'success'],
      ['e', 'network', 'pending'],
      ['f', 'network', 'failure'],
    );
    expect(validationChanges(before, after).map((c) => [c.id, c.kind, c.previous, c.current])).toEqual([
      ['a', 'now-failing', 'success', 'failure'],
      ['b', 'failed', 'pending', 'failure'],
      ['c', 'fixed', 'failure', 'success'],
      ['e', 'changed', 'failure', 'pending'],
      ['f', 'failed', undefined, 'failure'],
    ]);
    expect(validationChanges(undefined, info(['x', 'hardware', 'success']))[0]).toEqual({
      id: 'x',
      category: 'hardware',
      kind: 'changed',
      current: 'success',
      message: 'x',
    });
  });
  it('stores only a changed, non-empty result', () => {
    const a = info(['a', 'hardware', 'success'], ['b', 'network', 'success']);
    expect(
      shouldStoreValidationsInfo(a, info(['a', 'hardware', 'success'], ['b', 'network', 'success'])),
    ).toBe(false);
    expect(
      shouldStoreValidationsInfo(a, info(['a', 'hardware', 'failure'], ['b', 'network', 'success'])),
    ).toBe(true);
    expect(shouldStoreValidationsInfo(a, info(['a', 'hardware', 'success']))).toBe(true);
    expect(
      shouldStoreValidationsInfo(a, info(['a', 'hardware', 'success'], ['b', 'hardware', 'success'])),
    ).toBe(true);
    expect(
      shouldStoreValidationsInfo(a, info(['a', 'hardware', 'success'], ['c', 'network', 'success'])),
    ).toBe(true);
    expect(shouldStoreValidationsInfo(a, {})).toBe(false);
    expect(shouldStoreValidationsInfo(undefined, a)).toBe(true);
    expect(sameValidationsInfo(undefined, {})).toBe(true);
  });
});
