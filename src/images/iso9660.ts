// A small read-only ISO9660 (ECMA-119) reader, enough to find files in a CoreOS live ISO
// (agent-api.md §9.3 step 1). It reads only volume descriptors and directory extents through a
// random-access source and hands back file extents (absolute offset + length), so a 1 GiB image
// is never read as a whole. Rock Ridge `NM` names are used when present; otherwise the plain
// ISO9660 identifier (upper-case, `;1` stripped) is matched case-insensitively, including the
// 8.3-truncated form coreos-installer uses (`COREOS/IGNINFO.JSO`). Joliet trees are not read:
// every CoreOS ISO carries Rock Ridge, which names the same files.
import { type FileHandle, open } from 'node:fs/promises';

export const ISO_SECTOR_SIZE = 2048;
/** Sectors 0–15 are the system area (hybrid MBR/GPT live there); descriptors start at 16. */
const FIRST_DESCRIPTOR_SECTOR = 16;
const MAX_DESCRIPTORS = 64;
/** Directories of a live ISO are a few sectors; anything beyond this is a corrupt record. */
const MAX_DIRECTORY_BYTES = 16 * 1024 * 1024;
const MAX_CONTINUATION_AREAS = 16;

const FLAG_DIRECTORY = 0x02;
const FLAG_MULTI_EXTENT = 0x80;

export class IsoFormatError extends Error {
  override name = 'IsoFormatError';
}

/** Random access to an image's bytes; `read` returns exactly `length` bytes or throws. */
export interface ByteSource {
  read(position: number, length: number): Promise<Buffer>;
}

export function fileHandleSource(fh: FileHandle): ByteSource {
  return {
    async read(position, length) {
      const buf = Buffer.alloc(length);
      let done = 0;
      while (done < length) {
        const { bytesRead } = await fh.read(buf, done, length - done, position + done);
        if (bytesRead === 0) {
          throw new IsoFormatError(
            `image ends before byte ${position + length} (read at ${position + done})`,
          );
        }
        done += bytesRead;
      }
      return buf;
    },
  };
}

export function bufferSource(image: Buffer): ByteSource {
  return {
    async read(position, length) {
      if (position < 0 || position + length > image.length) {
        throw new IsoFormatError(`image ends before byte ${position + length}`);
      }
      return image.subarray(position, position + length);
    },
  };
}

export interface IsoEntry {
  /** Rock Ridge name when the image has one, else the ISO9660 identifier without `;1`. */
  name: string;
  /** The raw ISO9660 identifier, e.g. `IGNINFO.JSO;1`. */
  isoName: string;
  isDirectory: boolean;
  /** Absolute byte offset of the extent in the image (LBA × block size). */
  offset: number;
  /** Data length in bytes. */
  length: number;
}

/** A file's place in the image: what the embedding and byte-range code works with. */
export interface Extent {
  offset: number;
  length: number;
}

export class IsoImage {
  readonly volumeId: string;
  readonly blockSize: number;
  /** Bytes covered by the volume (volume space size × block size); the file may be longer (padding). */
  readonly volumeBytes: number;
  readonly hasJoliet: boolean;
  readonly root: IsoEntry;
  private readonly source: ByteSource;
  /** SUSP bytes to skip in each System Use area; undefined when the image has no Rock Ridge. */
  private readonly suspSkip: number | undefined;
  private readonly listings = new Map<number, Promise<IsoEntry[]>>();

  private constructor(init: {
    source: ByteSource;
    volumeId: string;
    blockSize: number;
    volumeBytes: number;
    hasJoliet: boolean;
    root: IsoEntry;
    suspSkip: number | undefined;
  }) {
    this.source = init.source;
    this.volumeId = init.volumeId;
    this.blockSize = init.blockSize;
    this.volumeBytes = init.volumeBytes;
    this.hasJoliet = init.hasJoliet;
    this.root = init.root;
    this.suspSkip = init.suspSkip;
  }

