import { describe, expect, it } from 'vitest';
import { findFilePart, MultipartReader, multipartBoundary } from '../../../../src/server/api/multipart.ts';

async function* pieces(data: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}

async function collect(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const body = Buffer.from(
  'ignored preamble\r\n' +
    '--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\nfirst\r\n' +
    '--xyz  \r\n\r\n(no headers)\r\n' +
    '--xyz\r\nContent-Disposition: form-data; name="upfile"; filename="we\\"ird.tgz"\r\nContent-Type: application/gzip\r\n\r\n' +
    'line1\r\n--xyzNOT\r\n--xyz-x\r\nend\r\n' +
    '--xyz--\r\nepilogue',
);

describe('multipart reader', () => {
  it.each([1, 2, 3, 7, 64, 4096])('reads every part whatever the chunk size (%i)', async (size) => {
    const reader = new MultipartReader(pieces(body, size), 'xyz');
    const seen: [string | undefined, string][] = [];
    for (;;) {
      const part = await reader.nextPart();
      if (!part) break;
      seen.push([part.headers.name, (await collect(part.body)).toString()]);
    }
    expect(seen).toEqual([
      ['a', 'first'],
      [undefined, '(no headers)'],
      ['upfile', 'line1\r\n--xyzNOT\r\n--xyz-x\r\nend'],
    ]);
  });

  it('finds the file part, skipping unread parts, with its filename and type', async () => {
    const file = await findFilePart(pieces(body, 5), 'xyz', 'upfile');
    expect(file?.fileName).toBe('we"ird.tgz');
    expect(file?.contentType).toBe('application/gzip');
    expect((await collect(file!.stream)).toString()).toBe('line1\r\n--xyzNOT\r\n--xyz-x\r\nend');
    expect(await findFilePart(pieces(body, 5), 'xyz', 'missing')).toBeUndefined();
  });

  it('keeps a file that is empty', async () => {
    const empty = Buffer.from('--b\r\nContent-Disposition: form-data; name="upfile"\r\n\r\n\r\n--b--\r\n');
    const file = await findFilePart(pieces(empty, 3), 'b', 'upfile');
    expect(file?.fileName).toBe('upfile');
    expect(await collect(file!.stream)).toHaveLength(0);
  });

  it('reports bodies without a boundary or cut short', async () => {
    await expect(findFilePart(pieces(Buffer.from('nothing here'), 4), 'b', 'upfile')).rejects.toThrow(
      'multipart body has no boundary delimiter',
    );
    await expect(
      findFilePart(pieces(Buffer.from('--b\r\nContent-Disposition: form-data; name="x"'), 4), 'b', 'upfile'),
    ).rejects.toThrow('multipart body ended inside part headers');
  });

  it('reads the boundary from Content-Type, quoted or not', () => {
    expect(multipartBoundary('multipart/form-data; boundary=abc123')).toBe('abc123');
    expect(multipartBoundary('Multipart/Form-Data; charset=x; boundary="a b:c"')).toBe('a b:c');
    expect(multipartBoundary('application/json')).toBeUndefined();
    expect(multipartBoundary('multipart/form-data')).toBeUndefined();
    expect(multipartBoundary(undefined)).toBeUndefined();
  });
});
