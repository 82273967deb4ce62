// A deterministic byte source for tests: SHA-256 in counter mode over a seed.

import { createHash } from 'node:crypto';

export function seededRandom(seed: string): (n: number) => Buffer {
  let counter = 0;
  let pool = Buffer.alloc(0);
  return (n: number) => {
    while (pool.length < n) {
      pool = Buffer.concat([pool, createHash('sha256').update(`${seed}:${counter++}`).digest()]);
    }
    const out = pool.subarray(0, n);
    pool = pool.subarray(n);
    return Buffer.from(out);
  };
}
