// "Nothing changed" made checkable without a fixed sleep: a merge patch that carries the
// resourceVersion seen before is applied by the API server only if no one (the operator included)
// wrote the object since; otherwise the server answers 409 Conflict. The patch itself is the
// barrier the caller then waits on (a spec change the operator must react to), so the check
// cannot pass merely because the operator was slow. An empty `patch` writes nothing at all (the
// server skips a no-op patch) and only checks the resourceVersion: use it after a barrier from
// barriers.ts when the check must not itself wake the operator.
import { expect } from 'vitest';
import { ApiError, type KubeClient } from '../../src/runtime/client.ts';
import type { ApiResource, KubeObject } from '../../src/runtime/types.ts';

/** Applies `patch` only if the object is still at `seen`'s resourceVersion; fails the test otherwise. */
export async function patchIfUnchanged<T extends KubeObject>(
  client: KubeClient,
  ref: ApiResource,
  seen: T,
  patch: Record<string, unknown>,
): Promise<T> {
  const { metadata, ...rest } = patch as { metadata?: Record<string, unknown> };
  const body = { ...rest, metadata: { ...metadata, resourceVersion: seen.metadata.resourceVersion } };
  const name = seen.metadata.name ?? '';
  try {
    return await client.patch<T>(ref, name, seen.metadata.namespace, 'merge', body);
  } catch (err) {
    if (err instanceof ApiError && err.statusCode === 409) {
      const now = await client.get<T>(ref, name, seen.metadata.namespace);
      expect.fail(
        `${name} was written after resourceVersion ${seen.metadata.resourceVersion} ` +
          `(now ${now.metadata.resourceVersion}):\n${changes(seen, now).join('\n')}`,
      );
    }
    throw err;
  }
}

/** Paths that differ between two versions of an object (for failure messages). */
export function changes(a: unknown, b: unknown, path = ''): string[] {
  if (
    JSON.stringify(a) === JSON.stringify(b) ||
    path.endsWith('managedFields') ||
    path.endsWith('resourceVersion')
  ) {
    return [];
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].flatMap((k) =>
      changes((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`),
    );
  }
  return [`${path}: ${JSON.stringify(a)?.slice(0, 120)} => ${JSON.stringify(b)?.slice(0, 120)}`];
}
