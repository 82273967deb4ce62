#!/usr/bin/env node
import { startOperator } from '../operator/main.ts';
// Production entry point: configuration from flags and environment, then run until SIGTERM.
import { describeOperatorConfig, loadOperatorConfig } from '../records/config.ts';
import { ConfigError, createLogger, describeRuntimeConfig } from '../runtime/index.ts';

if (process.argv.includes('--help')) {
  console.log(`agent-install-operator [flags]\n\n${describeRuntimeConfig()}\n${describeOperatorConfig()}`);
  process.exit(0);
}

const logger = createLogger();
try {
  const config = loadOperatorConfig();
  logger.level = config.runtime.logLevel;
  const op = await startOperator(config, { logger: logger.child({}), installSignalHandlers: true });
  await op.done;
  logger.info('stopped');
  process.exit(0);
} catch (err) {
  if (err instanceof ConfigError) logger.fatal(err.message);
  else logger.fatal({ err }, 'operator failed');
  process.exit(1);
}