  static async open(source: ByteSource): Promise<IsoImage> {
    let pvd: Buffer | undefined;
    let hasJoliet = false;
    for (let i = 0; i < MAX_DESCRIPTORS; i++) {
      const d = await source.read((FIRST_DESCRIPTOR_SECTOR + i) * ISO_SECTOR_SIZE, ISO_SECTOR_SIZE);
      if (d.toString('latin1', 1, 6) !== 'CD001') {
        throw new IsoFormatError(`no ISO9660 volume descriptor at sector ${FIRST_DESCRIPTOR_SECTOR + i}`);
      }
      const type = d[0];
      if (type === 255) break;
      if (type === 1 && !pvd) pvd = d;
      // A supplementary descriptor with a UCS-2 escape sequence (%/@, %/C, %/E) is Joliet.
      if (type === 2 && d[88] === 0x25 && d[89] === 0x2f && [0x40, 0x43, 0x45].includes(d[90] ?? 0)) {
        hasJoliet = true;
      }
    }
    if (!pvd) throw new IsoFormatError('no primary volume descriptor');
    const blockSize = pvd.readUInt16LE(128);
    if (blockSize !== 512 && blockSize !== 1024 && blockSize !== 2048) {
      throw new IsoFormatError(`unsupported logical block size ${blockSize}`);
    }
    const volumeBytes = pvd.readUInt32LE(80) * blockSize;
    const rootRecord = parseRecord(pvd, 156, blockSize);
    if (!rootRecord?.isDirectory) throw new IsoFormatError('root directory record is invalid');
    const root: IsoEntry = { ...rootRecord, name: '', isoName: '' };

    // Rock Ridge announces itself with an SUSP "SP" entry in the root's "." record.
    const rootDir = await source.read(root.offset, Math.min(root.length, blockSize));
    const dot = parseRecord(rootDir, 0, blockSize);
    let suspSkip: number | undefined;
    if (dot) {
      const su = rootDir.subarray(dot.systemUseStart, dot.recordEnd);
      if (su.length >= 7 && su.toString('latin1', 0, 2) === 'SP' && su[4] === 0xbe && su[5] === 0xef) {
        suspSkip = su[6];
      }
    }
    return new IsoImage({
      source,
      volumeId: pvd.toString('latin1', 40, 72).trimEnd(),
      blockSize,
      volumeBytes,
      hasJoliet,
      root,
      suspSkip,
    });
  }

  /** The entries of a directory, without `.` and `..`. */
  list(dir: IsoEntry): Promise<IsoEntry[]> {
    if (!dir.isDirectory) return Promise.reject(new IsoFormatError(`${dir.name} is not a directory`));
    let listing = this.listings.get(dir.offset);
    if (!listing) {
      listing = this.readDirectory(dir);
      this.listings.set(dir.offset, listing);
      listing.catch(() => this.listings.delete(dir.offset));
    }
    return listing;
  }

  /** Finds `/a/b/c` (leading slash optional). Undefined when any component is missing. */
  async lookup(path: string): Promise<IsoEntry | undefined> {
    let current = this.root;
    for (const component of path.split('/').filter((c) => c !== '')) {
      if (!current.isDirectory) return undefined;
      const entries = await this.list(current);
      const found =
        entries.find((e) => e.name === component) ?? entries.find((e) => plainNameMatches(e, component));
      if (!found) return undefined;
      current = found;
    }
    return current;
  }

  /** Reads a whole (small) file: JSON and config files, never the big images. */
  async readFile(entry: IsoEntry, maxBytes = 1024 * 1024): Promise<Buffer> {
    if (entry.isDirectory) throw new IsoFormatError(`${entry.name} is a directory`);
    if (entry.length > maxBytes) {
      throw new IsoFormatError(`${entry.name} is ${entry.length} bytes, more than the ${maxBytes} allowed`);
    }
    return Buffer.from(await this.source.read(entry.offset, entry.length));
  }

  private async readDirectory(dir: IsoEntry): Promise<IsoEntry[]> {
    if (dir.length > MAX_DIRECTORY_BYTES) {
      throw new IsoFormatError(`directory at ${dir.offset} claims ${dir.length} bytes`);
    }
    const data = await this.source.read(dir.offset, dir.length);
    const entries: IsoEntry[] = [];
    let pos = 0;
    while (pos < data.length) {
      if (data[pos] === 0) {
        // Records never straddle a sector: a zero length byte means "continue at the next one".
        pos = (Math.floor(pos / this.blockSize) + 1) * this.blockSize;
        continue;
      }
      const rec = parseRecord(data, pos, this.blockSize);
      if (!rec) throw new IsoFormatError(`bad directory record at byte ${dir.offset + pos}`);
      pos = rec.recordEnd;
      if (rec.isoName === '\u0000' || rec.isoName === '\u0001') continue;
      if (rec.flags & FLAG_MULTI_EXTENT) {
        throw new IsoFormatError(`multi-extent file ${rec.isoName} is not supported`);
      }
      const rrName =
        this.suspSkip === undefined
          ? undefined
          : await this.rockRidgeName(data.subarray(rec.systemUseStart + this.suspSkip, rec.recordEnd));
      entries.push({
        name: rrName ?? stripVersion(rec.isoName),
        isoName: rec.isoName,
        isDirectory: rec.isDirectory,
        offset: rec.offset,
        length: rec.length,
      });
    }
    return entries;
  }

