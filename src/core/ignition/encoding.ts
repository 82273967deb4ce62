// Byte-level helpers for ignition content: data URLs and a canonical JSON rendering.

/**
 * Go's url.PathEscape: keeps unreserved characters and `$&+:=@`, escapes everything else
 * (UTF-8 bytes, upper-case hex). Upstream inlines small text files as `data:,<escaped>`.
 */
export function pathEscape(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const ch = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-_.~$&+:=@]/.test(ch)) out += ch;
    else out += '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** `data:,<path-escaped text>` */
export function escapedDataUrl(text: string): string {
  return 'data:,' + pathEscape(text);
}

/** `data:<mediaType>;base64,<base64 text>` (mediaType may be empty: `data:;base64,`). */
export function base64DataUrl(text: string, mediaType = 'text/plain'): string {
  return `data:${mediaType};base64,` + Buffer.from(text, 'utf8').toString('base64');
}

/**
 * Decodes an RFC 2397 data URL; returns undefined when it is not one. Used to read overrides
 * (e.g. CA bundles) and by tests.
 */
export function decodeDataUrl(url: string): Buffer | undefined {
  if (!url.startsWith('data:')) return undefined;
  const comma = url.indexOf(',');
  if (comma < 0) return undefined;
  const meta = url.slice(5, comma);
  const payload = url.slice(comma + 1);
  if (meta.split(';').includes('base64')) {
    const compact = payload.replace(/\s/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) return undefined;
    return Buffer.from(compact, 'base64');
  }
  try {
    return Buffer.from(decodeURIComponent(payload), 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * JSON with object keys in code-point order at every level, arrays in their given order, no
 * `undefined` members and, unless `keepNull`, no `null` members. Two equal values always render to
 * the same bytes (ignition configs, image digests).
 */
export function canonicalJson(value: unknown, indent?: number, { keepNull = false } = {}): string {
  return JSON.stringify(sortKeys(value, keepNull), null, indent);
}

function sortKeys(value: unknown, keepNull: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => sortKeys(v, keepNull));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const member = (value as Record<string, unknown>)[key];
      if (member === undefined || (member === null && !keepNull)) continue;
      out[key] = sortKeys(member, keepNull);
    }
    return out;
  }
  return value;
}
