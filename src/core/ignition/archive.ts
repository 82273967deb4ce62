// The ignition archive as embedded into the discovery ISO / PXE initrd (agent-api.md §9.3):
// a newc cpio holding `config.ign`, gzip-compressed, NUL-padded to a multiple of 4 bytes.
// Only its size matters to the core (the 256 KiB embed-area limit, core.md §8.2).

import { gzipSync } from 'node:zlib';

/** Size of the ISO's ignition embed area: larger archives are rejected. */
export const IGNITION_ARCHIVE_LIMIT_BYTES = 256 * 1024;

function cpioHeader(fields: {
  ino: number;
  mode: number;
  nlink: number;
  fileSize: number;
  nameSize: number;
}) {
  const hex = (n: number) => n.toString(16).toUpperCase().padStart(8, '0');
  return (
    '070701' +
    hex(fields.ino) +
    hex(fields.mode) +
    hex(0) + // uid
    hex(0) + // gid
    hex(fields.nlink) +
    hex(0) + // mtime
    hex(fields.fileSize) +
    hex(0) + // devmajor
    hex(0) + // devminor
    hex(0) + // rdevmajor
    hex(0) + // rdevminor
    hex(fields.nameSize) +
    hex(0) // check
  );
}

function pad4(length: number): Buffer {
  return Buffer.alloc((4 - (length % 4)) % 4);
}

function cpioEntry(name: string, data: Buffer, ino: number, mode: number): Buffer {
  const nameBytes = Buffer.from(name + '\0', 'utf8');
  const header = Buffer.from(
    cpioHeader({ ino, mode, nlink: 1, fileSize: data.length, nameSize: nameBytes.length }),
    'ascii',
  );
  const head = Buffer.concat([header, nameBytes]);
  return Buffer.concat([head, pad4(head.length), data, pad4(data.length)]);
}

/** The gzip'd cpio archive carrying `config.ign`, padded to 4 bytes. */
export function buildIgnitionArchive(ignition: string | Buffer): Buffer {
  const data = typeof ignition === 'string' ? Buffer.from(ignition, 'utf8') : ignition;
  const cpio = Buffer.concat([
    cpioEntry('config.ign', data, 1, 0o100644),
    cpioEntry('TRAILER!!!', Buffer.alloc(0), 0, 0),
  ]);
  const gz = gzipSync(cpio);
  return Buffer.concat([gz, pad4(gz.length)]);
}

/** Upstream's message when the archive would not fit the ISO's embed area; undefined when it fits. */
export function ignitionArchiveSizeError(ignition: string | Buffer): string | undefined {
  const size = buildIgnitionArchive(ignition).length;
  if (size <= IGNITION_ARCHIVE_LIMIT_BYTES) return undefined;
  return (
    `The ignition archive size (${Math.floor(size / 1024)} KiB) is over the maximum allowable size ` +
    `(${IGNITION_ARCHIVE_LIMIT_BYTES / 1024} KiB)`
  );
}
