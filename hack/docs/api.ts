// docs/reference/api.md: every kind of the kind table (src/api/index.ts) and every field of its
// OpenAPI schema (the same one put into the CRD), with type, required, default, allowed values
// and description.

import { openAPISchemaFor } from '../../src/api/crd.ts';
import type { KindDefinition } from '../../src/api/index.ts';
import { KINDS } from '../../src/api/index.ts';
import type { JSONSchemaProps } from '../../src/api/openapi.ts';
import { cell, GENERATED_NOTE } from './markdown.ts';

interface FieldRow {
  path: string;
  type: string;
  required: boolean;
  default?: unknown;
  constraints: string[];
  description: string;
}

function typeOf(s: JSONSchemaProps): string {
  if (s['x-kubernetes-int-or-string']) return 'int-or-string';
  const t =
    typeof s.type === 'string' ? s.type : s['x-kubernetes-preserve-unknown-fields'] ? 'any' : 'object';
  if (t === 'array') {
    const items = (s.items ?? {}) as JSONSchemaProps;
    return `[]${typeOf(items)}`;
  }
  if (t === 'object' && s.additionalProperties && typeof s.additionalProperties === 'object') {
    return `map[string]${typeOf(s.additionalProperties as JSONSchemaProps)}`;
  }
  if (typeof s.format === 'string') return `${t} (${s.format})`;
  return t;
}

function constraintsOf(s: JSONSchemaProps): string[] {
  const out: string[] = [];
  if (Array.isArray(s.enum)) out.push(`one of: ${s.enum.map((v) => `\`${JSON.stringify(v)}\``).join(', ')}`);
  for (const key of ['minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems'] as const) {
    if (s[key] !== undefined) out.push(`${key} ${String(s[key])}`);
  }
  if (typeof s.pattern === 'string') out.push(`pattern \`${s.pattern}\``);
  if (s['x-kubernetes-preserve-unknown-fields']) out.push('free-form (unknown fields kept)');
  const rules = s['x-kubernetes-validations'];
  if (Array.isArray(rules)) {
    for (const r of rules as { rule: string; message?: string }[])
      out.push(`rule \`${r.rule}\`${r.message ? ` (${r.message})` : ''}`);
  }
  return out;
}

/** Depth-first rows for every field below `schema`; arrays of objects descend as `field[]`. */
function collect(schema: JSONSchemaProps, prefix: string, rows: FieldRow[]): void {
  const props = (schema.properties ?? {}) as Record<string, JSONSchemaProps>;
  const required = new Set((schema.required ?? []) as string[]);
  for (const name of Object.keys(props).sort()) {
    const s = props[name]!;
    const path = prefix ? `${prefix}.${name}` : name;
    rows.push({
      path,
      type: typeOf(s),
      required: required.has(name),
      default: s.default,
      constraints: constraintsOf(s),
      description: typeof s.description === 'string' ? s.description : '',
    });
    if (s.type === 'array' && s.items && (s.items as JSONSchemaProps).properties) {
      collect(s.items as JSONSchemaProps, `${path}[]`, rows);
    } else if (s.properties) {
      collect(s, path, rows);
    } else if (s.additionalProperties && (s.additionalProperties as JSONSchemaProps).properties) {
      collect(s.additionalProperties as JSONSchemaProps, `${path}.<key>`, rows);
    }
  }
}

export function kindRows(k: KindDefinition): FieldRow[] {
  const schema = openAPISchemaFor(k);
  const props = (schema.properties ?? {}) as Record<string, JSONSchemaProps>;
  const rows: FieldRow[] = [];
  for (const top of ['spec', 'status']) {
    const s = props[top];
    if (!s) continue;
    collect({ properties: { [top]: s }, required: (schema.required ?? []) as string[] }, '', rows);
  }
  return rows;
}

function anchor(k: KindDefinition): string {
  return k.kind.toLowerCase();
}

function renderKind(k: KindDefinition): string {
  const schema = openAPISchemaFor(k);
  const lines = [
    `## ${k.kind}`,
    '',
    `- API version: \`${k.apiVersion}\``,
    `- Resource: \`${k.plural}\` (${k.scope === 'Cluster' ? 'cluster-scoped' : 'namespaced'})${k.shortNames.length ? `, short names ${k.shortNames.map((s) => `\`${s}\``).join(', ')}` : ''}`,
    `- CRD: ${k.owned ? 'owned, generated into `config/crd/bases`' : 'external (owned by another project); a stand-in with the fields this operator uses is in `config/crd/external`'}`,
    `- Status subresource: ${k.statusSubresource ? 'yes' : 'no'}`,
    '',
  ];
  if (typeof schema.description === 'string') lines.push(schema.description, '');
  if (k.printerColumns.length > 0) {
    lines.push('Printer columns (`kubectl get`):', '');
    lines.push('| Column | JSON path | Description |', '| --- | --- | --- |');
    for (const c of k.printerColumns) {
      lines.push(
        `| ${cell(c.name)}${c.priority ? ' (wide)' : ''} | \`${c.jsonPath}\` | ${cell(c.description ?? '')} |`,
      );
    }
    lines.push('');
  }
  lines.push(
    '| Field | Type | Required | Default | Allowed values | Description |',
    '| --- | --- | --- | --- | --- | --- |',
  );
  for (const r of kindRows(k)) {
    const def = r.default === undefined ? '' : `\`${JSON.stringify(r.default)}\``;
    lines.push(
      `| \`${r.path}\` | ${cell(r.type)} | ${r.required ? 'yes' : ''} | ${cell(def)} | ${cell(r.constraints.join('; '))} | ${cell(r.description)} |`,
    );
  }
  lines.push('');
  return lines.join('\n');
}

export function renderApiReference(kinds: readonly KindDefinition[] = KINDS): string {
  return [
    '# API reference',
    '',
    GENERATED_NOTE('src/api (the kind table and zod schemas, as converted into the CRDs)'),
    '',
    'Field paths use `[]` for list items and `<key>` for map values. "Required" is the CRD\'s',
    '`required` list; defaults are applied by the API server.',
    '',
    ...kinds.map((k) => `- [${k.kind}](#${anchor(k)}) \`${k.apiVersion}\``),
    '',
    ...kinds.map(renderKind),
  ].join('\n');
}
