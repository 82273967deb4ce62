// Where a polling phase's slow polls come from (issue 16, "idle poll latency p99"). A latency
// percentile weighs requests, the loop-delay percentile weighs timer ticks: one 400 ms stall is one
// tick in 12,000 but can hold 400 polls. So the slow polls are grouped into episodes (runs of slow
// polls sent close together) and each episode is shown beside the operator's long loop intervals
// that overlap it and the number of requests the driver had in flight, which tells a stall of the
// operator from requests queued in the driver's connection pool behind it.

/** One poll as the driver saw it: sent at `sentAt` (epoch ms), answered `ms` later. */
export interface PollTiming {
  sentAt: number;
  ms: number;
  /** Requests the driver had in flight when it sent this one, this one included. */
  inFlight: number;
}

export interface SlowEpisode {
  /** Epoch ms of the episode's first slow poll's send, and of its last slow answer. */
  from: number;
  to: number;
  polls: number;
  maxMs: number;
  maxInFlight: number;
}

export interface SlowPolls {
  thresholdMs: number;
  slow: number;
  episodes: number;
  /** The episodes with the most slow polls, most first (at most `keep`). */
  largest: SlowEpisode[];
}

/**
 * Groups the polls at or above `thresholdMs` into episodes: a slow poll sent more than `gapMs`
 * after the previous slow one's send starts a new episode. Pure; `polls` in any order.
 */
export function slowPollEpisodes(polls: PollTiming[], thresholdMs = 100, gapMs = 1_000, keep = 5): SlowPolls {
  const slow = polls.filter((p) => p.ms >= thresholdMs).sort((a, b) => a.sentAt - b.sentAt);
  const episodes: SlowEpisode[] = [];
  let lastSent = Number.NEGATIVE_INFINITY;
  for (const p of slow) {
    const current = episodes.at(-1);
    if (!current || p.sentAt - lastSent > gapMs) {
      episodes.push({ from: p.sentAt, to: p.sentAt + p.ms, polls: 1, maxMs: p.ms, maxInFlight: p.inFlight });
    } else {
      current.to = Math.max(current.to, p.sentAt + p.ms);
      current.polls++;
      current.maxMs = Math.max(current.maxMs, p.ms);
      current.maxInFlight = Math.max(current.maxInFlight, p.inFlight);
    }
    lastSent = p.sentAt;
  }
  const largest = [...episodes].sort((a, b) => b.polls - a.polls || a.from - b.from).slice(0, keep);
  return { thresholdMs, slow: slow.length, episodes: episodes.length, largest };
}

/** A long interval of a thread's loop: `at` epoch ms of its end, its parts in ms. */
export interface LongInterval {
  at: number;
  ms: number;
  waitMs: number;
  runMs: number;
  gcMs: number;
}

/** The long intervals that overlap an episode (an interval spans [at − ms, at]). */
export function intervalsDuring(e: SlowEpisode, intervals: LongInterval[]): LongInterval[] {
  return intervals.filter((i) => i.at > e.from && i.at - i.ms < e.to);
}
