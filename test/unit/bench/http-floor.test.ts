// The bare HTTP server the idle phase compares a poll with (bench/http-floor.ts): it must count
// every request the driver sent it and charge its thread's CPU to them, or the ratio it prints
// means nothing.
import { describe, expect, it } from 'vitest';
import { measureHttpFloor } from '../../../bench/http-floor.ts';

describe('measureHttpFloor', () => {
  it('answers the polls played against it with JSON and counts each one', async () => {
    const answers: unknown[] = [];
    const driver = {
      async idle(seconds: number, _intervalSeconds: number, base?: string) {
        for (let i = 0; i < 25; i++) {
          const res = await fetch(`${base}/v2/infra-envs/x/hosts/${i}/instructions`);
          answers.push(await res.json());
        }
        return { seconds, polls: 25, latenciesMs: [], failures: {} };
      },
    };
    const floor = await measureHttpFloor(driver, 1, 10);
    expect(floor.requests).toBe(25);
    expect(answers).toHaveLength(25);
    expect(answers[0]).toMatchObject({ post_step_action: 'continue' });
    expect(floor.cpuMicrosPerRequest).toBeGreaterThan(0);
    expect(Number.isFinite(floor.cpuMicrosPerRequest)).toBe(true);
  });
});
