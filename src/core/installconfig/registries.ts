// Mirror registries: the subset of containers-registries.conf(5) v2 TOML that mirror configurations
// use — `[[registry]]` tables with `location` (or `prefix`) and their `[[registry.mirror]]` tables or
// inline `mirror = [{ location = "..." }]` arrays. Other keys are ignored.

import type { ImageMirror, MirrorRegistryConfig } from './types.ts';

function unquote(raw: string): string | undefined {
  const t = raw.trim();
  const m = /^"((?:[^"\\]|\\.)*)"|^'([^']*)'/.exec(t);
  if (!m) return undefined;
  if (m[2] !== undefined) return m[2];
  return (m[1] ?? '').replace(/\\(["\\])/g, '$1');
}

function stripComment(line: string): string {
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote) {
      if (ch === quote) quote = '';
    } else if (ch === '"' || ch === "'") {
      quote = ch;
    } else if (ch === '#') {
      return line.slice(0, i);
    }
  }
  return line;
}

/** Parses a registries.conf into source → mirrors entries, in file order. */
export function parseRegistriesConf(text: string): ImageMirror[] {
  const out: { location: string; prefix: string; mirrors: string[] }[] = [];
  let section: 'registry' | 'mirror' | 'other' = 'other';
  for (const rawLine of text.split(/\r?\n/)) {
    const line = stripComment(rawLine).trim();
    if (line === '') continue;
    if (line.startsWith('[')) {
      const name = line.replace(/[[\]\s]/g, '');
      if (name === 'registry') {
        out.push({ location: '', prefix: '', mirrors: [] });
        section = 'registry';
      } else if (name === 'registry.mirror' && out.length > 0) {
        section = 'mirror';
      } else {
        section = 'other';
      }
      continue;
    }
    const eq = line.indexOf('=');
    const current = out[out.length - 1];
    if (eq < 0 || !current || section === 'other') continue;
    const key = line.slice(0, eq).trim();
    const value = line.slice(eq + 1);
    if (section === 'mirror' && key === 'location') {
      const loc = unquote(value);
      if (loc !== undefined) current.mirrors.push(loc);
    } else if (section === 'registry' && (key === 'location' || key === 'prefix')) {
      current[key] = unquote(value) ?? '';
    } else if (section === 'registry' && key === 'mirror') {
      for (const m of value.matchAll(/location\s*=\s*("(?:[^"\\]|\\.)*"|'[^']*')/g)) {
        const loc = unquote(m[1] ?? '');
        if (loc !== undefined) current.mirrors.push(loc);
      }
    }
  }
  return out
    .map((r) => ({ source: r.location || r.prefix, mirrors: r.mirrors }))
    .filter((r) => r.source !== '' && r.mirrors.length > 0);
}

/** The sources a mirror configuration declares (parsed registries.conf first, then explicit ones). */
export function mirrorSources(config: MirrorRegistryConfig | undefined): ImageMirror[] {
  if (!config) return [];
  const parsed = config.registriesConf ? parseRegistriesConf(config.registriesConf) : [];
  return [...parsed, ...(config.sources ?? [])];
}
