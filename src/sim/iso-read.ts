// Reads the embedded discovery ignition out of a CoreOS live ISO the way a booting host's initrd
// finds it (agent-api.md §9.3): ISO9660 → /coreos/igninfo.json → the embed area in
// images/ignition.img → gzip'd newc cpio → config.ign. Reads go through a ByteSource so an ISO
// served over HTTP is fetched with Range requests, a few KiB at a time, never whole.

import { gunzipSync } from 'node:zlib';
import { type Dispatcher, request } from 'undici';
import { findEntry, readNewc } from '../images/cpio.ts';

const SECTOR = 2048;
const PVD_OFFSET = 16 * SECTOR;
/** The embed area is read in chunks of this size until the gzip stream is complete. */
const AREA_CHUNK = 64 * 1024;

export interface ByteSource {
  /** Exactly `length` bytes at `offset` (fewer only at the end of the source). */
  read(offset: number, length: number): Promise<Buffer>;
  readonly description: string;
}

export function bufferSource(buf: Uint8Array, description = 'buffer'): ByteSource {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  return {
    description,
    read: async (offset, length) => b.subarray(offset, Math.min(offset + length, b.length)),
  };
}

export interface HttpSourceOptions {
  dispatcher?: Dispatcher;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Called once per HTTP request (tests count them). */
  onRequest?: (range: { offset: number; length: number; status: number }) => void;
}

/**
 * A ByteSource over HTTP(S) using `Range: bytes=a-b`. A server that ignores Range (200) is
 * tolerated: the body is streamed, the bytes before `offset` skipped, and the connection
 * dropped once the slice is complete, so a multi-GiB ISO is never downloaded in full.
 */
export function httpRangeSource(url: string, opts: HttpSourceOptions = {}): ByteSource {
  return {
    description: url,
    async read(offset, length) {
      const res = await request(url, {
        method: 'GET',
        dispatcher: opts.dispatcher,
        signal: opts.signal,
        headers: { ...opts.headers, range: `bytes=${offset}-${offset + length - 1}` },
      });
      opts.onRequest?.({ offset, length, status: res.statusCode });
      if (res.statusCode === 206) {
        const body = Buffer.from(await res.body.arrayBuffer());
        return body.subarray(0, length);
      }
      if (res.statusCode !== 200) {
        const text = (await res.body.text()).slice(0, 200);
        throw new Error(`GET ${redact(url)} (range ${offset}+${length}): HTTP ${res.statusCode} ${text}`);
      }
      const chunks: Buffer[] = [];
      let seen = 0;
      let kept = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        const start = Math.max(0, offset - seen);
        const end = Math.min(chunk.length, offset + length - seen);
        if (end > start) {
          chunks.push(chunk.subarray(start, end));
          kept += end - start;
        }
        seen += chunk.length;
        if (kept >= length) break;
      }
      res.body.destroy();
      return Buffer.concat(chunks);
    },
  };
}

/** Hides credentials in URLs shown in errors (`/byapikey/<jwt>/`, `api_key=`). */
export function redact(url: string): string {
  return url
    .replace(/(\/by(?:apikey|token)\/)[^/]+/, '$1…')
    .replace(/([?&](?:api_key|image_token)=)[^&]+/, '$1…');
}

async function readExactly(src: ByteSource, offset: number, length: number, what: string): Promise<Buffer> {
  const buf = await src.read(offset, length);
  if (buf.length < length)
    throw new Error(`${src.description}: short read of ${what} (${buf.length}/${length})`);
  return buf;
}

export interface IsoFile {
  /** Byte offset of the file's extent in the image. */
  offset: number;
  size: number;
  directory: boolean;
}

interface DirectoryRecord extends IsoFile {
  isoName: string;
  /** Rock Ridge NM name, when present. */
  rrName?: string;
}

/** Parses the directory records of one directory extent. */
function parseDirectory(extent: Buffer): DirectoryRecord[] {
  const records: DirectoryRecord[] = [];
  let pos = 0;
  while (pos < extent.length) {
    const len = extent[pos] ?? 0;
    if (len === 0) {
      // Records never straddle sectors: a zero length means "continue at the next sector".
      pos = (Math.floor(pos / SECTOR) + 1) * SECTOR;
      continue;
    }
    const rec = extent.subarray(pos, pos + len);
    const nameLen = rec[32] ?? 0;
    const rawName = rec.subarray(33, 33 + nameLen);
    const suspStart = 33 + nameLen + (nameLen % 2 === 0 ? 1 : 0);
    records.push({
      offset: rec.readUInt32LE(2) * SECTOR,
      size: rec.readUInt32LE(10),
      directory: ((rec[25] ?? 0) & 0x02) !== 0,
      isoName: nameLen === 1 && (rawName[0] ?? 0) <= 1 ? '' : rawName.toString('latin1'),
      rrName: rockRidgeName(rec.subarray(suspStart)),
    });
    pos += len;
  }
  return records;
}

/** The name from Rock Ridge `NM` entries of a System Use area (continued NM parts joined). */
function rockRidgeName(susp: Buffer): string | undefined {
  let name: string | undefined;
  let pos = 0;
  while (pos + 4 <= susp.length) {
    const sig = susp.toString('latin1', pos, pos + 2);
    const len = susp[pos + 2] ?? 0;
    if (len < 4 || pos + len > susp.length) break;
    if (sig === 'NM') {
      const flags = susp[pos + 4] ?? 0;
      // Flags 0x02/0x04 are "." and ".." — not real names.
      if ((flags & 0x06) === 0) name = (name ?? '') + susp.toString('utf8', pos + 5, pos + len);
    }
    pos += len;
  }
  return name;
}

