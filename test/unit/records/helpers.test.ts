// URLs, condition setters, release parsing and time formatting.

import { describe, expect, it } from 'vitest';
import {
  coreTime,
  encodeQuery,
  eventsUrl,
  goQueryEscape,
  imageTag,
  keepSignedUrl,
  logsUrl,
  metaTime,
  releaseFromImageTag,
  type SigningKey,
  sameUrlTarget,
  setClusterInstallConditions,
  setConditionsNoHeartbeat,
} from '../../../src/records/index.ts';
import { LATER, NOW } from './fixtures.ts';

const S = 'https://assisted.example.com/';
const signer = (key: SigningKey) => `jwt.${key.kind}.${key.id}`;

describe('URLs (§3.11)', () => {
  it.each([
    [
      eventsUrl(S, { clusterId: 'c1' }),
      'https://assisted.example.com/api/assisted-install/v2/events?cluster_id=c1',
    ],
    [
      eventsUrl(S, { clusterId: 'c1' }, signer),
      'https://assisted.example.com/api/assisted-install/v2/events?api_key=jwt.cluster.c1&cluster_id=c1',
    ],
    [
      eventsUrl(S, { hostId: 'h1', infraEnvId: 'i1' }, signer),
      'https://assisted.example.com/api/assisted-install/v2/events?api_key=jwt.infra-env.i1&host_id=h1',
    ],
    [
      eventsUrl(S, { infraEnvId: 'i1' }, signer),
      'https://assisted.example.com/api/assisted-install/v2/events?api_key=jwt.infra-env.i1&infra_env_id=i1',
    ],
    [
      logsUrl(S, { clusterId: 'c1' }),
      'https://assisted.example.com/api/assisted-install/v2/clusters/c1/logs',
    ],
    [
      logsUrl(S, { clusterId: 'c1' }, signer),
      'https://assisted.example.com/api/assisted-install/v2/clusters/c1/logs?api_key=jwt.cluster.c1',
    ],
    [
      logsUrl(S, { clusterId: 'c1', hostId: 'h1' }, signer),
      'https://assisted.example.com/api/assisted-install/v2/clusters/c1/logs?api_key=jwt.cluster.c1&host_id=h1&logs_type=host',
    ],
  ])('%s', (actual, expected) => {
    expect(actual).toBe(expected);
  });

  it('escapes like Go url.QueryEscape and sorts keys like url.Values.Encode', () => {
    expect(goQueryEscape("a b!*'()~._-/:?&=+")).toBe('a+b%21%2A%27%28%29~._-%2F%3A%3F%26%3D%2B');
    expect(encodeQuery({ z: '1', a: 'x y', m: 'é' })).toBe('a=x+y&m=%C3%A9&z=1');
  });

  it('compares URLs ignoring the signature', () => {
    const a = eventsUrl(S, { hostId: 'h1', infraEnvId: 'i1' }, () => 'one');
    const b = eventsUrl(S, { hostId: 'h1', infraEnvId: 'i1' }, () => 'two');
    const c = eventsUrl(S, { hostId: 'h2', infraEnvId: 'i1' }, () => 'one');
    expect(sameUrlTarget(a, b)).toBe(true);
    expect(sameUrlTarget(a, c)).toBe(false);
    expect(keepSignedUrl(a, b)).toBe(a);
    expect(keepSignedUrl(a, c)).toBe(c);
    expect(keepSignedUrl(undefined, b)).toBe(b);
  });
});

describe('condition setters', () => {
  const v = (status: 'True' | 'False', reason = 'R', message = 'M') => ({
    type: 'T',
    status,
    reason,
    message,
  });

  it('no-heartbeat: lastTransitionTime changes only with the status', () => {
    const first = setConditionsNoHeartbeat(undefined, [v('True')], NOW);
    expect(first).toEqual([
      { type: 'T', status: 'True', reason: 'R', message: 'M', lastTransitionTime: '2025-03-01T10:00:00Z' },
    ]);
    const reworded = setConditionsNoHeartbeat(first, [v('True', 'R2', 'M2')], LATER);
    expect(reworded[0]).toMatchObject({
      reason: 'R2',
      message: 'M2',
      lastTransitionTime: '2025-03-01T10:00:00Z',
    });
    const flipped = setConditionsNoHeartbeat(reworded, [v('False', 'R2', 'M2')], LATER);
    expect(flipped[0]?.lastTransitionTime).toBe('2025-03-01T11:30:00Z');
    expect(flipped[0]?.lastHeartbeatTime).toBeUndefined();
  });

  it('Hive: both timestamps change when status, reason or message change', () => {
    const first = setClusterInstallConditions(undefined, [v('True')], NOW);
    expect(setClusterInstallConditions(first, [v('True')], LATER)).toEqual(first);
    for (const next of [v('False'), v('True', 'R2'), v('True', 'R', 'M2')]) {
      const changed = setClusterInstallConditions(first, [next], LATER)[0];
      expect(changed).toMatchObject({
        lastProbeTime: '2025-03-01T11:30:00Z',
        lastTransitionTime: '2025-03-01T11:30:00Z',
      });
    }
  });

  it('appends new types at the end and keeps others in place', () => {
    const other = { type: 'Other', status: 'True', lastTransitionTime: '2020-01-01T00:00:00Z' };
    const list = setConditionsNoHeartbeat([other], [v('True'), { ...v('False'), type: 'U' }], NOW);
    expect(list.map((c) => c.type)).toEqual(['Other', 'T', 'U']);
    expect(list[0]).toBe(other);
  });
});

describe('release from a ClusterImageSet image', () => {
  it.each([
    [
      'quay.io/openshift-release-dev/ocp-release:4.16.3-x86_64',
      { version: '4.16.3', cpuArchitecture: 'x86_64' },
    ],
    [
      'quay.io/openshift-release-dev/ocp-release:4.17.0-rc.2-aarch64',
      { version: '4.17.0-rc.2', cpuArchitecture: 'aarch64' },
    ],
    [
      'quay.io/openshift-release-dev/ocp-release:4.15.10-multi',
      { version: '4.15.10', cpuArchitecture: 'multi' },
    ],
    [
      'registry.ci.openshift.org/ocp/release:4.18.0-0.nightly-2025-01-01-000000',
      { version: '4.18.0-0.nightly-2025-01-01-000000', cpuArchitecture: 'x86_64' },
    ],
    ['localhost:5000/ocp/release:4.14.1-s390x', { version: '4.14.1', cpuArchitecture: 's390x' }],
    ['quay.io/openshift-release-dev/ocp-release@sha256:abcd', undefined],
    ['localhost:5000/ocp/release', undefined],
    ['quay.io/x/y:latest', undefined],
  ])('%s', (image, expected) => {
    expect(releaseFromImageTag(image)).toEqual(expected);
  });

  it('reads the tag past a registry port', () => {
    expect(imageTag('localhost:5000/a/b:4.16.0-x86_64')).toBe('4.16.0-x86_64');
    expect(imageTag('localhost:5000/a/b')).toBeUndefined();
  });
});

describe('time', () => {
  it('metaTime writes whole seconds in UTC; coreTime reads back the core form', () => {
    expect(metaTime('2025-03-01T10:00:00.999Z')).toBe('2025-03-01T10:00:00Z');
    expect(metaTime(new Date('2025-03-01T12:00:00+02:00'))).toBe('2025-03-01T10:00:00Z');
    expect(coreTime('2025-03-01T10:00:00Z')).toBe('2025-03-01T10:00:00.000Z');
    expect(coreTime('garbage')).toBe('garbage');
  });
});
