// newc ("SVR4 no CRC") cpio archives, the initramfs format the kernel unpacks (agent-api.md §9.3).
// Headers are 110 ASCII bytes: the magic `070701` and thirteen 8-digit upper-case hex fields.
// Names and data are each NUL-padded to a multiple of 4; no 512-byte block padding is added,
// matching what the image service writes. The one copy: the host simulator reads and writes its
// archives through it too.

const MAGIC = '070701';
/** The CRC variant has the same layout; only readers that ask for it accept it. */
const CRC_MAGIC = '070702';
const HEADER_LENGTH = 110;
const TRAILER_NAME = 'TRAILER!!!';

export const MODE_REGULAR = 0o100000;
export const MODE_DIRECTORY = 0o040000;
export const MODE_SYMLINK = 0o120000;

export interface CpioEntry {
  /** Path inside the archive, without a leading slash (`config.ign`, `etc/assisted/x`). */
  name: string;
  /** Full mode including the file type bits, e.g. `0o100644`. */
  mode: number;
  /** File content; a symlink's target; empty for directories. */
  data: Buffer;
}

export class CpioFormatError extends Error {
  override name = 'CpioFormatError';
}

function hex8(n: number): string {
  return n.toString(16).toUpperCase().padStart(8, '0');
}

function pad4(n: number): number {
  return (4 - (n % 4)) % 4;
}

function header(fields: {
  ino: number;
  mode: number;
  nlink: number;
  size: number;
  nameSize: number;
}): string {
  // Order: ino mode uid gid nlink mtime filesize devmajor devminor rdevmajor rdevminor namesize check.
  // Owner, timestamps and devices are all zero so the archive is reproducible.
  return (
    MAGIC +
    [fields.ino, fields.mode, 0, 0, fields.nlink, 0, fields.size, 0, 0, 0, 0, fields.nameSize, 0]
      .map(hex8)
      .join('')
  );
}

function record(fields: { ino: number; mode: number; nlink: number }, name: string, data: Buffer): Buffer[] {
  const nameBytes = Buffer.from(`${name}\0`, 'utf8');
  const head = Buffer.from(header({ ...fields, size: data.length, nameSize: nameBytes.length }), 'latin1');
  return [
    head,
    nameBytes,
    Buffer.alloc(pad4(HEADER_LENGTH + nameBytes.length)),
    data,
    Buffer.alloc(pad4(data.length)),
  ];
}

/** What writeNewc takes: a regular file with mode 0644 unless `mode` says otherwise. */
export interface CpioInput {
  name: string;
  mode?: number;
  data: Uint8Array;
}

/** Builds an uncompressed newc archive; inode numbers count from 1 in entry order. */
export function writeNewc(entries: readonly CpioInput[]): Buffer {
  const parts: Buffer[] = [];
  entries.forEach((e, i) => {
    const mode = e.mode ?? MODE_REGULAR | 0o644;
    const isDir = (mode & 0o170000) === MODE_DIRECTORY;
    parts.push(...record({ ino: i + 1, mode, nlink: isDir ? 2 : 1 }, e.name, Buffer.from(e.data)));
  });
  parts.push(...record({ ino: 0, mode: 0, nlink: 1 }, TRAILER_NAME, Buffer.alloc(0)));
  return Buffer.concat(parts);
}

/**
 * Reads a newc archive up to its trailer (what follows the trailer is ignored); `acceptCrc` also
 * reads the 070702 variant (its checksums are not verified).
 */
export function readNewc(archive: Uint8Array, options: { acceptCrc?: boolean } = {}): CpioEntry[] {
  const buf = Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength);
  const entries: CpioEntry[] = [];
  let pos = 0;
  for (;;) {
    if (pos + HEADER_LENGTH > buf.length) throw new CpioFormatError('archive truncated: no trailer');
    const head = buf.toString('latin1', pos, pos + HEADER_LENGTH);
    const magicOk = head.startsWith(MAGIC) || (options.acceptCrc === true && head.startsWith(CRC_MAGIC));
    if (!magicOk) throw new CpioFormatError(`no newc magic at byte ${pos}`);
    const field = (i: number): number => {
      const text = head.slice(6 + i * 8, 14 + i * 8);
      if (!/^[0-9A-Fa-f]{8}$/.test(text)) throw new CpioFormatError(`bad header field at byte ${pos}`);
      return Number.parseInt(text, 16);
    };
    const mode = field(1);
    const size = field(6);
    const nameSize = field(11);
    const nameStart = pos + HEADER_LENGTH;
    const dataStart = nameStart + nameSize + pad4(HEADER_LENGTH + nameSize);
    if (nameSize < 1 || dataStart + size > buf.length) {
      throw new CpioFormatError(`entry at byte ${pos} truncated: runs past the end`);
    }
    const name = buf.toString('utf8', nameStart, nameStart + nameSize - 1);
    if (name === TRAILER_NAME) return entries;
    entries.push({ name, mode, data: Buffer.from(buf.subarray(dataStart, dataStart + size)) });
    pos = dataStart + size + pad4(size);
  }
}

/** The entry with this path ("config.ign" matches "config.ign", "./config.ign", "/config.ign"). */
export function findEntry(entries: readonly CpioEntry[], path: string): CpioEntry | undefined {
  const want = path.replace(/^\.?\/+/, '');
  return entries.find((e) => e.name.replace(/^\.?\/+/, '') === want);
}
