// Shared helpers for the src/api unit tests.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { parse, parseAllDocuments } from 'yaml';
import type { JSONSchemaProps } from '../../../src/api/openapi.ts';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../../..');
export const samplesDir = join(repoRoot, 'config/samples');
export const invalidSamplesDir = join(samplesDir, 'invalid');

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [k: string]: unknown };
  [k: string]: unknown;
}

export function readYamlDocuments(path: string): K8sObject[] {
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((d) => d.toJSON() as K8sObject | null)
    .filter((d): d is K8sObject => d !== null);
}

export function readYaml(path: string): unknown {
  return parse(readFileSync(path, 'utf8'));
}

export function yamlFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort();
}

/** Header comments of an invalid sample: `# key: value` lines before the first document. */
export function headerComments(path: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const m = /^# ([a-z-]+): (.*)$/.exec(line);
    if (m) out.set(m[1] as string, (m[2] as string).trim());
    else if (!line.startsWith('#')) break;
  }
  return out;
}

/**
 * Approximates API-server validation of a CRD schema with ajv: Kubernetes extensions and
 * formats are ignored, unknown fields are allowed (the server prunes them).
 */
export function compileCrdSchema(schema: JSONSchemaProps): ValidateFunction {
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
  return ajv.compile(schema);
}

/** Visit every schema node with its path. */
export function walkSchema(
  node: JSONSchemaProps,
  visit: (node: JSONSchemaProps, path: string) => void,
  path = '',
): void {
  visit(node, path);
  const props = node.properties as Record<string, JSONSchemaProps> | undefined;
  for (const [k, child] of Object.entries(props ?? {})) walkSchema(child, visit, `${path}.${k}`);
  if (node.items) walkSchema(node.items as JSONSchemaProps, visit, `${path}[]`);
  if (node.additionalProperties && typeof node.additionalProperties === 'object') {
    walkSchema(node.additionalProperties as JSONSchemaProps, visit, `${path}{}`);
  }
  for (const key of ['anyOf', 'allOf', 'oneOf'] as const) {
    const list = node[key] as JSONSchemaProps[] | undefined;
    list?.forEach((child, i) => {
      walkSchema(child, visit, `${path}<${key}${i}>`);
    });
  }
}
