// agent-install-sim: boots N simulated hosts from a discovery ISO or ignition URL and runs their
// agents against the service, printing progress lines. SIGINT/SIGTERM stop it cleanly (exit 0).
//
//   node src/cmd/sim.ts --iso-url URL | --ignition-url URL [--hosts 5]
//     [--profile master,master,master,worker,worker] [--speed 10]
//     [--machine-network 192.168.111.0/24] [--fail-at-stage [INDEX:]STAGE] …

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { HOST_STAGES, type HostStage } from '../core/model.ts';
import { boot } from '../sim/boot.ts';
import { Fleet, type FleetOptions } from '../sim/fleet.ts';
import { INSTALLER_STAGES } from '../sim/installer.ts';
import { isProfileName, machineNetworkCapacity, PROFILE_NAMES, type ProfileName } from '../sim/profiles.ts';
import { formatStats, type SimEvent } from '../sim/stats.ts';

const USAGE = `usage: node src/cmd/sim.ts (--iso-url URL | --ignition-url URL) [options]

  --hosts N                 number of simulated hosts (default: number of --profile entries, else 1)
  --profile LIST            comma list, cycled over the hosts: ${PROFILE_NAMES.join(', ')}
                            (default: 1 host → sno; else master ×3, then worker)
  --speed X                 simulated time runs X times faster (default 1)
  --machine-network CIDRS   primary NIC network(s), comma list (one per family; default 192.168.111.0/24)
  --fail-at-stage [I:]STAGE installer of host I (or every host) reports Failed at STAGE (repeatable)
  --concurrency N           max HTTP requests in flight (default 64)
  --seed STR                identity seed: MACs, serials, host ids (default "sim")
  --hostname-prefix STR     hostnames are <prefix>-<profile>-<index> (default "sim")
  --controller I|none       host that runs the in-cluster controller (default: first non-worker)
  --stage-seconds S         simulated seconds between installer actions (default 10)
  --service-url URL         override the agent's --url from the media
  --token TOKEN             override PULL_SECRET_TOKEN from the media
  --cacert FILE             CA for the service (overrides the media's)
  --insecure                skip TLS verification (media and service)
  --no-logs                 do not upload logs
  --stats-interval S        print a stats line every S real seconds (default 10; 0 = off)
  --exit-when-settled       exit once every host finished (rebooted or gave up)
  --verbose                 print every step reply
`;

export interface SimCliOptions {
  media: { isoUrl: string } | { ignitionUrl: string };
  fleet: Omit<FleetOptions, 'media' | 'config'>;
  insecure: boolean;
  statsIntervalS: number;
  exitWhenSettled: boolean;
  verbose: boolean;
}

function parseStage(text: string): { stage: HostStage; hostIndex?: number } {
  const m = /^(\d+):(.+)$/.exec(text);
  const stage = (m ? m[2]! : text).trim();
  const match = HOST_STAGES.find((s) => s.toLowerCase() === stage.toLowerCase());
  if (!match || !INSTALLER_STAGES.includes(match)) {
    throw new Error(
      `--fail-at-stage: ${JSON.stringify(stage)} is not an installer stage (${INSTALLER_STAGES.join(', ')})`,
    );
  }
  return { stage: match, ...(m ? { hostIndex: Number(m[1]) } : {}) };
}

