// Per-test helpers on top of the control plane started by global-setup.ts.
import { randomBytes } from 'node:crypto';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { inject } from 'vitest';

/** A KubeConfig for the admin user of the test control plane (or AIO_TEST_KUBECONFIG). */
export function adminKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(inject('kubeconfigPath'));
  return kc;
}

export function kubeconfigPath(): string {
  return inject('kubeconfigPath');
}

export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/** Creates a fresh namespace for one test; namespaces are never reused between tests. */
export async function newNamespace(prefix = 'test'): Promise<string> {
  const name = uniqueName(prefix);
  const core = adminKubeConfig().makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name, labels: { 'aio-test': 'true' } } } });
  return name;
}

/** Polls `probe` every `intervalMs` until it returns a truthy value, or throws with the last state. */
export async function eventually<T>(
  probe: () => Promise<T | undefined | false | null>,
  opts: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v;
      last = v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${opts.what ?? 'condition'}; last: ${String(last)}`);
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 100));
  }
}