/** The plain ISO9660 form CoreOS tools look up: upper-case 8.3, e.g. IGNINFO.JSO. */
function iso9660ShortName(name: string): string {
  const upper = name.toUpperCase();
  const dot = upper.lastIndexOf('.');
  if (dot < 0) return upper.slice(0, 8);
  return `${upper.slice(0, dot).slice(0, 8)}.${upper.slice(dot + 1).slice(0, 3)}`;
}

function matches(rec: DirectoryRecord, component: string): boolean {
  if (rec.rrName !== undefined) return rec.rrName === component;
  const plain = rec.isoName.replace(/;\d+$/, '').replace(/\.$/, '').toUpperCase();
  return plain === component.toUpperCase() || plain === iso9660ShortName(component);
}

/** Looks a path up ("coreos/igninfo.json", case as on the Rock Ridge tree). */
export async function findIsoFile(src: ByteSource, path: string): Promise<IsoFile | undefined> {
  const pvd = await readExactly(src, PVD_OFFSET, SECTOR, 'primary volume descriptor');
  if (pvd[0] !== 1 || pvd.toString('latin1', 1, 6) !== 'CD001') {
    throw new Error(`${src.description}: not an ISO9660 image (no primary volume descriptor)`);
  }
  const root = pvd.subarray(156, 156 + 34);
  let dir: IsoFile = { offset: root.readUInt32LE(2) * SECTOR, size: root.readUInt32LE(10), directory: true };
  const components = path.split('/').filter((c) => c !== '');
  for (const [i, component] of components.entries()) {
    if (!dir.directory) return undefined;
    const extent = await readExactly(src, dir.offset, dir.size, `directory of ${component}`);
    const found = parseDirectory(extent).find((r) => r.isoName !== '' && matches(r, component));
    if (!found) return undefined;
    if (i === components.length - 1)
      return { offset: found.offset, size: found.size, directory: found.directory };
    dir = found;
  }
  return dir;
}

export interface EmbedArea {
  offset: number;
  length: number;
  /** Where the area was found. */
  via: 'igninfo.json' | 'images/ignition.img';
}

/** Locates the ignition embed area (igninfo.json, else the whole images/ignition.img). */
export async function findIgnitionEmbedArea(src: ByteSource): Promise<EmbedArea> {
  const info = await findIsoFile(src, 'coreos/igninfo.json');
  if (info) {
    const text = (await readExactly(src, info.offset, info.size, 'igninfo.json')).toString('utf8');
    let parsed: { file?: unknown; offset?: unknown; length?: unknown };
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new Error(`${src.description}: coreos/igninfo.json is not JSON: ${(err as Error).message}`);
    }
    if (typeof parsed.file !== 'string') throw new Error(`${src.description}: igninfo.json has no "file"`);
    const file = await findIsoFile(src, parsed.file);
    if (!file) throw new Error(`${src.description}: igninfo.json names missing file ${parsed.file}`);
    const offset = typeof parsed.offset === 'number' ? parsed.offset : 0;
    const length = typeof parsed.length === 'number' ? parsed.length : file.size - offset;
    if (offset < 0 || length <= 0 || offset + length > file.size) {
      throw new Error(`${src.description}: igninfo.json area ${offset}+${length} outside ${parsed.file}`);
    }
    return { offset: file.offset + offset, length, via: 'igninfo.json' };
  }
  const img = await findIsoFile(src, 'images/ignition.img');
  if (!img) throw new Error(`${src.description}: neither coreos/igninfo.json nor images/ignition.img found`);
  return { offset: img.offset, length: img.size, via: 'images/ignition.img' };
}

/**
 * Decodes an embed area's content: gzip'd newc cpio (as the image service writes it) followed by
 * zeros. Returns the archive's files. Throws a clear error for an empty (never embedded) area
 * and for xz (coreos-installer's own embedder), which Node cannot decompress.
 */
export function decodeEmbedArea(area: Buffer): ReturnType<typeof readNewc> {
  if (area.length === 0 || area.every((b) => b === 0)) throw new Error('the ignition embed area is empty');
  if (area[0] === 0xfd && area.toString('latin1', 1, 6) === '7zXZ\0') {
    throw new Error('the ignition embed area is xz-compressed; only gzip is supported');
  }
  if (area[0] !== 0x1f || area[1] !== 0x8b) throw new Error('the ignition embed area is not gzip');
  return readNewc(gunzipSync(area), { acceptCrc: true });
}

/** Reads config.ign from the embed area, fetching only as much of the area as the gzip needs. */
export async function readEmbeddedIgnition(src: ByteSource): Promise<{ ignition: Buffer; area: EmbedArea }> {
  const area = await findIgnitionEmbedArea(src);
  let have = Math.min(AREA_CHUNK, area.length);
  let buf = await readExactly(src, area.offset, have, 'ignition embed area');
  for (;;) {
    try {
      const config = findEntry(decodeEmbedArea(buf), 'config.ign');
      if (!config) throw new Error(`${src.description}: the embedded archive has no config.ign`);
      return { ignition: config.data, area };
    } catch (err) {
      const truncated = (err as NodeJS.ErrnoException).code === 'Z_BUF_ERROR';
      if (!truncated || have >= area.length) throw err;
      const more = Math.min(have, area.length - have);
      buf = Buffer.concat([buf, await readExactly(src, area.offset + have, more, 'ignition embed area')]);
      have += more;
    }
  }
}
