// BMAC's spoke-side decisions: the MCS CA merged into the ignition overrides annotation, PEM
// checks, Go durations and the drain-status progression.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  DRAIN_REQUEUE_MS,
  decideDrain,
  drainTimeoutMs,
  isValidPemBundle,
  withMcsCa,
} from '../../../../src/controllers/bmac/spoke.ts';
import { selfSignedIngressCa } from '../../../../src/sim/ingress-ca.ts';

let ca: string;
let dataUrl: string;
beforeAll(async () => {
  ca = await selfSignedIngressCa('mcs-ca-test');
  dataUrl = `data:text/plain;base64,${Buffer.from(ca).toString('base64')}`;
});

describe('isValidPemBundle', () => {
  it('accepts certificates and rejects anything else', async () => {
    expect(isValidPemBundle(ca)).toBe(true);
    expect(isValidPemBundle(`${ca}\n${await selfSignedIngressCa('second')}`)).toBe(true);
    expect(isValidPemBundle('')).toBe(false);
    expect(isValidPemBundle('not a cert')).toBe(false);
    expect(isValidPemBundle('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----')).toBe(false);
  });
});

describe('withMcsCa', () => {
  it('creates an ignition 3.1.0 override when there is none', () => {
    for (const empty of [undefined, '', '  ']) {
      expect(JSON.parse(withMcsCa(empty, ca)!)).toEqual({
        ignition: { version: '3.1.0', security: { tls: { certificateAuthorities: [{ source: dataUrl }] } } },
      });
    }
  });

  it('adds the CA to an existing override, keeping what is there', () => {
    const existing = JSON.stringify({
      ignition: { version: '3.2.0', security: { tls: { certificateAuthorities: [{ source: 'data:,x' }] } } },
      storage: { files: [{ path: '/etc/demo' }] },
    });
    expect(JSON.parse(withMcsCa(existing, ca)!)).toEqual({
      ignition: {
        version: '3.2.0',
        security: { tls: { certificateAuthorities: [{ source: 'data:,x' }, { source: dataUrl }] } },
      },
      storage: { files: [{ path: '/etc/demo' }] },
    });
  });

  it('leaves an override that already has the CA, or that is not a JSON object', () => {
    expect(withMcsCa(withMcsCa(undefined, ca), ca)).toBeUndefined();
    expect(withMcsCa('{not json', ca)).toBeUndefined();
    expect(withMcsCa('[]', ca)).toBeUndefined();
  });
});

describe('drainTimeoutMs', () => {
  it.each([
    ['90s', 90_000],
    ['1h30m', 5_400_000],
    ['500ms', 500],
    ['1.5m', 90_000],
    ['0', 0],
    ['', undefined],
    ['10', undefined],
    ['5 minutes', undefined],
    ['-1s', undefined],
  ])('%j → %j', (text, ms) => {
    expect(drainTimeoutMs(text)).toBe(ms);
  });
});

describe('decideDrain', () => {
  const t0 = '2026-11-21T10:00:00.000Z';
  const at = (s: number) => new Date(Date.parse(t0) + s * 1000);

  it('starts, stays in progress, then succeeds', () => {
    expect(
      decideDrain({
        startedAt: undefined,
        timeout: undefined,
        now: at(0),
        attempt: { done: false, unreachable: false },
      }),
    ).toEqual({
      status: 'draining in progress',
      startedAt: t0,
      proceed: false,
      requeueAfterMs: DRAIN_REQUEUE_MS,
    });
    expect(
      decideDrain({
        startedAt: t0,
        timeout: undefined,
        now: at(3600),
        attempt: { done: false, unreachable: false },
      }).status,
    ).toBe('draining in progress');
    expect(decideDrain({ startedAt: t0, timeout: undefined, now: at(40), attempt: { done: true } })).toEqual({
      status: 'drain succeeded',
      startedAt: t0,
      proceed: true,
    });
  });

  it('times out after the user drain-timeout, or 5 minutes for an unreachable node', () => {
    expect(
      decideDrain({
        startedAt: t0,
        timeout: '2m',
        now: at(121),
        attempt: { done: false, unreachable: false },
      }),
    ).toMatchObject({
      status: 'drain timed out',
      proceed: true,
    });
    expect(
      decideDrain({
        startedAt: t0,
        timeout: '2m',
        now: at(119),
        attempt: { done: false, unreachable: false },
      }).proceed,
    ).toBe(false);
    expect(
      decideDrain({
        startedAt: t0,
        timeout: undefined,
        now: at(301),
        attempt: { done: false, unreachable: true },
      }),
    ).toMatchObject({
      status: 'drain timed out',
      proceed: true,
    });
    expect(
      decideDrain({
        startedAt: t0,
        timeout: undefined,
        now: at(299),
        attempt: { done: false, unreachable: true },
      }).proceed,
    ).toBe(false);
  });

  it('gives up on failing attempts after 5 minutes', () => {
    expect(
      decideDrain({
        startedAt: t0,
        timeout: undefined,
        now: at(301),
        attempt: { error: 'connection refused' },
      }),
    ).toMatchObject({ status: 'drain timed out', proceed: true });
  });

  it('reports a failed attempt and retries', () => {
    expect(
      decideDrain({
        startedAt: t0,
        timeout: undefined,
        now: at(5),
        attempt: { error: 'connection refused' },
      }),
    ).toEqual({
      status: 'failed to drain node: connection refused',
      startedAt: t0,
      proceed: false,
      requeueAfterMs: DRAIN_REQUEUE_MS,
    });
  });
});
