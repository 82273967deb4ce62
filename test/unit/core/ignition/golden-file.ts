// Golden-file comparison: UPDATE_GOLDEN=1 rewrites the file instead of comparing.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { expect } from 'vitest';

export function expectGolden(path: string, actual: string): void {
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
    if (process.env.UPDATE_GOLDEN !== '1')
      throw new Error(`golden file ${path} was missing and has been written; re-run`);
    return;
  }
  expect(actual).toBe(readFileSync(path, 'utf8'));
}