  /** Collects the `NM` entries of a System Use area, following `CE` continuation areas. */
  private async rockRidgeName(area: Buffer): Promise<string | undefined> {
    const parts: Buffer[] = [];
    let current: Buffer | undefined = area;
    for (let hops = 0; current && hops < MAX_CONTINUATION_AREAS; hops++) {
      const su: Buffer = current;
      current = undefined;
      let p = 0;
      while (p + 4 <= su.length) {
        const sig = su.toString('latin1', p, p + 2);
        const len = su[p + 2] ?? 0;
        if (len < 4 || p + len > su.length) break;
        if (sig === 'NM') {
          const flags = su[p + 4] ?? 0;
          // CURRENT (2) and PARENT (4) name "." and ".."; they carry no text.
          if (!(flags & 0x06)) parts.push(su.subarray(p + 5, p + len));
        } else if (sig === 'CE' && len >= 28) {
          const lba = su.readUInt32LE(p + 4);
          const offset = su.readUInt32LE(p + 12);
          const length = su.readUInt32LE(p + 20);
          current = await this.source.read(lba * this.blockSize + offset, length);
        } else if (sig === 'ST') {
          break;
        }
        p += len;
      }
    }
    return parts.length > 0 ? Buffer.concat(parts).toString('utf8') : undefined;
  }
}

interface RawRecord {
  isoName: string;
  isDirectory: boolean;
  flags: number;
  offset: number;
  length: number;
  systemUseStart: number;
  recordEnd: number;
}

function parseRecord(buf: Buffer, pos: number, blockSize: number): RawRecord | undefined {
  const len = buf[pos] ?? 0;
  if (len < 34 || pos + len > buf.length) return undefined;
  const extAttrLen = buf[pos + 1] ?? 0;
  const nameLen = buf[pos + 32] ?? 0;
  if (33 + nameLen > len) return undefined;
  const flags = buf[pos + 25] ?? 0;
  return {
    isoName: buf.toString('latin1', pos + 33, pos + 33 + nameLen),
    isDirectory: (flags & FLAG_DIRECTORY) !== 0,
    flags,
    // Extended attribute records, when present, sit in front of the data.
    offset: (buf.readUInt32LE(pos + 2) + extAttrLen) * blockSize,
    length: buf.readUInt32LE(pos + 10),
    // The identifier is followed by a pad byte when its length is even.
    systemUseStart: pos + 33 + nameLen + (nameLen % 2 === 0 ? 1 : 0),
    recordEnd: pos + len,
  };
}

/** `FOO.TXT;1` → `FOO.TXT`, `FOO.;1` → `FOO`. */
function stripVersion(isoName: string): string {
  const semi = isoName.indexOf(';');
  const base = semi >= 0 ? isoName.slice(0, semi) : isoName;
  return base.endsWith('.') ? base.slice(0, -1) : base;
}

function plainNameMatches(entry: IsoEntry, wanted: string): boolean {
  const plain = stripVersion(entry.isoName).toUpperCase();
  const upper = wanted.toUpperCase();
  if (plain === upper) return true;
  // Level-1 names are 8.3: `igninfo.json` is stored as `IGNINFO.JSO`.
  const dot = upper.lastIndexOf('.');
  const truncated =
    dot > 0 ? `${upper.slice(0, Math.min(dot, 8))}.${upper.slice(dot + 1, dot + 4)}` : upper.slice(0, 8);
  return plain === truncated;
}

/** Opens an image file, runs `fn` with its reader and closes the file afterwards. */
export async function withIsoFile<T>(path: string, fn: (iso: IsoImage) => Promise<T>): Promise<T> {
  const fh = await open(path, 'r');
  try {
    return await fn(await IsoImage.open(fileHandleSource(fh)));
  } finally {
    await fh.close();
  }
}
