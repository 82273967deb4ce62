// The newc ("SVR4 no CRC", magic 070701) cpio format the discovery ISO's ignition archive uses
// (agent-api.md §9.3): a 110-byte ASCII header, the NUL-terminated name, the data, each of the
// three padded to 4 bytes; ended by an entry named TRAILER!!!. The CRC variant (070702) has the
// same layout, so it is read too. The writer exists for tests and fixtures.

const HEADER_SIZE = 110;
const TRAILER = 'TRAILER!!!';
const MAGICS = new Set(['070701', '070702']);

export interface CpioEntry {
  /** Name as stored (may start with "./"). */
  name: string;
  mode: number;
  data: Buffer;
}

const pad4 = (n: number) => (4 - (n % 4)) % 4;

/** Parses entries up to the trailer. Throws on a malformed archive. */
export function parseNewc(archive: Uint8Array): CpioEntry[] {
  const buf = Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength);
  const entries: CpioEntry[] = [];
  let pos = 0;
  for (;;) {
    if (pos + HEADER_SIZE > buf.length) throw new Error(`cpio: truncated header at byte ${pos}`);
    const magic = buf.toString('latin1', pos, pos + 6);
    if (!MAGICS.has(magic)) throw new Error(`cpio: bad magic ${JSON.stringify(magic)} at byte ${pos}`);
    const field = (i: number) => {
      const text = buf.toString('latin1', pos + 6 + i * 8, pos + 14 + i * 8);
      if (!/^[0-9a-fA-F]{8}$/.test(text)) throw new Error(`cpio: bad header field at byte ${pos}`);
      return Number.parseInt(text, 16);
    };
    const mode = field(1);
    const fileSize = field(6);
    const nameSize = field(11);
    const nameStart = pos + HEADER_SIZE;
    if (nameSize < 1 || nameStart + nameSize > buf.length)
      throw new Error(`cpio: bad name size at byte ${pos}`);
    const name = buf.toString('utf8', nameStart, nameStart + nameSize - 1);
    const dataStart = nameStart + nameSize + pad4(HEADER_SIZE + nameSize);
    if (name === TRAILER) return entries;
    if (dataStart + fileSize > buf.length) throw new Error(`cpio: truncated data of ${name}`);
    entries.push({ name, mode, data: Buffer.from(buf.subarray(dataStart, dataStart + fileSize)) });
    pos = dataStart + fileSize + pad4(fileSize);
  }
}

/** The entry with this path ("config.ign" matches "config.ign", "./config.ign", "/config.ign"). */
export function findEntry(entries: CpioEntry[], path: string): CpioEntry | undefined {
  const want = path.replace(/^\.?\/+/, '');
  return entries.find((e) => e.name.replace(/^\.?\/+/, '') === want);
}

function header(fields: {
  ino: number;
  mode: number;
  nlink: number;
  size: number;
  nameSize: number;
}): string {
  const hex = (n: number) => n.toString(16).toUpperCase().padStart(8, '0');
  // ino mode uid gid nlink mtime filesize devmajor devminor rdevmajor rdevminor namesize check
  return `070701${[
    fields.ino,
    fields.mode,
    0,
    0,
    fields.nlink,
    0,
    fields.size,
    0,
    0,
    0,
    0,
    fields.nameSize,
    0,
  ]
    .map(hex)
    .join('')}`;
}

/** Writes a newc archive laid out as the image service does (inodes from 1, mtime 0, no block padding). */
export function writeNewc(entries: { name: string; data: Uint8Array; mode?: number }[]): Buffer {
  const parts: Buffer[] = [];
  const push = (name: string, data: Uint8Array, ino: number, mode: number) => {
    const nameBytes = Buffer.from(`${name}\0`, 'utf8');
    parts.push(Buffer.from(header({ ino, mode, nlink: 1, size: data.length, nameSize: nameBytes.length })));
    parts.push(nameBytes, Buffer.alloc(pad4(HEADER_SIZE + nameBytes.length)));
    parts.push(Buffer.from(data), Buffer.alloc(pad4(data.length)));
  };
  entries.forEach((e, i) => {
    push(e.name, e.data, i + 1, e.mode ?? 0o100644);
  });
  push(TRAILER, new Uint8Array(0), 0, 0);
  return Buffer.concat(parts);
}
