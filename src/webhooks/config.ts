// ValidatingWebhookConfiguration / MutatingWebhookConfiguration objects for the webhooks served
// by server.ts. config/webhook/*.yaml holds the same objects for the in-cluster Service
// (checked by a unit test). One configuration per webhook, named as upstream names them, so that
// applying ours replaces upstream's configurations in place instead of leaving them pointing at
// a Service that no longer answers.

import { WEBHOOKS, type WebhookDefinition } from './admission.ts';

export const WEBHOOK_SERVICE_NAME = 'agent-install-operator-webhook';
export const WEBHOOK_SERVICE_NAMESPACE = 'agent-install-operator';
export const WEBHOOK_SERVICE_PORT = 443;
export const WEBHOOK_CONTAINER_PORT = 9443;
export const WEBHOOK_TIMEOUT_SECONDS = 10;
/** OpenShift's service CA operator fills caBundle on configurations carrying this annotation. */
export const INJECT_CABUNDLE_ANNOTATION = 'service.beta.openshift.io/inject-cabundle';

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

export type WebhookClientTarget =
  | { service: { name: string; namespace: string; port?: number }; caBundle?: string }
  | { url: string; caBundle: string };

export interface WebhookConfigurationOptions {
  /** Where the API server sends reviews: the Service (default) or a base URL (tests, out-of-cluster). */
  target?: WebhookClientTarget;
  /** Appended to every configuration name, e.g. to register several copies in one cluster. */
  nameSuffix?: string;
  namespaceSelector?: LabelSelector;
  /** Default all webhooks. */
  webhooks?: readonly WebhookDefinition['name'][];
}

export interface WebhookClientConfig {
  service?: { name: string; namespace: string; path: string; port: number };
  url?: string;
  caBundle?: string;
}

export interface WebhookEntry {
  name: string;
  admissionReviewVersions: string[];
  clientConfig: WebhookClientConfig;
  rules: Array<{
    apiGroups: string[];
    apiVersions: string[];
    resources: string[];
    operations: string[];
    scope: 'Namespaced';
  }>;
  failurePolicy: 'Fail';
  matchPolicy: 'Equivalent';
  sideEffects: 'None';
  timeoutSeconds: number;
  namespaceSelector?: LabelSelector;
  reinvocationPolicy?: 'Never';
}

export interface WebhookConfiguration {
  apiVersion: 'admissionregistration.k8s.io/v1';
  kind: 'ValidatingWebhookConfiguration' | 'MutatingWebhookConfiguration';
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  webhooks: WebhookEntry[];
}

export const DEFAULT_WEBHOOK_TARGET: WebhookClientTarget = {
  service: { name: WEBHOOK_SERVICE_NAME, namespace: WEBHOOK_SERVICE_NAMESPACE, port: WEBHOOK_SERVICE_PORT },
};

function clientConfig(target: WebhookClientTarget, path: string): WebhookClientConfig {
  if ('url' in target) {
    return { url: target.url.replace(/\/+$/, '') + path, caBundle: target.caBundle };
  }
  const cc: WebhookClientConfig = {
    service: {
      name: target.service.name,
      namespace: target.service.namespace,
      path,
      port: target.service.port ?? WEBHOOK_SERVICE_PORT,
    },
  };
  if (target.caBundle) cc.caBundle = target.caBundle;
  return cc;
}

/** One configuration object per webhook, validating ones first. */
export function buildWebhookConfigurations(opts: WebhookConfigurationOptions = {}): WebhookConfiguration[] {
  const target = opts.target ?? DEFAULT_WEBHOOK_TARGET;
  const selected = WEBHOOKS.filter((w) => !opts.webhooks || opts.webhooks.includes(w.name));
  const ordered = [
    ...selected.filter((w) => w.type === 'validating'),
    ...selected.filter((w) => w.type === 'mutating'),
  ];
  return ordered.map((w) => {
    const entry: WebhookEntry = {
      name: w.webhookName,
      admissionReviewVersions: ['v1'],
      clientConfig: clientConfig(target, w.path),
      rules: [
        {
          apiGroups: [w.group],
          apiVersions: [w.version],
          resources: [w.resource],
          operations: ['CREATE', 'UPDATE'],
          scope: 'Namespaced',
        },
      ],
      failurePolicy: 'Fail',
      matchPolicy: 'Equivalent',
      sideEffects: 'None',
      timeoutSeconds: WEBHOOK_TIMEOUT_SECONDS,
    };
    if (opts.namespaceSelector) entry.namespaceSelector = opts.namespaceSelector;
    if (w.type === 'mutating') entry.reinvocationPolicy = 'Never';
    const metadata: WebhookConfiguration['metadata'] = {
      name: w.webhookName + (opts.nameSuffix ?? ''),
      labels: {
        'app.kubernetes.io/name': 'agent-install-operator',
        'app.kubernetes.io/component': 'webhook',
      },
    };
    if ('service' in target && !target.caBundle)
      metadata.annotations = { [INJECT_CABUNDLE_ANNOTATION]: 'true' };
    return {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: w.type === 'mutating' ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration',
      metadata,
      webhooks: [entry],
    };
  });
}
