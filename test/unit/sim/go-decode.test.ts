// The simulator decodes response bodies the way the Go clients' models do: a wrong JSON type in any
// field of the model fails the call, so a wire bug can no longer hide behind a lenient parser.
import { afterEach, describe, expect, it } from 'vitest';
import { goDecodeProblems } from '../../../src/sim/go-decode.ts';
import { simulatedMachine } from '../../../src/sim/profiles.ts';
import { FakeAgentApi as Fake, type FakeAgentApi } from './fake-agent-api.ts';
import { configFor, drive } from './helpers.ts';

const HOST = { kind: 'Host', id: 'a', href: '', status: 'known', status_info: '' };

describe('goDecodeProblems', () => {
  it.each([
    ['a complete host', 'host_registration_response', HOST, []],
    [
      'null anywhere (Go leaves the zero value)',
      'host_registration_response',
      { ...HOST, status: null, progress_stages: null },
      [],
    ],
    ['unknown fields are ignored', 'steps', { surprise: [1, 2], instructions: [] }, []],
    [
      'disks_to_be_formatted as a list',
      'host_registration_response',
      { ...HOST, disks_to_be_formatted: ['/dev/sda'] },
      ['disks_to_be_formatted: cannot decode ["/dev/sda"] as string'],
    ],
    [
      'inventory as an object instead of a JSON string',
      'host-list',
      [{ ...HOST, inventory: { hostname: 'x' } }],
      ['[0].inventory: cannot decode {"hostname":"x"} as string'],
    ],
    [
      'a fractional int64',
      'steps',
      { next_instruction_seconds: 1.5 },
      ['next_instruction_seconds: cannot decode 1.5 as integer'],
    ],
    [
      'a date-time that does not parse',
      'cluster',
      { kind: 'Cluster', id: 'c', href: '', status: 'ready', status_info: '', created_at: 'yesterday' },
      ['created_at: cannot decode "yesterday" as date-time'],
    ],
    [
      'a step arg that is not a string',
      'steps',
      { instructions: [{ step_type: 'inventory', step_id: 'x', args: [7] }] },
      ['instructions[0].args[0]: cannot decode 7 as string'],
    ],
    [
      'the runner command args as a string',
      'host_registration_response',
      { ...HOST, next_step_runner_command: { args: '{}' } },
      ['next_step_runner_command.args: cannot decode string as a list'],
    ],
    ['a list where an object is declared', 'cluster', [], ['(body): cannot decode array as cluster']],
  ])('%s', (_what, model, value, problems) => {
    expect(goDecodeProblems(value, model)).toEqual(problems);
  });
});

const apis: FakeAgentApi[] = [];
afterEach(async () => {
  await Promise.all(apis.splice(0).map((a) => a.close()));
});

describe('the simulated agent refuses an undecodable body', () => {
  it('a registration answer the Go model cannot decode is an error, then registration is retried', async () => {
    const machine = simulatedMachine('master', 0);
    const api = await new Fake({
      lifetimeMs: 30_000,
      faults: [
        {
          match: (r) => r.method === 'POST' && r.path.endsWith('/hosts'),
          response: {
            status: 201,
            body: {
              ...HOST,
              disks_to_be_formatted: ['/dev/sda'],
              next_step_runner_command: { command: '', args: ['{}'] },
            },
          },
        },
      ],
    }).start();
    apis.push(api);
    const { host, events } = await drive({ config: configFor(api), machine }, (evs) =>
      evs.some((e) => e.type === 'registered'),
    );
    const error = events.find((e) => e.type === 'error');
    expect(error).toMatchObject({ op: 'v2RegisterHost', status: 201 });
    expect((error as { message: string }).message).toContain('disks_to_be_formatted: cannot decode');
    // The second attempt (a decodable answer) registers.
    expect(host.registrations).toBe(1);
    expect(api.find('POST', /\/hosts$/)).toHaveLength(2);
  });
});
