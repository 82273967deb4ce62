// Installs (or removes) the operator on the cluster in $KUBECONFIG: CRDs, RBAC, the Deployment and its
// Services, PVC and NetworkPolicy, and the webhook Service and configurations — everything listed by
// the kustomization (default config/default; config/openshift adds a Route, config/ingress an
// Ingress). Server-side apply, so re-running converges and fields others own are kept.
//
// Usage: node hack/deploy.ts apply|delete [--overlay <dir>] [--without-webhooks] [--dry-run] [--crds]
//   --overlay           kustomization directory (default config/default); only `resources` is read
//   --without-webhooks  skip the Validating/MutatingWebhookConfigurations (e.g. a shared test cluster:
//                       with failurePolicy Fail and no running pod they would reject every write)
//   --dry-run           server-side dry run: the API server validates, nothing is persisted
//   --crds              delete only: also delete the CRDs (and so every Agent, InfraEnv, … in the cluster)
// Environment: KUBECONFIG; IMG replaces the operator image (as the Makefile's IMG).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { resourceOf } from '../src/dev/apply.ts';
import { isNotFound, KubeClient, type KubeObject } from '../src/runtime/index.ts';

export { resourceOf };

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const FIELD_MANAGER = 'agent-install-operator-deploy';
const OPERATOR_CONTAINER = 'manager';

const usage =
  'usage: node hack/deploy.ts apply|delete [--overlay <dir>] [--without-webhooks] [--dry-run] [--crds]';

const WEBHOOK_KINDS = new Set(['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']);

/** The objects a kustomization lists, in order (directories recurse through their kustomization). */
export function loadKustomization(dir: string): KubeObject[] {
  const k = parseYaml(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as { resources?: string[] };
  const out: KubeObject[] = [];
  for (const r of k.resources ?? []) {
    const path = resolve(dir, r);
    if (!existsSync(path)) throw new Error(`${join(dir, 'kustomization.yaml')}: ${r} does not exist`);
    if (statSync(path).isDirectory()) {
      out.push(...loadKustomization(path));
      continue;
    }
    for (const doc of parseAllDocuments(readFileSync(path, 'utf8'))) {
      const obj = doc.toJS() as KubeObject | null;
      if (obj?.kind) out.push(obj);
    }
  }
  return out;
}

function withImage(obj: KubeObject, image: string | undefined): KubeObject {
  if (!image || obj.kind !== 'Deployment') return obj;
  const copy = structuredClone(obj) as KubeObject & {
    spec: { template: { spec: { containers: { name: string; image: string }[] } } };
  };
  for (const c of copy.spec.template.spec.containers) if (c.name === OPERATOR_CONTAINER) c.image = image;
  return copy;
}

interface Options {
  action: 'apply' | 'delete';
  overlay: string;
  withoutWebhooks: boolean;
  dryRun: boolean;
  crds: boolean;
}

function parseArgs(argv: string[]): Options {
  const [action, ...rest] = argv;
  if (action !== 'apply' && action !== 'delete') throw new Error(usage);
  const opts: Options = {
    action,
    overlay: 'config/default',
    withoutWebhooks: false,
    dryRun: false,
    crds: false,
  };
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (a === '--overlay' && rest[i + 1]) opts.overlay = rest[++i] as string;
    else if (a === '--without-webhooks') opts.withoutWebhooks = true;
    else if (a === '--dry-run') opts.dryRun = true;
    else if (a === '--crds') opts.crds = true;
    else throw new Error(`unknown argument ${a}\n${usage}`);
  }
  return opts;
}

function describe(obj: KubeObject): string {
  const ns = obj.metadata.namespace ? `${obj.metadata.namespace}/` : '';
  return `${obj.kind} ${ns}${obj.metadata.name}`;
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const kc = new KubeConfig();
  kc.loadFromDefault();
  const client = new KubeClient({ kubeConfig: kc, qps: 0, userAgent: FIELD_MANAGER });
  let objects = loadKustomization(resolve(root, opts.overlay)).map((o) => withImage(o, process.env.IMG));
  if (opts.withoutWebhooks) objects = objects.filter((o) => !WEBHOOK_KINDS.has(o.kind ?? ''));
  const suffix = opts.dryRun ? ' (dry run)' : '';
  try {
    if (opts.action === 'apply') {
      for (const obj of objects) {
        const res = resourceOf(obj);
        await client.patch(res, obj.metadata.name ?? '', obj.metadata.namespace, 'apply', obj, {
          fieldManager: FIELD_MANAGER,
          force: true,
          dryRun: opts.dryRun,
        });
        console.log(`applied ${describe(obj)}${suffix}`);
      }
      return;
    }
    for (const obj of [...objects].reverse()) {
      if (obj.kind === 'CustomResourceDefinition' && !opts.crds) continue;
      if (opts.dryRun) {
        console.log(`would delete ${describe(obj)}`);
        continue;
      }
      try {
        await client.delete(resourceOf(obj), obj.metadata.name ?? '', obj.metadata.namespace, {
          propagationPolicy: 'Background',
        });
        console.log(`deleted ${describe(obj)}`);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  } finally {
    await client.close();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  });
}
