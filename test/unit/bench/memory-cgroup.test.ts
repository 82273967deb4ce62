// The scale bench runs the shipped operator under the Deployment's memory limit (bench/memory-cgroup.ts):
// the limit must be the one the manifest ships, read in the units Kubernetes reads it.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deploymentMemoryLimit, quantityBytes } from '../../../bench/memory-cgroup.ts';

describe('memory quantities', () => {
  it.each([
    ['2Gi', 2 * 2 ** 30],
    ['512Mi', 512 * 2 ** 20],
    ['1.5Gi', 1.5 * 2 ** 30],
    ['100Ki', 100 * 1024],
    ['1G', 1e9],
    ['750M', 750e6],
    ['1073741824', 2 ** 30],
  ])('%s is %d bytes', (q, bytes) => {
    expect(quantityBytes(q)).toBe(bytes);
  });

  it.each(['', '2GB', 'Gi', '-1Gi', '2 Gi x'])('%j is refused with the quantity named', (q) => {
    expect(() => quantityBytes(q)).toThrow(/memory quantity/);
  });
});

describe('the Deployment memory limit', () => {
  it('is the manager container limit of the shipped manifest', async () => {
    expect(await deploymentMemoryLimit()).toBe('2Gi');
  });

  it('skips other documents and other containers', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'aio-limit-'));
    const file = join(dir, 'm.yaml');
    await writeFile(
      file,
      [
        'kind: Namespace',
        'metadata: {name: x}',
        '---',
        'kind: Deployment',
        'spec:',
        '  template:',
        '    spec:',
        '      containers:',
        '        - name: proxy',
        '          resources: {limits: {memory: 64Mi}}',
        '        - name: manager',
        '          resources: {limits: {memory: 3Gi}}',
      ].join('\n'),
    );
    expect(await deploymentMemoryLimit(file)).toBe('3Gi');
  });

  it('fails when the manager has no limit', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'aio-limit-'));
    const file = join(dir, 'm.yaml');
    await writeFile(file, 'kind: Deployment\nspec: {template: {spec: {containers: [{name: manager}]}}}\n');
    await expect(deploymentMemoryLimit(file)).rejects.toThrow(/no memory limit/);
  });
});
