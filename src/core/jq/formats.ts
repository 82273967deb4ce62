// jq's `@format` filters (`@base64`, `@csv`, …), used alone or before an interpolated string.

import type { Json } from './ast.ts';
import { JqError } from './errors.ts';
import { describe, isObject, toJson, toText } from './values.ts';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function base32(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out.padEnd(Math.ceil(out.length / 8) * 8, '=');
}

function base32Decode(text: string): string {
  const clean = text.replace(/=+$/, '');
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (const c of clean) {
    const i = BASE32.indexOf(c);
    if (i < 0) throw new JqError(`${describe(text)} is not valid base32 data`);
    value = (value << 5) | i;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

function base64Decode(text: string): string {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text.trim()))
    throw new JqError(`${describe(text)} is not valid base64 data`);
  return Buffer.from(text, 'base64').toString('utf8');
}

function row(v: Json, name: string, cell: (x: Json) => string, sep: string): string {
  if (!Array.isArray(v))
    throw new JqError(`${describe(v)} cannot be ${name}-formatted, only an array can be`);
  return v
    .map((x) => {
      if (Array.isArray(x) || isObject(x)) throw new JqError(`${describe(x)} is not valid in a ${name} row`);
      return cell(x);
    })
    .join(sep);
}

const csvCell = (x: Json) =>
  typeof x === 'string' ? `"${x.replaceAll('"', '""')}"` : x === null ? '' : String(x);
const tsvCell = (x: Json) =>
  typeof x === 'string'
    ? x.replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c]!)
    : x === null
      ? ''
      : String(x);

function shQuote(v: Json): string {
  const one = (x: Json) => {
    if (Array.isArray(x) || isObject(x)) throw new JqError(`${describe(x)} can not be escaped for shell`);
    return typeof x === 'string' ? `'${x.replaceAll("'", "'\\''")}'` : toJson(x);
  };
  return Array.isArray(v) ? v.map(one).join(' ') : one(v);
}

const HTML: Record<string, string> = { '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&#39;', '"': '&quot;' };

const FORMATS: Record<string, (v: Json) => string> = {
  text: toText,
  json: toJson,
  html: (v) => toText(v).replace(/[<>&'"]/g, (c) => HTML[c]!),
  uri: (v) =>
    [...Buffer.from(toText(v), 'utf8')]
      .map((b) => {
        const c = String.fromCharCode(b);
        return /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
      })
      .join(''),
  csv: (v) => row(v, 'csv', csvCell, ','),
  tsv: (v) => row(v, 'tsv', tsvCell, '\t'),
  sh: shQuote,
  base64: (v) => Buffer.from(toText(v), 'utf8').toString('base64'),
  base64d: (v) => base64Decode(toText(v)),
  base32: (v) => base32(Buffer.from(toText(v), 'utf8')),
  base32d: (v) => base32Decode(toText(v)),
};

export const FORMAT_NAMES: ReadonlySet<string> = new Set(Object.keys(FORMATS));

export function applyFormat(name: string, v: Json): Json {
  const f = FORMATS[name];
  if (!f) throw new JqError(`format not defined: @${name}`);
  return f(v);
}
