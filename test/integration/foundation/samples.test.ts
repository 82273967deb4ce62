// Every sample is accepted by the generated CRDs on a real API server, and every invalid object is
// rejected by the schema with a useful message.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyObjects, FIELD_MANAGER, parseManifests, resourceOf } from '../../../src/dev/apply.ts';
import { ApiError, KubeClient } from '../../../src/runtime/index.ts';
import { adminKubeConfig, newNamespace } from '../../harness/env.ts';

const samplesDir = 'config/samples';

async function yamlFiles(dir: string): Promise<string[]> {
  return (await readdir(dir))
    .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
    .sort()
    .map((f) => join(dir, f));
}

/** The API server's Status message of a failed request. */
function statusMessage(err: unknown): string {
  return err instanceof ApiError ? (err.status?.message ?? err.message) : String(err);
}

describe('config/samples', () => {
  it('applies every valid sample', async () => {
    const ns = await newNamespace('samples');
    const kc = adminKubeConfig();
    const files = await yamlFiles(samplesDir);
    expect(files.length).toBeGreaterThan(10);
    // Namespaces first so later objects have somewhere to go, the rest in file order.
    const objects = (
      await Promise.all(files.map(async (f) => parseManifests(await readFile(f, 'utf8'))))
    ).flat();
    const namespaced = objects.filter((o) => o.kind !== 'Namespace');
    const shared = new KubeClient({ kubeConfig: kc, qps: 0 });
    const clusterScoped = namespaced.filter((o) => !resourceOf(o).namespaced);
    expect(clusterScoped.map((o) => o.kind)).toContain('AgentServiceConfig');
    // Seconds: managedFields times are RFC 3339 without fractions.
    const started = Math.floor(Date.now() / 1000) * 1000;
    // Cluster-scoped samples (the AgentServiceConfig singleton, ClusterImageSets) are checked by the
    // API server with a dry run: storing them would replace the OS images other test files put in
    // the shared AgentServiceConfig while they run.
    const applied = await applyObjects(kc, namespaced, ns, { dryRun: (_, isNamespaced) => !isNamespaced });
    expect(applied).toHaveLength(namespaced.length);
    for (const [i, obj] of applied.entries()) {
      expect(obj.metadata?.uid, `${namespaced[i]?.kind}/${namespaced[i]?.metadata?.name}`).toBeTruthy();
    }
    // Other test files share the cluster-scoped objects, and change them while this one runs (the
    // operators they start write the AgentServiceConfig's status; some swap its OS images), so a
    // changed resourceVersion proves nothing: what would show a stored apply is a field of the
    // samples' field manager set since this test started.
    const storedByApply = await Promise.all(
      clusterScoped.map(async (o) => {
        const live = await shared.getIfExists(resourceOf(o), o.metadata?.name ?? '');
        const entries = (live?.metadata.managedFields ?? []) as {
          manager?: string;
          operation?: string;
          time?: string;
        }[];
        return entries
          .filter((e) => e.manager === FIELD_MANAGER && Date.parse(e.time ?? '') >= started)
          .map((e) => `${o.kind}/${o.metadata?.name} ${e.operation} at ${e.time}`);
      }),
    );
    await shared.close();
    expect(storedByApply.flat()).toEqual([]);
  });

  it('rejects every invalid object with the expected message', async () => {
    const ns = await newNamespace('invalid');
    const client = new KubeClient({ kubeConfig: adminKubeConfig(), qps: 0 });
    const files = await yamlFiles(join(samplesDir, 'invalid'));
    expect(files.length).toBeGreaterThan(3);
    for (const f of files) {
      const text = await readFile(f, 'utf8');
      const expected = /^#\s*expect:\s*(.+)$/m.exec(text)?.[1]?.trim();
      expect(expected, `${f} needs a '# expect:' line`).toBeTruthy();
      const docs = parseManifests(text);
      // `# steps: sequential`: all but the last document must be accepted (transition rules only
      // run on update), the last must be rejected.
      const sequential = /^#\s*steps:\s*sequential/m.test(text);
      // Created as `kubectl create` would, so the error is the schema's (server-side apply reports
      // type errors differently); the final step of a sequence is an update (merge patch).
      const inNs = docs.map((d) => ({ ...d, metadata: { ...d.metadata, namespace: ns } }));
      for (const d of inNs.slice(0, -1)) await client.create(resourceOf(d), d);
      const last = inNs[inNs.length - 1]!;
      let message = '';
      try {
        if (sequential) await client.patch(resourceOf(last), last.metadata.name ?? '', ns, 'merge', last);
        else await client.create(resourceOf(last), last);
      } catch (err) {
        message = statusMessage(err);
      }
      expect(message, `${f} should be rejected`).not.toBe('');
      expect(message, f).toContain(expected);
    }
    await client.close();
  });
});
