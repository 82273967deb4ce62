// What the simulated agent, installer and controller send, checked against upstream's definition:
// a whole single-node install against the fake agent API, every JSON request body validated
// against the operation's declared request model (the real API answers are checked by the
// integration contract test), and the simulator's decode models checked against the definition.

import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { deriveWireModels } from '../../../hack/lib/wire-models.ts';
import { runHost } from '../../../src/sim/host.ts';
import type { WireExchange } from '../../../src/sim/http.ts';
import { simulatedMachine } from '../../../src/sim/profiles.ts';
import { WIRE_MODELS } from '../../../src/sim/wire-models.ts';
import { swaggerContract, swaggerPath } from '../../harness/swagger-contract.ts';
import { FakeAgentApi, step } from '../sim/fake-agent-api.ts';
import { configFor, installArgs } from '../sim/helpers.ts';

const contract = swaggerContract();
let api: FakeAgentApi | undefined;
afterAll(async () => {
  await api?.close();
});

describe('simulator wire models', () => {
  it('src/sim/wire-models.ts is what the definition declares (regenerate with hack/generate-wire-models.ts)', () => {
    const doc = parse(readFileSync(swaggerPath(), 'utf8')) as {
      definitions: Record<string, Record<string, unknown>>;
    };
    expect(WIRE_MODELS).toEqual(deriveWireModels(doc.definitions));
  });
});

describe('simulator request bodies', () => {
  it('every request of a single-node install is a declared operation with a valid body', async () => {
    const sno = simulatedMachine('sno', 1);
    api = await new FakeAgentApi({
      lifetimeMs: 30_000,
      controlPlaneCount: 1,
      steps: (h, n) => ({
        next_instruction_seconds: 60,
        instructions:
          n === 1
            ? [step('inventory', [h.id])]
            : n === 2
              ? [step('install', [installArgs(sno, 'c0ffee00-0000-4000-8000-000000000009', 'bootstrap', 1)])]
              : [],
      }),
    }).start();
    const exchanges: WireExchange[] = [];
    const host = await runHost({
      config: configFor(api),
      machine: sno,
      controller: true,
      speed: 2000,
      onExchange: (x) => exchanges.push(x),
    });
    expect(host.stats.clustersCompleted).toBe(1);

    const problems: string[] = [];
    const ops = new Set<string>();
    for (const x of exchanges) {
      const template = contract.templateFor(x.method, x.path);
      if (!template) {
        problems.push(`${x.method} ${x.path}: not declared`);
        continue;
      }
      ops.add(contract.operation(x.method, template).operationId);
      if (x.requestJson !== undefined) {
        for (const p of contract.checkRequest(x.method, template, x.requestJson))
          problems.push(`${p.where}: ${p.message}`);
      }
    }
    expect(problems).toEqual([]);
    // The calls of every actor took part.
    for (const op of [
      'v2RegisterHost',
      'v2GetNextSteps',
      'v2PostStepReply',
      'v2UpdateHostInstallProgress',
      'v2GetCluster',
      'V2DownloadClusterFiles',
      'V2UploadLogs',
      'v2UploadClusterIngressCert',
      'v2CompleteInstallation',
      'v2UpdateClusterFinalizingProgress',
    ]) {
      expect(ops, op).toContain(op);
    }
  });
});
