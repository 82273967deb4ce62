// V8's memory reducer starts a full collection when the process looks idle, or when none has run
// for 100 s while the old generation grew, as happens all day in an operator whose hosts poll at a
// steady rate. By default that collection is a memory-footprint one: it compacts every fragmented
// page, and its pause was 5 to 10 times an ordinary full collection's in make bench-scale (1,000
// hosts polling every second: 219-230 ms against 18-55 ms, and every poll sent meanwhile waited
// behind it). With the flag off the reducer still collects at the same moments, as an ordinary
// full collection (docs/operations.md, "Sizing the operator's memory").
import v8 from 'node:v8';

const FLAG = 'memory-reducer-favors-memory';

/**
 * Turns V8's memory-footprint collections into ordinary ones (process-wide), unless the node
 * command line names the flag itself: then that choice stands. True when this call set it.
 */
export function preferShortGcPauses(
  execArgv: readonly string[] = process.execArgv,
  setFlags: (flags: string) => void = v8.setFlagsFromString,
): boolean {
  const named = execArgv.some((a) => a.replaceAll('_', '-').replace(/^--no-/, '--') === `--${FLAG}`);
  if (named) return false;
  setFlags(`--no-${FLAG}`);
  return true;
}
