// V8's memory reducer starts a collection when the process looks idle, or when no full
// collection has run for 100 s while the old generation grew. By default that collection is a
// memory-footprint one: it compacts every fragmented page, and its atomic pause was 5 to 10 times
// an ordinary full collection's in make bench-scale (1,000 hosts polling: 219 ms against 14-54 ms;
// 10,000 hosts: a 681 ms stall of the operator's thread, 339 ms of it the collector, and every poll
// sent meanwhile waited behind it). An operator whose heap is its caches polls on at the same rate
// all day, so the watchdog fires there. With the flag off the reducer still collects at the same
// moments, as an ordinary full collection.
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
