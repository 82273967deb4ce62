// Serialisation with Go encoding/json semantics, driven by the struct model: keys in struct order,
// `omitempty` drops "", false, 0, nil/empty slices and nil pointers (never structs), nil slices and
// pointers without omitempty come out as null.

import { stringify } from 'yaml';
import { type GoType, INSTALL_CONFIG_TYPE } from './schema.ts';
import type { InstallConfig, InstallConfigFormat } from './types.ts';

function isEmptyValue(value: unknown, type: GoType): boolean {
  switch (type.kind) {
    case 'string':
      return typeof value !== 'string' || value === '';
    case 'bool':
      return value !== true;
    case 'int':
      return typeof value !== 'number' || value === 0;
    case 'slice':
      return !Array.isArray(value) || value.length === 0;
    case 'pointer':
      return value === undefined || value === null;
    case 'struct':
      return false;
  }
}

function encode(value: unknown, type: GoType): unknown {
  switch (type.kind) {
    case 'string':
      return typeof value === 'string' ? value : '';
    case 'bool':
      return value === true;
    case 'int':
      return typeof value === 'number' ? value : 0;
    case 'pointer':
      return value === undefined || value === null ? null : encode(value, type.elem);
    case 'slice':
      return Array.isArray(value) ? value.map((item) => encode(item, type.elem)) : null;
    case 'struct': {
      const source = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const field of type.fields) {
        const v = source[field.name];
        if (field.omitEmpty && isEmptyValue(v, field.type)) continue;
        out[field.name] = encode(v, field.type);
      }
      return out;
    }
  }
}

/** The config as a plain object whose key order and omitted keys match upstream's marshalling. */
export function toOrderedDocument(config: InstallConfig): Record<string, unknown> {
  return encode(config, INSTALL_CONFIG_TYPE) as Record<string, unknown>;
}

/** Go's json.Marshal output: compact, with <, >, &, U+2028 and U+2029 escaped. */
export function goJsonMarshal(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (ch) => {
    return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/**
 * Renders the config. 'json' is byte-for-byte what upstream writes to install-config.yaml (JSON is
 * YAML); 'yaml' is the same document, same key order, as block YAML.
 */
export function renderInstallConfig(config: InstallConfig, format: InstallConfigFormat = 'yaml'): string {
  const doc = toOrderedDocument(config);
  if (format === 'json') return goJsonMarshal(doc);
  return stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false, indentSeq: false });
}
