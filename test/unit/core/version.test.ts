// One version module, one named function per upstream rule: the cases on which the four former
// copies disagreed, run through every function.
import { describe, expect, it } from 'vitest';
import {
  baseVersion,
  baseVersionAtLeast,
  baseVersionBelow,
  compareBaseVersions,
  compareReleaseVersions,
  isVersion,
  majorMinorEquals,
} from '../../../src/core/version.ts';

describe('base-version rule (pre-release dropped, unparseable never reaches a threshold)', () => {
  it.each([
    ['4.14.0-rc.1', '4.14.0', 0],
    ['4.14.0', '4.14.0-rc.1', 0],
    ['4.14', '4.14.0', 0],
    ['v4.15', '4.15.0', 0],
    ['4.9', '4.10', -1],
    ['4.10.12', '4.9.30', 1],
    ['garbage', '0', -1],
    ['0', 'garbage', 1],
    ['garbage', 'junk', 0],
    ['4.x', '4.0', -1],
    ['', '4.0', -1],
  ] as const)('compareBaseVersions(%j, %j) = %d', (a, b, want) => {
    expect(compareBaseVersions(a, b)).toBe(want);
  });

  it.each([
    ['4.14.0-rc.1', '4.14.0', true],
    ['4.14.0-0.nightly-2023-01-01-000000', '4.14', true],
    ['4.13.99', '4.14', false],
    ['v5.0', '4.14', true],
    ['garbage', '0', false],
    ['4.14', 'garbage', false],
    ['', '4.0', false],
    [undefined, '4.0', false],
  ] as const)('baseVersionAtLeast(%j, %j) = %s', (v, min, want) => {
    expect(baseVersionAtLeast(v, min)).toBe(want);
    expect(baseVersionBelow(v, min)).toBe(!want);
  });

  it.each([
    ['4.19.3-rc.1', '4.19', true],
    ['4.19.0', '4.19', true],
    ['4.190.0', '4.19', false],
    ['4.20.0', '4.19', false],
    ['garbage', '0', false],
    [undefined, '4.19', false],
  ] as const)('majorMinorEquals(%j, %j) = %s', (v, base, want) => {
    expect(majorMinorEquals(v, base)).toBe(want);
  });

  it.each([
    ['4.14.0-rc.1', '4.14.0', true],
    ['4.14', '4.14', true],
    ['v4.14.0-rc.1', 'v4.14.0', true],
    ['garbage', 'garbage', false],
    ['4.x', '4.x', false],
  ] as const)('baseVersion(%j) = %j, isVersion = %s', (v, base, parses) => {
    expect(baseVersion(v)).toBe(base);
    expect(isVersion(v)).toBe(parses);
  });
});

describe('release rule (semver pre-release ordering, used by the converged-flow gate)', () => {
  it.each([
    ['4.14.0-rc.1', '4.14.0', -1],
    ['4.14.0', '4.14.0-rc.1', 1],
    ['4.12.0-rc.1', '4.12.0-0.alpha', 1],
    ['4.12', '4.12.0-0.alpha', 1],
    ['v4.12.1+build.5', '4.12.1', 0],
    ['1.0.0-2', '1.0.0-10', -1],
    ['garbage', '0', undefined],
    ['0', 'garbage', undefined],
    ['', '4.12.0', undefined],
  ] as const)('compareReleaseVersions(%j, %j) = %s', (a, b, want) => {
    expect(compareReleaseVersions(a, b)).toBe(want);
  });
});