/** A numeric flag that must be positive (`fallback` when absent). */
export function positive(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, got ${text}`);
  return n;
}

/** A --profile comma list, each entry checked; undefined when the flag is absent. */
export function parseProfiles(text: string | undefined): ProfileName[] | undefined {
  const profiles = text
    ?.split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  for (const p of profiles ?? [])
    if (!isProfileName(p)) throw new Error(`unknown profile ${p} (${PROFILE_NAMES.join(', ')})`);
  return profiles as ProfileName[] | undefined;
}

/** Parses argv (without node and script). Throws with a usage hint on bad input. */
export function parseSimArgs(argv: string[]): SimCliOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      'iso-url': { type: 'string' },
      'ignition-url': { type: 'string' },
      hosts: { type: 'string' },
      profile: { type: 'string' },
      speed: { type: 'string' },
      'machine-network': { type: 'string' },
      'fail-at-stage': { type: 'string', multiple: true },
      concurrency: { type: 'string' },
      seed: { type: 'string' },
      'hostname-prefix': { type: 'string' },
      controller: { type: 'string' },
      'stage-seconds': { type: 'string' },
      'service-url': { type: 'string' },
      token: { type: 'string' },
      cacert: { type: 'string' },
      insecure: { type: 'boolean', default: false },
      'no-logs': { type: 'boolean', default: false },
      'stats-interval': { type: 'string' },
      'exit-when-settled': { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return 'help';
  const iso = values['iso-url'];
  const ign = values['ignition-url'];
  if ((iso === undefined) === (ign === undefined))
    throw new Error('exactly one of --iso-url and --ignition-url is required');
  const profiles = parseProfiles(values.profile);
  const hosts = Math.floor(positive('hosts', values.hosts, profiles?.length ?? 1));
  const machineNetworks = values['machine-network']?.split(',').map((c) => c.trim());
  for (const cidr of machineNetworks ?? ['192.168.111.0/24']) {
    const room = machineNetworkCapacity(cidr);
    if (room < hosts) throw new Error(`--machine-network ${cidr} has room for ${room} hosts, not ${hosts}`);
  }
  const controller =
    values.controller === undefined
      ? undefined
      : values.controller === 'none'
        ? false
        : Number(values.controller);
  if (
    typeof controller === 'number' &&
    !(Number.isInteger(controller) && controller >= 0 && controller < hosts)
  ) {
    throw new Error(`--controller must be a host index below ${hosts} or "none"`);
  }
  const caCert = values.cacert ? readFileSync(values.cacert, 'utf8') : undefined;
  const overrides = {
    ...(values['service-url'] ? { serviceUrl: values['service-url'] } : {}),
    ...(values.token !== undefined ? { token: values.token } : {}),
    ...(caCert ? { caCert } : {}),
    ...(values.insecure ? { insecure: true } : {}),
  };
  return {
    media: iso !== undefined ? { isoUrl: iso } : { ignitionUrl: ign! },
    insecure: values.insecure ?? false,
    statsIntervalS: values['stats-interval'] === undefined ? 10 : Number(values['stats-interval']),
    exitWhenSettled: values['exit-when-settled'] ?? false,
    verbose: values.verbose ?? false,
    fleet: {
      hosts,
      profiles,
      speed: positive('speed', values.speed, 1),
      concurrency: Math.floor(positive('concurrency', values.concurrency, 64)),
      machine: {
        ...(values.seed ? { seed: values.seed } : {}),
        ...(machineNetworks ? { machineNetworks } : {}),
        ...(values['hostname-prefix'] ? { hostnamePrefix: values['hostname-prefix'] } : {}),
      },
      ...(controller !== undefined ? { controller } : {}),
      failAtStage: (values['fail-at-stage'] ?? []).map(parseStage),
      install: {
        stageMs: positive('stage-seconds', values['stage-seconds'], 10) * 1000,
        uploadLogs: !values['no-logs'],
      },
      overrides,
    },
  };
}

/** One progress line per event worth a human's attention. */
export function formatEvent(ev: SimEvent, verbose: boolean): string | undefined {
  switch (ev.type) {
    case 'registered':
      return `${ev.host} registered (${ev.hostId})${ev.count > 1 ? ` again (#${ev.count})` : ''}`;
    case 'gave-up':
      return `${ev.host} GAVE UP: ${ev.reason}`;
    case 'step':
      return verbose
        ? `${ev.host} ${ev.stepType} exit ${ev.exitCode}${ev.posted ? '' : ' (unchanged, not posted)'}`
        : undefined;
    case 'runner-exit':
      return `${ev.host} runner exited: ${ev.reason}`;
    case 'stage':
      return `${ev.host} ${ev.forHostId ? `sets host ${ev.forHostId} to` : 'stage'} "${ev.stage}"${ev.info ? ` (${ev.info})` : ''}`;
    case 'rebooted':
      return `${ev.host} rebooted`;
    case 'logs-uploaded':
      return verbose ? `${ev.host} uploaded ${ev.logsType} logs` : undefined;
    case 'cluster':
      return `${ev.host} cluster ${ev.clusterId} ${ev.action}${ev.detail ? `: ${ev.detail}` : ''}`;
    case 'error':
      return `${ev.host} error ${ev.op} ${ev.status || ''} ${ev.message}`.replace(/\s+/g, ' ').slice(0, 400);
  }
}

/**
 * A simulator command's options, or its exit code when the arguments ask for help (0, the usage
 * on stdout) or are wrong (2, why and the usage on stderr).
 */
export function optionsOrExitCode<T>(
  parse: (argv: string[]) => T | 'help',
  argv: string[],
  usage: string,
): T | number {
  let opts: T | 'help';
  try {
    opts = parse(argv);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${usage}`);
    return 2;
  }
  if (opts !== 'help') return opts;
  process.stdout.write(usage);
  return 0;
}

/** Runs a command's main with the process's arguments; its answer (or 1 on a throw) is the exit code. */
export function runCommand(main: (argv: string[]) => Promise<number>): void {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`${(err as Error).stack ?? err}\n`);
      process.exitCode = 1;
    },
  );
}

async function main(argv: string[]): Promise<number> {
  const opts = optionsOrExitCode(parseSimArgs, argv, USAGE);
  if (typeof opts === 'number') return opts;
  const log = (line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);
  const stop = new AbortController();
  const onSignal = (sig: string) => {
    log(`${sig}: stopping`);
    stop.abort();
  };
  process.once('SIGINT', () => onSignal('SIGINT'));
  process.once('SIGTERM', () => onSignal('SIGTERM'));

  let fleet: Fleet;
  try {
    const booted = await boot(opts.media, { insecure: opts.insecure, signal: stop.signal });
    const c = booted.config;
    log(
      `booted from ${booted.source.kind}: service ${c.serviceUrl} infra-env ${c.infraEnvId} agent ${c.agentVersion}`,
    );
    const verbose = opts.verbose;
    fleet = new Fleet(c, {
      ...opts.fleet,
      signal: stop.signal,
      onEvent: (ev) => {
        const line = formatEvent(ev, verbose);
        if (line) log(line);
      },
    });
  } catch (err) {
    if (stop.signal.aborted) return 0;
    process.stderr.write(`boot failed: ${(err as Error).message}\n`);
    return 1;
  }
  log(`starting ${fleet.hosts.length} host(s)`);
  fleet.start();
  const timer =
    opts.statsIntervalS > 0
      ? setInterval(() => log(formatStats(fleet.stats)), opts.statsIntervalS * 1000)
      : undefined;
  const stopped = new Promise<void>((resolve) =>
    stop.signal.addEventListener('abort', () => resolve(), { once: true }),
  );
  await Promise.race([stopped, ...(opts.exitWhenSettled ? [fleet.settled()] : [])]);
  if (timer) clearInterval(timer);
  await fleet.stop();
  log(formatStats(fleet.stats));
  if (stop.signal.aborted) return 0;
  return fleet.stats.gaveUp > 0 || fleet.stats.failed > 0 ? 1 : 0;
}

if (import.meta.main) runCommand(main);
