// Builds small tar archives for the release-image tests (ustar headers, 512-byte padding).
export function tarEntry(name: string, data: Buffer | string, type = '0'): Buffer {
  const body = typeof data === 'string' ? Buffer.from(data) : data;
  const h = Buffer.alloc(512);
  h.write(name.slice(0, 100), 0, 'utf8');
  h.write('0000644\0', 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write(`${body.length.toString(8).padStart(11, '0')}\0`, 124);
  h.write('00000000000\0', 136);
  h.write(type, 156);
  h.write('ustar\0', 257);
  h.write('00', 263);
  h.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  const pad = Buffer.alloc((512 - (body.length % 512)) % 512);
  return Buffer.concat([h, body, pad]);
}

export function tarArchive(...entries: Buffer[]): Buffer {
  return Buffer.concat([...entries, Buffer.alloc(1024)]);
}

export function paxEntry(path: string): Buffer {
  const rec = (len: number) => `${len} path=${path}\n`;
  let len = rec(0).length;
  while (rec(len).length !== len) len = rec(len).length;
  return tarEntry('PaxHeader', rec(len), 'x');
}
