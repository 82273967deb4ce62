// agent-install-sim-metal3: a rack of simulated bare-metal machines driven by BareMetalHosts, for
// trying zero-touch provisioning without metal3 or hardware. It plays baremetal-operator for one
// namespace (src/sim/metal3.ts): a BMH whose boot MAC names a rack machine boots it from the live
// ISO in spec.image, or (--converged) from the PreprovisioningImage it creates for the BMH.
//
//   node src/cmd/sim-metal3.ts --namespace NS [--converged] [--profile master,master,master]
//   node src/cmd/sim-metal3.ts --namespace NS --print-bmhs INFRAENV   # BMH manifests for the rack
//
// SIGINT/SIGTERM stop it (exit 0). It uses $KUBECONFIG (or --kubeconfig).

import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { loadKubeConfig } from '../operator/main.ts';
import { KubeClient } from '../runtime/index.ts';
import { type Metal3Event, SimMetal3 } from '../sim/metal3.ts';
import { PROFILE_NAMES, type ProfileName, type SimulatedMachine, simulatedMachine } from '../sim/profiles.ts';
import type { SimEvent } from '../sim/stats.ts';
import { formatEvent, optionsOrExitCode, parseProfiles, positive, runCommand } from './sim.ts';

const USAGE = `usage: node src/cmd/sim-metal3.ts --namespace NS [options]

  --namespace NS          namespace of the BareMetalHosts to serve (required)
  --converged             create PreprovisioningImages and boot from them (converged flow)
  --profile LIST          rack machines, comma list of: ${PROFILE_NAMES.join(', ')} (default master,master,master)
  --seed STR              identity seed: MACs, serials, host ids (default: the namespace)
  --speed X               simulated time runs X times faster (default 10)
  --kubeconfig PATH       default: $KUBECONFIG
  --print-bmhs INFRAENV   print a BareMetalHost manifest per rack machine (labelled for INFRAENV) and exit
  --verbose               print every step reply
`;

export interface SimMetal3CliOptions {
  namespace: string;
  converged: boolean;
  profiles: ProfileName[];
  seed: string;
  speed: number;
  kubeconfig?: string;
  printBmhs?: string;
  verbose: boolean;
}

/** Parses argv (without node and script). Throws with a reason on bad input. */
export function parseSimMetal3Args(argv: string[]): SimMetal3CliOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      namespace: { type: 'string' },
      converged: { type: 'boolean', default: false },
      profile: { type: 'string' },
      seed: { type: 'string' },
      speed: { type: 'string' },
      kubeconfig: { type: 'string' },
      'print-bmhs': { type: 'string' },
      verbose: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return 'help';
  if (!values.namespace) throw new Error('--namespace is required');
  const profiles = parseProfiles(values.profile ?? 'master,master,master') ?? [];
  if (profiles.length === 0) throw new Error('--profile needs at least one machine');
  return {
    namespace: values.namespace,
    converged: values.converged ?? false,
    profiles,
    seed: values.seed ?? values.namespace,
    speed: positive('speed', values.speed, 10),
    ...(values.kubeconfig ? { kubeconfig: values.kubeconfig } : {}),
    ...(values['print-bmhs'] ? { printBmhs: values['print-bmhs'] } : {}),
    verbose: values.verbose ?? false,
  };
}

export function rackOf(opts: Pick<SimMetal3CliOptions, 'profiles' | 'seed'>): SimulatedMachine[] {
  return opts.profiles.map((p, i) => simulatedMachine(p, i, { seed: opts.seed, hostnamePrefix: 'rack' }));
}

/** A BareMetalHost manifest per rack machine, booting from its first NIC, for the InfraEnv. */
export function bmhManifests(machines: SimulatedMachine[], namespace: string, infraEnv: string): string {
  return machines
    .map((m) =>
      stringify({
        apiVersion: 'metal3.io/v1alpha1',
        kind: 'BareMetalHost',
        metadata: {
          name: m.hostname,
          namespace,
          labels: { 'infraenvs.agent-install.openshift.io': infraEnv },
          annotations: { 'bmac.agent-install.openshift.io/hostname': m.hostname },
        },
        spec: {
          online: true,
          bootMACAddress: m.addresses[0]?.mac ?? '',
          bmc: {
            address: `redfish-virtualmedia://192.0.2.1/redfish/v1/Systems/${m.index}`,
            credentialsName: `${m.hostname}-bmc`,
          },
        },
      }),
    )
    .join('---\n');
}

function formatMetal3(ev: SimEvent | Metal3Event, verbose: boolean): string | undefined {
  if (ev.type === 'metal3') return `bmh ${ev.bmh}: ${ev.action}${ev.detail ? ` ${ev.detail}` : ''}`;
  return formatEvent(ev, verbose);
}

async function main(argv: string[]): Promise<number> {
  const opts = optionsOrExitCode(parseSimMetal3Args, argv, USAGE);
  if (typeof opts === 'number') return opts;
  const machines = rackOf(opts);
  if (opts.printBmhs) {
    process.stdout.write(bmhManifests(machines, opts.namespace, opts.printBmhs));
    return 0;
  }
  const log = (line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);
  const client = new KubeClient({ kubeConfig: loadKubeConfig(opts.kubeconfig ?? process.env.KUBECONFIG) });
  for (const m of machines) log(`rack: ${m.hostname} boot MAC ${m.addresses[0]?.mac} (${m.profile})`);
  const verbose = opts.verbose;
  const metal3 = new SimMetal3({
    client,
    namespace: opts.namespace,
    machines,
    converged: opts.converged,
    speed: opts.speed,
    onEvent: (ev) => {
      const line = formatMetal3(ev, verbose);
      if (line) log(line);
    },
  }).start();
  log(`serving BareMetalHosts in ${opts.namespace} (${opts.converged ? 'converged' : 'live ISO'} flow)`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  log('stopping');
  await metal3.stop();
  await client.close();
  return 0;
}

if (import.meta.main) runCommand(main);
