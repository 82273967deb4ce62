// `make deploy` / `make undeploy` (hack/deploy.ts) against the test control plane: every object of
// config/default exists after apply (no kubelet, so no pod runs), the webhook configurations pass
// server-side validation (dry run: real ones would reject every other suite's writes), and delete
// removes what apply created while keeping the CRDs.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { loadKustomization, resourceOf } from '../../../hack/deploy.ts';
import { KubeClient, type KubeObject } from '../../../src/runtime/index.ts';
import { adminKubeConfig, eventually, kubeconfigPath } from '../../harness/env.ts';

const execFileP = promisify(execFile);

async function deploy(...args: string[]): Promise<string> {
  const { stdout } = await execFileP(process.execPath, ['hack/deploy.ts', ...args], {
    env: { ...process.env, KUBECONFIG: kubeconfigPath(), IMG: 'example.com/aio/operator:test' },
  });
  return stdout;
}

const client = new KubeClient({ kubeConfig: adminKubeConfig(), qps: 0 });
const objects = loadKustomization('config/default');
const get = (o: KubeObject) =>
  client.getIfExists<KubeObject>(resourceOf(o), o.metadata.name ?? '', o.metadata.namespace);

afterAll(async () => {
  await deploy('delete').catch(() => undefined);
  await client.close();
});

describe('hack/deploy.ts', () => {
  it('applies config/default, validates the webhooks, and deletes it again', async () => {
    const kinds = new Set(objects.map((o) => o.kind));
    for (const k of [
      'CustomResourceDefinition',
      'ServiceAccount',
      'ClusterRole',
      'ClusterRoleBinding',
      'Role',
      'RoleBinding',
      'Deployment',
      'Service',
      'PersistentVolumeClaim',
      'NetworkPolicy',
      'ValidatingWebhookConfiguration',
      'MutatingWebhookConfiguration',
    ])
      expect(kinds, k).toContain(k);

    const out = await deploy('apply', '--without-webhooks');
    expect(out).toContain('applied Deployment agent-install-operator/agent-install-operator');
    for (const o of objects) {
      if (o.kind?.endsWith('WebhookConfiguration')) continue;
      expect(await get(o), `${o.kind} ${o.metadata.name}`).toBeDefined();
    }
    const dep = await client.get<
      KubeObject & { spec: { template: { spec: { containers: { image: string }[] } } } }
    >(
      resourceOf(objects.find((o) => o.kind === 'Deployment')!),
      'agent-install-operator',
      'agent-install-operator',
    );
    expect(dep.spec.template.spec.containers[0]?.image).toBe('example.com/aio/operator:test');
    // Applying again converges (server-side apply is idempotent).
    await deploy('apply', '--without-webhooks');

    const dry = await deploy('apply', '--dry-run');
    expect(dry).toContain(
      'applied ValidatingWebhookConfiguration agentvalidators.admission.agentinstall.openshift.io (dry run)',
    );
    for (const o of objects.filter((x) => x.kind?.endsWith('WebhookConfiguration')))
      expect(await get(o)).toBeUndefined();

    await deploy('delete');
    for (const o of objects) {
      if (o.kind === 'CustomResourceDefinition') {
        expect(await get(o), o.metadata.name).toBeDefined();
        continue;
      }
      // Namespaced objects go with their namespace once it finalizes (needs kube-controller-manager);
      // cluster-scoped ones and the ones deleted directly must be gone or terminating.
      await eventually(
        async () => {
          const live = await get(o);
          return !live || !!live.metadata.deletionTimestamp || live.kind === 'PersistentVolumeClaim';
        },
        { timeoutMs: 20_000, what: `${o.kind} ${o.metadata.name} deleted` },
      );
    }
  }, 120_000);
});
