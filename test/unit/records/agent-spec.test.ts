import { describe, expect, it } from 'vitest';
import {
  appliedIgnitionOverride,
  appliedInstallerArgs,
  appliedNodeLabels,
} from '../../../src/records/agent-spec.ts';

const VALID_IGNITION = '{"ignition":{"version":"3.2.0"}}';

describe('spec values the host takes (invalid ones keep the applied value)', () => {
  it.each([
    ['unset spec, nothing applied', undefined, undefined, undefined],
    ['same as applied', '["-n"]', '["-n"]', '["-n"]'],
    ['re-encoded', '[ "--append-karg", "a" ]', undefined, '["--append-karg","a"]'],
    ['"" clears to []', '', '["-n"]', '[]'],
    ['bad JSON keeps the applied value', '["-n"', '["-n"]', '["-n"]'],
    ['not an array keeps the applied value', '"-n"', '["-n"]', '["-n"]'],
    ['unknown flag keeps the applied value', '["--fancy"]', '["-n"]', '["-n"]'],
  ])('installer args: %s', (_name, spec, applied, expected) => {
    expect(appliedInstallerArgs(spec, applied, 'h', 'ie')).toBe(expected);
  });

  it.each([
    ['valid', VALID_IGNITION, undefined, VALID_IGNITION],
    ['"" clears', '', VALID_IGNITION, undefined],
    ['invalid keeps the applied value', '{"ignition":', VALID_IGNITION, VALID_IGNITION],
  ])('ignition override: %s', (_name, spec, applied, expected) => {
    expect(appliedIgnitionOverride(spec, applied)).toBe(expected);
  });

  it.each([
    ['valid set replaces', { a: '1' }, { b: '2' }, { a: '1' }],
    ['empty set clears', {}, { b: '2' }, undefined],
    ['a bad key keeps the applied set', { 'bad key!': 'x', a: '1' }, { b: '2' }, { b: '2' }],
    ['a bad value keeps the applied set', { a: 'bad value!' }, { b: '2' }, { b: '2' }],
  ])('node labels: %s', (_name, spec, applied, expected) => {
    expect(appliedNodeLabels(spec, applied)).toEqual(expected);
  });
});
