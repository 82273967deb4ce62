// A pino logger whose lines a test reads back: each line as written and as parsed JSON.
import { Writable } from 'node:stream';
import { type Logger, pino } from 'pino';

export interface CapturedLog {
  logger: Logger;
  /** Each line as written. */
  raw: string[];
  /** Each line parsed. */
  lines: Record<string, unknown>[];
}

export function capturingLogger(level = 'info'): CapturedLog {
  const raw: string[] = [];
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      const text = String(chunk);
      raw.push(text);
      lines.push(JSON.parse(text));
      done();
    },
  });
  return { logger: pino({ level }, sink), raw, lines };
}
