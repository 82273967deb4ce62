// Fuzz of the pure parsers and validators that take user or host input: generated bad input must
// give an answer (a value or an error message), never an unexpected exception (TypeError,
// RangeError: a bug or a stack overflow) and never take long (a backtracking pattern).
// Seeds are fixed and printed; FUZZ_SEED replays one, FUZZ_SCALE scales the case counts.
import { describe, expect, it } from 'vitest';
import { validateIgnitionOverride } from '../../src/core/ignition/override.ts';
import { parseIgnition } from '../../src/core/ignition/parse.ts';
import { validateStaticNetworkConfig } from '../../src/core/ignition/static-network.ts';
import { parseRegistriesConf } from '../../src/core/installconfig/registries.ts';
import { classify, jqQueryError } from '../../src/core/jq/index.ts';
import { tryParseCidr } from '../../src/core/network/cidr.ts';
import { parseConnectivity } from '../../src/core/network/connectivity.ts';
import { validateNetworksInput } from '../../src/core/network/network-input.ts';
import { validateVipsInput } from '../../src/core/network/vips.ts';
import { parseImageRef } from '../../src/core/release/registry.ts';
import { parseGoDuration } from '../../src/core/statemachine/durations.ts';
import { parseUserInstallerArgs } from '../../src/core/steps/installer-args.ts';
import { parseStepReply } from '../../src/core/steps/replies.ts';
import { STEP_TYPES } from '../../src/core/steps/types.ts';
import { parseIgnoredValidations } from '../../src/core/validations/types.ts';
import {
  baseDomainError,
  clusterNameError,
  ntpSourcesError,
  proxyError,
  requestedHostnameError,
  sshPublicKeyError,
} from '../../src/core/validations/user-input.ts';
import { parseKernelArguments } from '../../src/images/embed.ts';
import { parseRange } from '../../src/images/iso-stream.ts';
import * as wire from '../../src/server/api/schemas.ts';
import { casesFor, Fuzzer, type FuzzFigures, printFigures, seedFor } from './gen.ts';

/** One case may not take longer than this (a catastrophic backtrack takes seconds to hours). */
const CASE_TIME_LIMIT_MS = 5_000;

/**
 * `throws`: the function reports bad input by throwing an Error of its own (its callers catch
 * it); a TypeError, RangeError or ReferenceError is still a bug.
 */
type Target = { name: string; seed: number; cases: number; throws?: boolean; run: (f: Fuzzer) => unknown };

const BUG_ERRORS = [TypeError, RangeError, ReferenceError];

// biome-ignore lint/suspicious/noExplicitAny: fuzz input is deliberately of any type
type Any = any;

