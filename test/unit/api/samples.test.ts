import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openAPISchemaFor } from '../../../src/api/crd.ts';
import { findKind } from '../../../src/api/index.ts';
import {
  compileCrdSchema,
  headerComments,
  invalidSamplesDir,
  type K8sObject,
  readYaml,
  readYamlDocuments,
  samplesDir,
  yamlFiles,
} from './helpers.ts';

const CORE_KINDS = new Set(['Namespace', 'Secret', 'ConfigMap']);
/** Sample files deliberately not in kustomization.yaml. */
const NOT_IN_KUSTOMIZATION = new Set(['agent.yaml', 'kustomization.yaml']);

const kustomization = readYaml(join(samplesDir, 'kustomization.yaml')) as { resources: string[] };
const validFiles = yamlFiles(samplesDir).filter((f) => f !== 'kustomization.yaml');

describe('valid samples', () => {
  it('kustomization.yaml lists every sample file that exists', () => {
    for (const f of kustomization.resources) expect(existsSync(join(samplesDir, f)), f).toBe(true);
    const expected = validFiles.filter((f) => !NOT_IN_KUSTOMIZATION.has(f));
    expect([...kustomization.resources].sort()).toEqual(expected);
  });

  it('names do not collide and namespaced objects live in demo', () => {
    const seen = new Set<string>();
    for (const f of validFiles) {
      for (const o of readYamlDocuments(join(samplesDir, f))) {
        const key = `${o.apiVersion}/${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
        expect(seen.has(key), `duplicate ${key}`).toBe(false);
        seen.add(key);
        const k = findKind(o.apiVersion, o.kind);
        const namespaced = k ? k.scope === 'Namespaced' : o.kind !== 'Namespace';
        expect(o.metadata.namespace, `${f} ${o.kind}/${o.metadata.name}`).toBe(
          namespaced ? 'demo' : undefined,
        );
      }
    }
  });

  it('cover every kind of the kind table', () => {
    const kinds = new Set<string>();
    for (const f of validFiles) for (const o of readYamlDocuments(join(samplesDir, f))) kinds.add(o.kind);
    for (const k of [
      'AgentClusterInstall',
      'Agent',
      'InfraEnv',
      'NMStateConfig',
      'AgentClassification',
      'AgentServiceConfig',
      'ClusterDeployment',
      'ClusterImageSet',
      'BareMetalHost',
    ]) {
      expect(kinds.has(k), k).toBe(true);
    }
  });

  for (const f of validFiles) {
    describe(f, () => {
      const docs = readYamlDocuments(join(samplesDir, f));
      it('has documents of known kinds', () => {
        expect(docs.length).toBeGreaterThan(0);
        for (const o of docs) {
          expect(CORE_KINDS.has(o.kind) || findKind(o.apiVersion, o.kind) !== undefined, o.kind).toBe(true);
        }
      });
      for (const o of docs.filter((d) => !CORE_KINDS.has(d.kind))) {
        it(`${o.kind}/${o.metadata.name} parses with its zod schema and its CRD schema`, () => {
          const k = findKind(o.apiVersion, o.kind);
          if (!k) throw new Error(`unknown kind ${o.kind}`);
          const parsed = k.schema.safeParse(o);
          expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
          const validate = compileCrdSchema(openAPISchemaFor(k));
          expect(validate(o) ? [] : validate.errors).toEqual([]);
        });
      }
    });
  }
});

describe('invalid samples', () => {
  const files = yamlFiles(invalidSamplesDir);

  it('exist', () => {
    expect(files.length).toBeGreaterThanOrEqual(10);
  });

  for (const f of files) {
    describe(f, () => {
      const path = join(invalidSamplesDir, f);
      const headers = headerComments(path);
      const docs = readYamlDocuments(path);
      const sequential = headers.get('steps') === 'sequential';
      const zodBlind = headers.get('zod') === 'accepts';
      const last = docs[docs.length - 1] as K8sObject;

      it('declares the expected API server error', () => {
        expect(headers.get('expect')).toBeTruthy();
        expect(docs.length === 1 || sequential, 'several documents need "# steps: sequential"').toBe(true);
        expect(last.metadata.name.startsWith('invalid-')).toBe(true);
      });

      if (sequential) {
        it('setup documents are valid', () => {
          for (const o of docs.slice(0, -1)) {
            const k = findKind(o.apiVersion, o.kind);
            expect(k?.schema.safeParse(o).success).toBe(true);
          }
        });
      }

      it(zodBlind ? 'is accepted by zod (rule only the API server sees)' : 'is rejected by zod', () => {
        const k = findKind(last.apiVersion, last.kind);
        if (!k) throw new Error(`unknown kind ${last.kind}`);
        expect(k.schema.safeParse(last).success).toBe(zodBlind);
      });

      if (!zodBlind) {
        it('is rejected by the CRD schema', () => {
          const k = findKind(last.apiVersion, last.kind);
          if (!k) throw new Error(`unknown kind ${last.kind}`);
          expect(compileCrdSchema(openAPISchemaFor(k))(last)).toBe(false);
        });
      }
    });
  }
});
