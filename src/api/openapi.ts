// Converts the zod schemas of src/api into structural OpenAPI v3 schemas for
// CustomResourceDefinitions (apiextensions.k8s.io/v1).
//
// Only the zod constructs used by src/api are supported; anything else throws so that a new
// construct cannot silently produce a non-structural schema. CRD-only information (formats,
// x-kubernetes-* extensions, descriptions, ...) comes from `.meta()` (see CrdFieldMeta).

import { z } from 'zod';
import type { CrdFieldMeta } from './common.ts';

/** A JSONSchemaProps node as stored in a CRD. */
export type JSONSchemaProps = { [key: string]: unknown };

export interface ToOpenAPIOptions {
  /**
   * Put `x-kubernetes-preserve-unknown-fields: true` on every object that has properties
   * except the root (used for external kinds, whose full schema belongs to another project).
   * Pruning is not inherited by nested objects, so the flag is needed on each of them.
   */
  preserveUnknownFieldsOnObjects?: boolean;
}

interface ZodDef {
  type: string;
  [key: string]: unknown;
}

interface CheckDef {
  check: string;
  [key: string]: unknown;
}

function defOf(schema: z.ZodType): ZodDef {
  return (schema as unknown as { _zod: { def: ZodDef } })._zod.def;
}

function metaOf(schema: z.ZodType): CrdFieldMeta {
  return (z.globalRegistry.get(schema) ?? {}) as CrdFieldMeta;
}

function checksOf(schema: z.ZodType): CheckDef[] {
  const checks = (defOf(schema).checks ?? []) as Array<{ _zod: { def: CheckDef } }>;
  return checks.map((c) => c._zod.def);
}

/** A schema with its wrappers (optional, default, ...) peeled off. */
export interface UnwrappedField {
  core: z.ZodType;
  meta: CrdFieldMeta;
  optional: boolean;
  hasDefault: boolean;
  /** Value written as the CRD default, if any. */
  crdDefault?: { value: unknown };
  nullable: boolean;
}

export function unwrapField(schema: z.ZodType): UnwrappedField {
  const metas: CrdFieldMeta[] = [];
  let cur = schema;
  let optional = false;
  let hasDefault = false;
  let nullable = false;
  let defaultValue: { value: unknown } | undefined;
  let prefaulted = false;
  for (;;) {
    metas.push(metaOf(cur));
    const def = defOf(cur);
    if (def.type === 'optional') {
      optional = true;
    } else if (def.type === 'default') {
      hasDefault = true;
      defaultValue ??= { value: def.defaultValue };
    } else if (def.type === 'prefault') {
      hasDefault = true;
      prefaulted = true;
    } else if (def.type === 'nullable') {
      nullable = true;
    } else if (def.type !== 'readonly' && def.type !== 'nonoptional') {
      break;
    }
    cur = def.innerType as z.ZodType;
  }
  // Inner metadata first; the outermost wrapper wins.
  const meta: CrdFieldMeta = {};
  for (const m of metas.reverse()) {
    Object.assign(meta, m, { crd: { ...meta.crd, ...m.crd } });
  }
  if (meta.crd && Object.keys(meta.crd).length === 0) delete meta.crd;
  const result: UnwrappedField = { core: cur, meta, optional, hasDefault, nullable };
  if (defaultValue && !prefaulted && meta.crdDefault !== false) result.crdDefault = defaultValue;
  return result;
}

/** Whether an object property is listed in the CRD `required` list. */
export function isCrdRequired(field: UnwrappedField): boolean {
  if (field.meta.crdRequired) return true;
  return !field.optional && !field.hasDefault && !field.meta.crdOptional;
}

function objectShape(schema: z.ZodType): Record<string, z.ZodType> {
  return defOf(schema).shape as Record<string, z.ZodType>;
}

function isUnknownLike(schema: z.ZodType): boolean {
  const t = defOf(unwrapField(schema).core).type;
  return t === 'unknown' || t === 'any';
}

function stringConstraints(schema: z.ZodType, node: JSONSchemaProps, path: string): void {
  for (const c of checksOf(schema)) {
    if (c.check === 'string_format' && c.format === 'regex') node.pattern = (c.pattern as RegExp).source;
    else if (c.check === 'min_length') node.minLength = c.minimum;
    else if (c.check === 'max_length') node.maxLength = c.maximum;
    else throw new Error(`${path}: unsupported string check ${c.check}/${String(c.format)}`);
  }
}

function numberConstraints(schema: z.ZodType, node: JSONSchemaProps, path: string): void {
  node.type = 'number';
  for (const c of checksOf(schema)) {
    if (c.check === 'number_format') {
      if (c.format === 'safeint' || c.format === 'int32' || c.format === 'uint32') node.type = 'integer';
      else throw new Error(`${path}: unsupported number format ${String(c.format)}`);
    } else if (c.check === 'greater_than') {
      node.minimum = c.value;
      if (!c.inclusive) node.exclusiveMinimum = true;
    } else if (c.check === 'less_than') {
      node.maximum = c.value;
      if (!c.inclusive) node.exclusiveMaximum = true;
    } else {
      throw new Error(`${path}: unsupported number check ${c.check}`);
    }
  }
}