const targets: Target[] = [
  {
    name: 'user-input: ssh key',
    seed: 1401,
    cases: 800,
    run: (f) =>
      sshPublicKeyError(f.chance(0.3) ? `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5${f.string()}` : f.string()),
  },
  {
    name: 'user-input: ntp, proxy, domain, name',
    seed: 1402,
    cases: 1200,
    run: (f) => {
      ntpSourcesError(Array.from({ length: f.int(4) }, () => f.string()));
      proxyError({ httpProxy: f.string(), httpsProxy: f.string(), noProxy: f.string() });
      baseDomainError(f.string());
      clusterNameError(f.string(), f.pick(['none', 'baremetal']));
      return requestedHostnameError(f.string());
    },
  },
  { name: 'ignition override', seed: 1403, cases: 600, run: (f) => validateIgnitionOverride(f.rawBody()) },
  {
    name: 'ignition parse (structured)',
    seed: 1404,
    cases: 600,
    run: (f) =>
      parseIgnition(JSON.stringify(f.mutate({ ignition: { version: '3.2.0' }, storage: { files: [] } }))),
  },
  {
    name: 'cidr, networks and vips input',
    seed: 1405,
    cases: 800,
    run: (f) => {
      tryParseCidr(f.pick(['10.0.0.0/', '::/129', '1.2.3.4/33', f.string()]));
      // Typed as the CRD schema delivers them: the fuzz is in the values.
      const cidr = () => ({ cidr: f.pick(['10.0.0.0/16', 'fd00::/64', '0.0.0.0/0', f.string()]) });
      const list = <T>(make: () => T) => Array.from({ length: f.int(4) }, make);
      validateNetworksInput(
        {
          machine_networks: list(cidr),
          cluster_networks: list(() => ({ ...cidr(), host_prefix: f.number() })),
          service_networks: list(cidr),
        },
        {
          userManagedNetworking: f.chance(0.5),
          singleNode: f.chance(0.5),
          userManagedLoadBalancer: f.chance(0.5),
          vipDhcpAllocation: false,
          hostCount: f.int(10),
          openshiftVersion: f.pick(['4.18', '4.12.0', f.string()]),
          ipv6Supported: true,
        },
      );
      return validateVipsInput({ api_vips: [f.string(), f.string()], ingress_vips: [f.string()] } as Any, {
        openshiftVersion: f.pick(['4.18', f.string()]),
        userManagedNetworking: false,
        vipDhcpAllocation: false,
        userManagedLoadBalancer: f.chance(0.5),
        machineNetworks: [f.pick(['10.0.0.0/16', f.string()])],
        dualStack: f.chance(0.5),
        hosts: [],
      });
    },
  },
  {
    name: 'step replies (every step type)',
    seed: 1406,
    cases: 2000,
    run: (f) =>
      parseStepReply({
        step_type: f.chance(0.9) ? f.pick(STEP_TYPES) : f.string(),
        step_id: f.string(),
        exit_code: f.chance(0.8) ? 0 : f.number(),
        output: f.chance(0.3) ? f.rawBody() : JSON.stringify(f.value(3)),
        error: f.chance(0.2) ? f.string() : undefined,
      } as Any),
  },
  {
    name: 'REST bodies (every wire model)',
    seed: 1407,
    cases: 1600,
    run: (f) => {
      const schemas = [
        wire.hostCreateParamsSchema,
        wire.stepReplySchema,
        wire.hostProgressSchema,
        wire.logsProgressParamsSchema,
        wire.finalizingProgressSchema,
        wire.operatorMonitorReportSchema,
        wire.completionParamsSchema,
        wire.eventSchema,
        wire.ingressCertSchema,
      ];
      const body = f.chance(0.5) ? f.rawBody() : JSON.stringify(f.value(3));
      return wire.parseJsonBody(body, f.pick(schemas), 'model');
    },
  },
  {
    // Admission's compile step, then the label controller's evaluation of the same query.
    name: 'jq queries (AgentClassification)',
    seed: 1408,
    cases: 800,
    run: (f) => {
      const query = jqQuery(f);
      jqQueryError(query);
      return classify(query, {
        cpu: { count: 4 },
        disks: [{ sizeBytes: 1 }],
        interfaces: [{ name: 'eth0' }],
      });
    },
  },
  {
    name: 'small parsers',
    seed: 1409,
    cases: 1200,
    run: (f) => {
      const s = f.string();
      parseUserInstallerArgs(f.chance(0.5) ? s : JSON.stringify(f.value(2)));
      parseGoDuration(f.pick([s, '1h2m3.5s', '-1ns', `${'9'.repeat(400)}h`]));
      parseImageRef(s);
      parseRange(f.pick([s, 'bytes=0-', 'bytes=-1', `bytes=${f.number()}-${f.number()}`]), f.int(1 << 20));
      parseIgnoredValidations(f.chance(0.5) ? s : [f.string(), s]);
      parseConnectivity(f.chance(0.5) ? s : JSON.stringify(f.value(3)));
      return undefined;
    },
  },
  {
    name: 'registries.conf',
    seed: 1411,
    cases: 400,
    throws: true,
    run: (f) =>
      parseRegistriesConf(
        f.pick([
          f.string(),
          `[[registry]]\nlocation = "${f.string(200)}"\n[[registry.mirror]]\nlocation = ${f.string(200)}\n`,
        ]),
      ),
  },
  {
    name: 'kernel arguments',
    seed: 1412,
    cases: 400,
    throws: true,
    run: (f) =>
      parseKernelArguments(
        f.chance(0.3) ? f.string() : JSON.stringify(f.mutate([{ operation: 'append', value: 'a=b' }])),
      ),
  },
  {
    name: 'static network',
    seed: 1410,
    cases: 600,
    run: (f) => {
      return validateStaticNetworkConfig([
        {
          network_yaml: f.pick([
            'interfaces: []',
            f.string(2_000),
            '{{{',
            `interfaces:\n- name: ${f.string(300)}`,
          ]),
          mac_interface_map: [
            { mac_address: f.pick(['52:54:00:00:00:01', f.string()]), logical_nic_name: f.string() },
          ],
        },
      ]);
    },
  },
];

function jqQuery(f: Fuzzer): string {
  const atoms = [
    '.',
    '.cpu.count',
    '.interfaces[]',
    '.disks | length',
    '"x"',
    '1',
    'null',
    '$x',
    'map(.)',
    '..',
  ];
  const ops = [
    ' | ',
    ' and ',
    ' or ',
    ' == ',
    ' >= ',
    ', ',
    ' + ',
    ' // ',
    '[',
    ']',
    '(',
    ')',
    '{',
    '}',
    ' as $x | ',
  ];
  if (f.chance(0.2)) return f.string(20_000);
  if (f.chance(0.1)) return '('.repeat(f.pick([100, 5_000])) + '.' + ')'.repeat(f.int(5_000));
  let q = f.pick(atoms);
  for (let i = f.int(12); i > 0; i--) q += f.pick(ops) + f.pick(atoms);
  return q;
}

function fuzz(t: Target): { figures: FuzzFigures; problems: string[] } {
  const seed = seedFor(t.seed);
  const f = new Fuzzer(seed);
  const cases = casesFor(t.cases);
  const problems: string[] = [];
  const started = performance.now();
  for (let i = 0; i < cases; i++) {
    const caseStarted = performance.now();
    try {
      t.run(f);
    } catch (err) {
      if (t.throws && err instanceof Error && !BUG_ERRORS.some((type) => err instanceof type)) continue;
      problems.push(`case ${i}: ${(err as Error)?.stack?.split('\n').slice(0, 3).join(' ') ?? String(err)}`);
    }
    const took = performance.now() - caseStarted;
    if (took > CASE_TIME_LIMIT_MS) problems.push(`case ${i}: took ${Math.round(took)}ms`);
  }
  const ms = Math.round(performance.now() - started);
  return { figures: { target: t.name, cases, seed, failures: problems.length, ms }, problems };
}

describe('fuzz: parsers and validators', () => {
  const figures: FuzzFigures[] = [];
  for (const t of targets) {
    it(`${t.name} answers every generated input`, () => {
      const { figures: fig, problems } = fuzz(t);
      figures.push(fig);
      if (figures.length === targets.length) printFigures('parsers', figures);
      expect(problems.slice(0, 5), `seed ${fig.seed}`).toEqual([]);
    });
  }
});
