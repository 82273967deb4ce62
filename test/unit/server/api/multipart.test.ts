import { describe, expect, it } from 'vitest';
import { findFilePart, MultipartError, multipartBoundary } from '../../../../src/server/api/multipart.ts';

async function* pieces(data: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}

async function collect(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

// Data that resembles a delimiter without being one (RFC 2046 §5.1.1: a real delimiter never
// appears inside a part, so a sender picks a boundary that is not in the data).
const lookalikes = 'line1\r\n--xy\r\n-xyz--xyz\r\n--XYZ\r\nend';
const body = Buffer.from(
  'ignored preamble\r\n' +
    '--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\nfirst\r\n' +
    '--xyz\r\nContent-Disposition: form-data; name="other"; filename="o.txt"\r\n\r\nskipped\r\n' +
    '--xyz\r\nContent-Disposition: form-data; name="upfile"; filename="we\\"ird.tgz"\r\nContent-Type: application/gzip\r\n\r\n' +
    `${lookalikes}\r\n` +
    '--xyz--\r\nepilogue',
);

describe('multipart file part', () => {
  it.each([1, 2, 3, 7, 64, 4096])('finds the file whatever the chunk size (%i)', async (size) => {
    const file = await findFilePart(pieces(body, size), 'xyz', 'upfile');
    expect(file?.fileName).toBe('we"ird.tgz');
    expect(file?.contentType).toBe('application/gzip');
    expect((await collect(file!.stream)).toString()).toBe(lookalikes);
  });

  it('is undefined when no part has the name', async () => {
    expect(await findFilePart(pieces(body, 5), 'xyz', 'missing')).toBeUndefined();
  });

  it('keeps a file that is empty, also when sent without a filename', async () => {
    const empty = Buffer.from('--b\r\nContent-Disposition: form-data; name="upfile"\r\n\r\n\r\n--b--\r\n');
    const file = await findFilePart(pieces(empty, 3), 'b', 'upfile');
    expect(file?.fileName).toBe('upfile');
    expect(await collect(file!.stream)).toHaveLength(0);
  });

  it('keeps every byte of a part sent without a filename', async () => {
    const bytes = Buffer.from([0, 0xff, 0x80, 0x0a, 0xc3, 0x28]);
    const plain = Buffer.concat([
      Buffer.from('--b\r\nContent-Disposition: form-data; name="upfile"\r\n\r\n'),
      bytes,
      Buffer.from('\r\n--b--\r\n'),
    ]);
    const file = await findFilePart(pieces(plain, 2), 'b', 'upfile');
    expect((await collect(file!.stream)).equals(bytes)).toBe(true);
  });

  it('reports bodies without a boundary or cut short', async () => {
    await expect(findFilePart(pieces(Buffer.from('nothing here'), 4), 'b', 'upfile')).rejects.toThrow(
      new MultipartError('multipart body ended before its closing delimiter'),
    );
    await expect(
      findFilePart(pieces(Buffer.from('--b\r\nContent-Disposition: form-data; name="x"'), 4), 'b', 'upfile'),
    ).rejects.toThrow(new MultipartError('multipart body ended before its closing delimiter'));
    const cut = await findFilePart(
      pieces(Buffer.from('--b\r\nContent-Disposition: form-data; name="upfile"; filename="f"\r\n\r\nabc'), 4),
      'b',
      'upfile',
    );
    await expect(collect(cut!.stream)).rejects.toThrow(
      new MultipartError('multipart body ended inside a part'),
    );
  });

  it('passes the errors of its source on, before and after the part is found', async () => {
    async function* failing(after: Buffer): AsyncGenerator<Buffer> {
      yield after;
      throw new RangeError('too large');
    }
    await expect(findFilePart(failing(Buffer.from('--b\r\n')), 'b', 'upfile')).rejects.toThrow(RangeError);
    const started = await findFilePart(
      failing(Buffer.from('--b\r\nContent-Disposition: form-data; name="upfile"; filename="f"\r\n\r\nabc')),
      'b',
      'upfile',
    );
    await expect(collect(started!.stream)).rejects.toThrow(RangeError);
  });

  it('reads the boundary from Content-Type, quoted or not', () => {
    expect(multipartBoundary('multipart/form-data; boundary=abc123')).toBe('abc123');
    expect(multipartBoundary('Multipart/Form-Data; charset=x; boundary="a b:c"')).toBe('a b:c');
    expect(multipartBoundary('application/json')).toBeUndefined();
    expect(multipartBoundary('multipart/form-data')).toBeUndefined();
    expect(multipartBoundary(undefined)).toBeUndefined();
  });
});
