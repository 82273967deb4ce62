// The metal3 stand-in's CLI: arguments, and BMH manifests that point at the rack's machines.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { bmhManifests, parseSimMetal3Args, rackOf } from '../../../src/cmd/sim-metal3.ts';

describe('parseSimMetal3Args', () => {
  it('parses flags with defaults', () => {
    expect(parseSimMetal3Args(['--namespace', 'ztp'])).toEqual({
      namespace: 'ztp',
      converged: false,
      profiles: ['master', 'master', 'master'],
      seed: 'ztp',
      speed: 10,
      verbose: false,
    });
    expect(
      parseSimMetal3Args([
        '--namespace',
        'z',
        '--converged',
        '--profile',
        'sno',
        '--speed',
        '50',
        '--seed',
        's',
      ]),
    ).toMatchObject({ converged: true, profiles: ['sno'], speed: 50, seed: 's' });
  });

  it('rejects bad input with a reason', () => {
    expect(() => parseSimMetal3Args([])).toThrow('--namespace is required');
    expect(() => parseSimMetal3Args(['--namespace', 'z', '--profile', 'huge'])).toThrow(
      'unknown profile huge',
    );
    expect(() => parseSimMetal3Args(['--namespace', 'z', '--speed', '0'])).toThrow('--speed must be');
    expect(() => parseSimMetal3Args(['--namespace', 'z', '--bogus'])).toThrow();
  });
});

describe('bmhManifests', () => {
  it('writes one labelled BMH per rack machine, booting from its first NIC', () => {
    const rack = rackOf({ profiles: ['master', 'worker'], seed: 'ztp' });
    const docs = parseAllDocuments(bmhManifests(rack, 'ztp', 'myenv')).map((d) => d.toJS());
    expect(docs).toHaveLength(2);
    docs.forEach((bmh, i) => {
      expect(bmh).toMatchObject({
        kind: 'BareMetalHost',
        metadata: {
          name: rack[i]!.hostname,
          namespace: 'ztp',
          labels: { 'infraenvs.agent-install.openshift.io': 'myenv' },
        },
        spec: { online: true, bootMACAddress: rack[i]!.addresses[0]!.mac },
      });
    });
    // Same seed, same rack: manifests printed earlier still match a later run.
    expect(rackOf({ profiles: ['master', 'worker'], seed: 'ztp' })[1]!.addresses[0]!.mac).toBe(
      rack[1]!.addresses[0]!.mac,
    );
  });

  it('prints them from the command line', () => {
    const out = execFileSync(
      process.execPath,
      ['src/cmd/sim-metal3.ts', '--namespace', 'ztp', '--profile', 'sno', '--print-bmhs', 'sno-env'],
      { encoding: 'utf8' },
    );
    expect(parseAllDocuments(out).map((d) => d.toJS().metadata.name)).toEqual(['rack-sno-0']);
    // A child Node process: its start-up alone can pass the default 5 s on a loaded CI box.
  }, 60_000);
});
