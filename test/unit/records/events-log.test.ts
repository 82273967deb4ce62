// An event naming no known record is logged, not stored: the log line carries only a capped
// prefix of each host-provided string, so one large POST cannot flood the log.
import { describe, expect, it } from 'vitest';
import type { OperatorContext } from '../../../src/records/context.ts';
import { OperatorEvents } from '../../../src/records/events.ts';
import { capturingLogger } from '../../harness/log-capture.ts';

function capturingContext(): { ctx: OperatorContext; lines: string[] } {
  const { logger, raw: lines } = capturingLogger();
  const ctx = {
    logger,
    infraEnvById: () => undefined,
    clusterDeploymentById: () => undefined,
  } as unknown as OperatorContext;
  return { ctx, lines };
}

describe('events about unknown records', () => {
  it('log a capped line, whatever the size of the event', () => {
    const { ctx, lines } = capturingContext();
    const events = new OperatorEvents(ctx);
    const huge = 'm'.repeat(5 * 1024 * 1024);
    events.record({
      name: huge,
      severity: 'info',
      message: huge,
      event_time: '2026-01-01T00:00:00Z',
      cluster_id: '33333333-3333-4333-8333-333333333333',
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.length).toBeLessThan(2048);
    expect(lines[0]).toContain('event about an unknown record (not stored)');
    expect(lines[0]).toContain(`(${5 * 1024 * 1024 - 256} more characters)`);
  });
});

describe('refused requests', () => {
  it('log the path a host sent capped', () => {
    const { ctx, lines } = capturingContext();
    const events = new OperatorEvents(ctx);
    events.authFailure({
      status: 401,
      reason: 'invalid token',
      method: 'GET',
      path: `/api/${'p'.repeat(100_000)}`,
      scheme: 'agent',
      target: {},
      time: new Date('2026-01-01T00:00:00Z'),
    } as never);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.length).toBeLessThan(2048);
  });
});