function lengthConstraints(schema: z.ZodType, node: JSONSchemaProps, path: string): void {
  for (const c of checksOf(schema)) {
    if (c.check === 'min_length') node.minItems = c.minimum;
    else if (c.check === 'max_length') node.maxItems = c.maximum;
    else throw new Error(`${path}: unsupported array check ${c.check}`);
  }
}

function convertCore(
  schema: z.ZodType,
  meta: CrdFieldMeta,
  opts: ToOpenAPIOptions,
  path: string,
): JSONSchemaProps {
  const def = defOf(schema);
  if (meta.objectMeta) return { type: 'object' };
  switch (def.type) {
    case 'string': {
      const node: JSONSchemaProps = { type: 'string' };
      stringConstraints(schema, node, path);
      return node;
    }
    case 'number': {
      const node: JSONSchemaProps = {};
      numberConstraints(schema, node, path);
      return node;
    }
    case 'boolean':
      return { type: 'boolean' };
    case 'enum': {
      const values = Object.values(def.entries as Record<string, unknown>);
      if (!values.every((v) => typeof v === 'string'))
        throw new Error(`${path}: enum values must be strings`);
      return { type: 'string', enum: values };
    }
    case 'literal': {
      const values = def.values as unknown[];
      if (!values.every((v) => typeof v === 'string')) throw new Error(`${path}: literals must be strings`);
      return { type: 'string', enum: values };
    }
    case 'array': {
      const node: JSONSchemaProps = {
        type: 'array',
        items: convert(def.element as z.ZodType, opts, `${path}[]`),
      };
      lengthConstraints(schema, node, path);
      return node;
    }
    case 'record': {
      const valueType = def.valueType as z.ZodType;
      if (isUnknownLike(valueType)) {
        if (!meta.preserveUnknownFields)
          throw new Error(`${path}: free-form map needs preserveUnknownFields`);
        return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
      }
      return { type: 'object', additionalProperties: convert(valueType, opts, `${path}{}`) };
    }
    case 'object': {
      const shape = objectShape(schema);
      const properties: Record<string, JSONSchemaProps> = {};
      const required: string[] = [];
      for (const key of Object.keys(shape).sort()) {
        const child = shape[key] as z.ZodType;
        properties[key] = convert(child, opts, `${path}.${key}`);
        if (isCrdRequired(unwrapField(child))) required.push(key);
      }
      const node: JSONSchemaProps = { type: 'object' };
      if (Object.keys(properties).length > 0) node.properties = properties;
      if (required.length > 0) node.required = required;
      const preserveAll = opts.preserveUnknownFieldsOnObjects && node.properties !== undefined && path !== '';
      if (meta.preserveUnknownFields || preserveAll) {
        node['x-kubernetes-preserve-unknown-fields'] = true;
      }
      return node;
    }
    case 'union': {
      if (!meta.intOrString) throw new Error(`${path}: only int-or-string unions are supported`);
      const node: JSONSchemaProps = {
        anyOf: [{ type: 'integer' }, { type: 'string' }],
        'x-kubernetes-int-or-string': true,
      };
      for (const option of def.options as z.ZodType[]) {
        if (defOf(option).type === 'string') stringConstraints(option, node, path);
      }
      return node;
    }
    case 'unknown':
    case 'any':
      if (meta.preserveUnknownFields) return { 'x-kubernetes-preserve-unknown-fields': true };
      throw new Error(`${path}: untyped value needs preserveUnknownFields`);
    default:
      throw new Error(`${path}: unsupported zod type ${def.type}`);
  }
}

/** Convert a zod schema into a CRD OpenAPI v3 node. */
export function convert(schema: z.ZodType, opts: ToOpenAPIOptions = {}, path = ''): JSONSchemaProps {
  const field = unwrapField(schema);
  const node = convertCore(field.core, field.meta, opts, path);
  if (field.meta.description) node.description = field.meta.description;
  if (field.crdDefault) node.default = structuredClone(field.crdDefault.value);
  if (field.nullable) node.nullable = true;
  if (field.meta.crd) Object.assign(node, structuredClone(field.meta.crd));
  return node;
}

/**
 * JSON paths (dot-separated, `[]` for array items, `{}` for map values) of fields marked as
 * always serialized.
 */
export function alwaysSerializedPaths(schema: z.ZodType, path = ''): string[] {
  const field = unwrapField(schema);
  const out: string[] = [];
  if (field.meta.alwaysSerialized && path) out.push(path);
  const def = defOf(field.core);
  if (def.type === 'object' && !field.meta.objectMeta) {
    const shape = objectShape(field.core);
    for (const key of Object.keys(shape).sort()) {
      out.push(...alwaysSerializedPaths(shape[key] as z.ZodType, path ? `${path}.${key}` : key));
    }
  } else if (def.type === 'array') {
    out.push(...alwaysSerializedPaths(def.element as z.ZodType, `${path}[]`));
  } else if (def.type === 'record' && !isUnknownLike(def.valueType as z.ZodType)) {
    out.push(...alwaysSerializedPaths(def.valueType as z.ZodType, `${path}{}`));
  }
  return out;
}
