// The idle phase's slow-poll episodes (bench/slow-polls.ts): a p99 over requests says nothing of
// whether the slow ones came together; these group them and set them beside long loop intervals.
import { describe, expect, it } from 'vitest';
import { intervalsDuring, type PollTiming, slowPollEpisodes } from '../../../bench/slow-polls.ts';

const poll = (sentAt: number, ms: number, inFlight = 1): PollTiming => ({ sentAt, ms, inFlight });

describe('slowPollEpisodes', () => {
  // name, polls, slow, episodes, the largest episode's [from, to, polls, maxMs, maxInFlight]
  it.each<[string, PollTiming[], number, number, [number, number, number, number, number] | undefined]>([
    ['no slow poll', [poll(0, 5), poll(10, 99.9)], 0, 0, undefined],
    ['one slow poll', [poll(0, 5), poll(10, 100, 3)], 1, 1, [10, 110, 1, 100, 3]],
    [
      'a burst behind one stall, sent out of order',
      [poll(1_300, 150, 40), poll(1_000, 450, 20), poll(1_200, 250, 30), poll(1_100, 350, 25)],
      4,
      1,
      [1_000, 1_450, 4, 450, 40],
    ],
    [
      'two bursts more than a second apart; the larger first',
      [poll(0, 200), poll(500, 120), poll(5_000, 300, 9), poll(5_100, 250, 8), poll(5_900, 110, 7)],
      5,
      2,
      [5_000, 6_010, 3, 300, 9],
    ],
  ])('%s', (_name, polls, slow, episodes, largest) => {
    const s = slowPollEpisodes(polls);
    expect(s.slow).toBe(slow);
    expect(s.episodes).toBe(episodes);
    if (!largest) return expect(s.largest).toEqual([]);
    const [from, to, n, maxMs, maxInFlight] = largest;
    expect(s.largest[0]).toEqual({ from, to, polls: n, maxMs, maxInFlight });
  });

  it('keeps at most `keep` episodes, those with the most slow polls', () => {
    const polls = [0, 1, 2, 3].flatMap((k) =>
      Array.from({ length: k + 1 }, (_, j) => poll(k * 10_000 + j, 200)),
    );
    const s = slowPollEpisodes(polls, 100, 1_000, 2);
    expect(s.episodes).toBe(4);
    expect(s.largest.map((e) => e.polls)).toEqual([4, 3]);
  });
});

describe('intervalsDuring', () => {
  const episode = { from: 1_000, to: 2_000, polls: 1, maxMs: 1_000, maxInFlight: 1 };
  const at = (end: number, ms: number) => ({ at: end, ms, waitMs: 0, runMs: ms, gcMs: 0 });
  it.each<[string, number, number, boolean]>([
    ['ends before the episode', 999, 100, false],
    ['ends just inside', 1_001, 100, true],
    ['inside', 1_500, 200, true],
    ['starts inside, ends after', 2_300, 400, true],
    ['starts at its end', 2_400, 400, false],
    ['spans it', 2_500, 2_000, true],
  ])('%s', (_name, end, ms, inside) => {
    expect(intervalsDuring(episode, [at(end, ms)])).toHaveLength(inside ? 1 : 0);
  });
});
