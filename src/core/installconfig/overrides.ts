// install-config overrides (core.md §7.4): the override JSON is decoded *into* the generated config
// with Go encoding/json semantics and unknown fields disallowed:
//   objects merge field by field; scalars replace; null resets slices/pointers and is a no-op for
//   plain scalars and structs; arrays merge by position on top of the generated elements and are
//   truncated to the override's length; pointer sections are created when absent. Keys match the
//   model exactly or, failing that, case-insensitively (as Go does).

import { describeJsonNode, type JsonNode, JsonSyntaxError, parseFirstJsonValue } from './json-text.ts';
import { describeGoType, type GoField, type GoType, INSTALL_CONFIG_TYPE } from './schema.ts';
import type { InstallConfig } from './types.ts';

/** A rejected override document; `path` locates the offending key ('' for the document itself). */
export class InstallConfigOverrideError extends Error {
  override name = 'InstallConfigOverrideError';
  readonly path: string;

  constructor(message: string, path: string) {
    super(message);
    this.path = path;
  }
}

const INT_RANGE = {
  32: [-(2n ** 31n), 2n ** 31n - 1n],
  64: [-(2n ** 63n), 2n ** 63n - 1n],
} as const;

function where(path: string): string {
  return path === '' ? 'the top level' : path;
}

function typeError(path: string, type: GoType, node: JsonNode): never {
  throw new InstallConfigOverrideError(
    `wrong type at ${where(path)}: expected ${describeGoType(type)}, got ${describeJsonNode(node)}`,
    path,
  );
}

function findField(fields: readonly GoField[], key: string): GoField | undefined {
  return (
    fields.find((fd) => fd.name === key) ?? fields.find((fd) => fd.name.toLowerCase() === key.toLowerCase())
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function decodeStruct(
  node: JsonNode,
  type: Extract<GoType, { kind: 'struct' }>,
  current: unknown,
  path: string,
): unknown {
  if (node.type === 'null') return current;
  if (node.type !== 'object') typeError(path, type, node);
  const target: Record<string, unknown> = isRecord(current) ? current : {};
  for (const [key, value] of node.entries) {
    const field = findField(type.fields, key);
    if (!field) {
      const known =
        type.fields.length === 0
          ? 'it accepts no fields'
          : `known fields: ${type.fields.map((fd) => fd.name).join(', ')}`;
      throw new InstallConfigOverrideError(`unknown field "${key}" at ${where(path)} (${known})`, path);
    }
    const childPath = path === '' ? field.name : `${path}.${field.name}`;
    target[field.name] = decodeValue(value, field.type, target[field.name], childPath);
  }
  return target;
}

function decodeValue(node: JsonNode, type: GoType, current: unknown, path: string): unknown {
  switch (type.kind) {
    case 'string':
      if (node.type === 'null') return current;
      if (node.type !== 'string') typeError(path, type, node);
      return node.value;
    case 'bool':
      if (node.type === 'null') return current;
      if (node.type !== 'bool') typeError(path, type, node);
      return node.value;
    case 'int': {
      if (node.type === 'null') return current;
      if (node.type !== 'number' || !/^-?\d+$/.test(node.raw)) typeError(path, type, node);
      const n = BigInt(node.raw);
      const [min, max] = INT_RANGE[type.bits];
      if (n < min || n > max) typeError(path, type, node);
      return Number(n);
    }
    case 'struct':
      return decodeStruct(node, type, current, path);
    case 'pointer':
      if (node.type === 'null') return null;
      return decodeValue(node, type.elem, current ?? undefined, path);
    case 'slice': {
      if (node.type === 'null') return null;
      if (node.type !== 'array') typeError(path, type, node);
      const existing = Array.isArray(current) ? current : [];
      return node.items.map((item, i) => decodeValue(item, type.elem, existing[i], `${path}[${i}]`));
    }
  }
}

/**
 * Applies an override document to a generated config and returns the result (the input is not
 * modified). An empty string changes nothing. Throws InstallConfigOverrideError.
 */
export function applyInstallConfigOverrides(config: InstallConfig, overrides: string): InstallConfig {
  if (overrides === '') return config;
  let node: JsonNode;
  try {
    node = parseFirstJsonValue(overrides);
  } catch (err) {
    const detail = err instanceof JsonSyntaxError ? err.message : String(err);
    throw new InstallConfigOverrideError(`install config overrides are not valid JSON: ${detail}`, '');
  }
  if (node.type === 'null') return config;
  if (node.type !== 'object') {
    throw new InstallConfigOverrideError(
      `install config overrides must be a JSON object, got ${describeJsonNode(node)}`,
      '',
    );
  }
  const copy = structuredClone(config);
  return decodeValue(node, INSTALL_CONFIG_TYPE, copy, '') as InstallConfig;
}
