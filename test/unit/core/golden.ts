// Golden-file comparison shared by the core tests. `UPDATE_GOLDEN=1` rewrites the files.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { expect } from 'vitest';

export function expectGolden(path: string, actual: string): void {
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(path)) {
    if (process.env.UPDATE_GOLDEN !== '1' && process.env.CI) {
      throw new Error(`golden file ${path} is missing; run the test with UPDATE_GOLDEN=1`);
    }
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
  }
  expect(actual).toBe(readFileSync(path, 'utf8'));
}
