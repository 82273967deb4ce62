// Deterministic randomness: every simulated host derives its identity and jitter from a seed, so a
// run can be reproduced and two runs with the same seed simulate the same machines.

import { createHash } from 'node:crypto';

/** 32-bit FNV-1a of a string. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** mulberry32: a small, fast PRNG returning floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Unsigned 32-bit integers from mulberry32, for `next() % n` in property tests: every bit is as
 * good as every other, unlike a power-of-two linear congruential generator's low bits (its
 * lowest bit alternates, so `% 2` and `% 6` never reach half their values).
 */
export function seededUint32(seed: number): () => number {
  const random = seededRandom(seed);
  return () => Math.floor(random() * 4294967296);
}

/** An md5 digest formatted 8-4-4-4-12, as the agent derives the host id from the board serial. */
export function md5Uuid(text: string): string {
  const hex = createHash('md5').update(text).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** Uniform in [min, max). */
export function between(random: () => number, min: number, max: number): number {
  return min + random() * (max - min);
}
