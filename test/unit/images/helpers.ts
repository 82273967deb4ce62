// Shared by the image service tests: temp dirs, stream collection and a reference overlay.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { Overlay } from '../../../src/images/iso-stream.ts';

export async function makeTempDir(prefix: string): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), `aio-${prefix}-`));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** What the served image must equal: the base bytes with each overlay written in place. */
export function applyOverlays(base: Buffer, overlays: readonly Overlay[]): Buffer {
  const out = Buffer.from(base);
  for (const o of overlays) {
    out.fill(0, o.offset, o.offset + o.length);
    o.data.copy(out, o.offset);
  }
  return out;
}
