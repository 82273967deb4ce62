// jq as AgentClassification queries use it, and how a query's outputs classify an Agent.
import { describe, expect, it } from 'vitest';
import type { Agent, AgentClassification } from '../../../../src/api/index.ts';
import { classificationLabelChanges } from '../../../../src/controllers/agentlabel/labels.ts';
import { classify, compileJq, JqError } from '../../../../src/core/jq/index.ts';

const inventory = {
  hostname: 'h',
  cpu: { count: 16, architecture: 'x86_64', flags: ['vmx', 'aes'] },
  memory: { physicalBytes: 68719476736 },
  disks: [
    { name: 'sda', sizeBytes: 500e9, driveType: 'SSD' },
    { name: 'sdb', sizeBytes: 2e12, driveType: 'HDD' },
  ],
  systemVendor: { manufacturer: 'Dell Inc.', productName: 'PowerEdge R640', virtual: false },
  interfaces: [{ name: 'eno1', macAddress: '52:54:00:00:00:01', speedMbps: 10000 }],
};

const run = (q: string) => [...compileJq(q).outputs(inventory)];

describe('jq evaluator', () => {
  it('evaluates paths, comparisons and boolean operators', () => {
    expect(run('.cpu.count >= 8 and .memory.physicalBytes >= 34359738368')).toEqual([true]);
    expect(run('.cpu.count < 8 or .systemVendor.virtual')).toEqual([false]);
    expect(run('.disks[0].name')).toEqual(['sda']);
    expect(run('.disks[-1].name')).toEqual(['sdb']);
    expect(run('.disks[].driveType')).toEqual(['SSD', 'HDD']);
    expect(run('.nothing.deeper')).toEqual([null]);
    expect(run('."cpu"."count" + 1')).toEqual([17]);
    expect(run('.disks | length')).toEqual([2]);
  });

  it('supports the usual builtins', () => {
    expect(run('[.disks[] | select(.driveType == "SSD")] | length == 1')).toEqual([true]);
    expect(run('any(.disks[]; .sizeBytes > 1e12)')).toEqual([true]);
    expect(run('.disks | all(.sizeBytes > 100e9)')).toEqual([true]);
    expect(run('.disks | map(.sizeBytes) | add')).toEqual([2.5e12]);
    expect(run('.cpu.flags | contains(["vmx"])')).toEqual([true]);
    expect(run('.cpu.flags | index("aes")?')).toEqual([1]);
    expect(run('.systemVendor.manufacturer | test("^dell"; "i")')).toEqual([true]);
    expect(run('.systemVendor.productName | startswith("PowerEdge")')).toEqual([true]);
    expect(run('.hostname | ascii_upcase')).toEqual(['H']);
    expect(run('[.interfaces[].speedMbps] | max')).toEqual([10000]);
    expect(run('.cpu | has("count")')).toEqual([true]);
    expect(run('.disks | map(.name) | join(",")')).toEqual(['sda,sdb']);
    expect(run('if .cpu.count > 8 then "big" elif .cpu.count > 4 then "mid" else "small" end')).toEqual([
      'big',
    ]);
    expect(run('.cpu.count as $n | $n * 2')).toEqual([32]);
    expect(run('.missing // "default"')).toEqual(['default']);
    expect(run('{a: .cpu.count, "b": 1}')).toEqual([{ a: 16, b: 1 }]);
    expect(run('[.disks[] | .sizeBytes] | sort | first')).toEqual([500e9]);
    expect(run('.cpu.count | tostring')).toEqual(['16']);
    expect(run('try error("x") catch .')).toEqual(['x']);
  });

  it('reports runtime errors and queries that do not compile as JqError', () => {
    expect(() => run('.cpu.count | test("x")')).toThrow(JqError);
    expect(() => run('.cpu.count.x')).toThrow(/Cannot index number with "x"/);
    expect(run('reduce .disks[] as $d (0; . + 1)')).toEqual([2]);
    expect(() => compileJq('.a |')).toThrow(JqError);
    expect(() => compileJq('nosuchfn')).toThrow(/function not defined: nosuchfn\/0/);
  });
});

describe('classify', () => {
  it('matches exactly one true; false or a non-boolean does not match; else an error', () => {
    expect(classify('.cpu.count >= 8', inventory)).toEqual({ kind: 'match' });
    expect(classify('.cpu.count > 100', inventory)).toEqual({ kind: 'no-match' });
    expect(classify('.cpu.count', inventory)).toEqual({ kind: 'no-match' });
    expect(classify('empty', inventory)).toEqual({
      kind: 'error',
      message: 'Expected boolean, found no values',
    });
    expect(classify('.disks[] | .sizeBytes > 1', inventory).kind).toBe('error');
    expect(classify('.a |', inventory).kind).toBe('error');
  });
});

describe('classificationLabelChanges', () => {
  const agent = (labels: Record<string, string> = {}) =>
    ({
      metadata: { name: 'a', namespace: 'ns', labels },
      spec: {},
      status: { inventory },
    }) as unknown as Agent;
  const cls = (labelKey: string, labelValue: string, query: string, deleting = false) =>
    ({
      metadata: {
        name: labelKey,
        namespace: 'ns',
        ...(deleting ? { deletionTimestamp: '2025-01-01T00:00:00Z' } : {}),
      },
      spec: { labelKey, labelValue, query },
    }) as unknown as AgentClassification;
  const key = (k: string) => `agentclassification.agent-install.openshift.io/${k}`;

  it('sets, removes (only its own values) and marks query errors', () => {
    expect(
      classificationLabelChanges(agent(), [
        cls('size', 'large', '.cpu.count >= 8'),
        cls('bad', 'x', '.cpu.count | test("a")'),
      ]),
    ).toEqual({ [key('size')]: 'large', [key('bad')]: 'QUERYERROR-x' });
    expect(
      classificationLabelChanges(agent({ [key('size')]: 'large' }), [cls('size', 'large', '.cpu.count < 8')]),
    ).toEqual({
      [key('size')]: null,
    });
    // A value someone else set is left alone.
    expect(
      classificationLabelChanges(agent({ [key('size')]: 'manual' }), [cls('size', 'large', 'false')]),
    ).toEqual({});
    expect(
      classificationLabelChanges(agent({ [key('size')]: 'large' }), [
        cls('size', 'large', '.cpu.count >= 8', true),
      ]),
    ).toEqual({ [key('size')]: null });
    expect(
      classificationLabelChanges(agent({ [key('size')]: 'large' }), [cls('size', 'large', 'true')]),
    ).toEqual({});
  });
});
