// Children started in a session of their own (`spawn(..., { detached: true })`), for benchmarks:
// Linux's autogroup scheduling then shares the CPU between them and this process as between
// separate pods or machines rather than thread by thread. Outside the terminal's process group no
// Ctrl-C reaches them, so they end with this process: killed on its exit, and a SIGINT or SIGTERM
// to this process becomes an exit.

import type { ChildProcess } from 'node:child_process';

let signalsExit = false;

/** Kills `child` (started detached) when this process exits, however it is told to. */
export function endWithThisProcess(child: ChildProcess): void {
  if (!signalsExit) {
    signalsExit = true;
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
  }
  const kill = () => child.kill('SIGKILL');
  process.on('exit', kill);
  child.once('exit', () => process.off('exit', kill));
}
