// A status write that would make the object larger than etcd stores is refused before it is
// sent: the API server never sees it, so it cannot fail after the fact or poison the connection.
import { describe, expect, it } from 'vitest';
import {
  type KubeClient,
  type KubeObject,
  MAX_OBJECT_WRITE_BYTES,
  ObjectTooLargeError,
  updateStatus,
} from '../../../src/runtime/index.ts';

const RES = { group: 'g', version: 'v1', kind: 'Thing', plural: 'things', namespaced: true };
type Thing = KubeObject & { status?: { blob?: string } };
const thing: Thing = { apiVersion: 'g/v1', kind: 'Thing', metadata: { name: 't', namespace: 'ns' } };

function recordingClient() {
  const sent: unknown[] = [];
  const client = {
    replaceStatus: async (_res: unknown, obj: Thing) => {
      sent.push(obj);
      return obj;
    },
  } as unknown as KubeClient;
  return { client, sent };
}

describe('updateStatus size guard', () => {
  it.each([
    ['well under the limit', 1024, true],
    ['just under the limit', MAX_OBJECT_WRITE_BYTES - 200, true],
    ['over the limit', MAX_OBJECT_WRITE_BYTES, false],
    ['6 MiB', 6 * 1024 * 1024, false],
  ])('%s', async (_name, size, sent) => {
    const { client, sent: requests } = recordingClient();
    const write = updateStatus(client, RES, thing, () => ({ blob: 'x'.repeat(size) }));
    if (sent) {
      await expect(write).resolves.toMatchObject({ written: true });
      expect(requests).toHaveLength(1);
    } else {
      const err = await write.catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ObjectTooLargeError);
      expect((err as Error).message).toMatch(
        new RegExp(`^Thing ns/t would be \\d+ bytes, over the limit of ${MAX_OBJECT_WRITE_BYTES} bytes`),
      );
      expect(requests).toEqual([]);
    }
  });
});
