import { describe, expect, it } from 'vitest';
import { userManifestProblem } from '../../../../src/core/artifacts/user-manifest.ts';

const ID = '1b3a1f7b-1111-4222-8333-944455556666';
const file = (path: string) => `file ${path} for cluster ID ${ID}`;

describe('userManifestProblem', () => {
  it.each([
    ['a YAML mapping', '50-a.yaml', 'kind: ConfigMap\napiVersion: v1\n', undefined],
    ['several YAML documents', '50-a.yml', 'kind: A\n---\nkind: B\n', undefined],
    ['an empty YAML file', '50-a.yaml', '', undefined],
    ['JSON', '50-a.json', '{"kind":"ConfigMap"}', undefined],
    ['a YAML patch list', '50-a.yaml.patch', '- op: add\n  path: /x\n  value: 1\n', undefined],
    [
      'an unsupported extension',
      '50-a.txt',
      'kind: ConfigMap\n',
      `Manifest filename of ${file('openshift/50-a.txt')} is invalid. Only json, yaml and yml extensions are supported`,
    ],
    [
      'no extension',
      'manifest',
      'kind: ConfigMap\n',
      `Manifest filename of ${file('openshift/manifest')} is invalid. Only json, yaml and yml extensions are supported`,
    ],
    [
      'YAML that is not a mapping',
      '50-a.yaml',
      '- a\n- b\n',
      `Manifest content of ${file('openshift/50-a.yaml')} has an invalid YAML format`,
    ],
    [
      'broken YAML',
      '50-a.yaml',
      'kind: [unclosed\n',
      `Manifest content of ${file('openshift/50-a.yaml')} has an invalid YAML format`,
    ],
    [
      'broken JSON',
      '50-a.json',
      '{"kind":',
      `Manifest content of ${file('openshift/50-a.json')} has an illegal JSON format`,
    ],
    [
      'a patch that is not a list',
      '50-a.yml.patch',
      'op: add\n',
      `Patch content of ${file('openshift/50-a.yml.patch')} has an invalid YAML format`,
    ],
    [
      'a space in the name',
      '50 a.yaml',
      'kind: A\n',
      `Cluster manifest 50 a.yaml for cluster ${ID} should not include a space in its name.`,
    ],
  ])('%s', (_name, fileName, content, expected) => {
    expect(userManifestProblem(ID, 'openshift', fileName, content)).toBe(expected);
  });

  it('refuses content over 1 MiB', () => {
    expect(userManifestProblem(ID, 'openshift', 'big.yaml', `a: "${'x'.repeat(1024 * 1024)}"`)).toBe(
      `Manifest content of ${file('openshift/big.yaml')} exceeds the maximum file size of 1MiB`,
    );
  });
});
