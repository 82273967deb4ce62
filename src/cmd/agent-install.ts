#!/usr/bin/env node
// `agent-install` CLI entry point; see src/cli/main.ts.
import { run } from '../cli/main.ts';

process.exitCode = await run(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
});
