// Operator settings beyond the controller runtime's (src/runtime/config.ts): where hosts reach us,
// where data lives, which optional flows run. Flags win over environment variables; every default
// says where it comes from. `describeOperatorConfig()` feeds docs/configuration.md.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { parseGoDuration } from '../core/statemachine/durations.ts';
import {
  ConfigError,
  describeSettings,
  loadRuntimeConfig,
  loadSettings,
  type RuntimeConfig,
  type Setting,
} from '../runtime/index.ts';

const bool = z.union([
  z.boolean(),
  z.enum(['true', 'false', '1', '0']).transform((s) => s === 'true' || s === '1'),
]);
const url = z.url().transform((s) => s.replace(/\/+$/, ''));
const port = z.coerce.number().int().min(0).max(65535);
/** A Go duration ("1m", "90s", "1m30s"), as upstream's environment variables take them; in ms. */
const goDuration = z.union([
  z.number().nonnegative(),
  z.string().transform((s, c) => {
    const ms = parseGoDuration(s);
    if (ms === undefined || ms < 0) {
      c.addIssue({ code: 'custom', message: 'expected a duration such as 30s, 1m, 1m30s' });
      return z.NEVER;
    }
    return ms;
  }),
]);

export const operatorSettings = {
  serviceBaseUrl: {
    flag: 'service-base-url',
    env: 'SERVICE_BASE_URL',
    schema: url,
    default: undefined,
    source:
      'assisted-service SERVICE_BASE_URL; when unset, the address of the Route, Ingress or Service named below (docs/operations.md), else http://<api-bind-host>:<api-port>',
    description: 'Base URL hosts use to reach the REST API (written into the discovery image and status).',
  },
  imageServiceBaseUrl: {
    flag: 'image-service-base-url',
    env: 'IMAGE_SERVICE_BASE_URL',
    schema: url,
    default: undefined,
    source: 'assisted-service IMAGE_SERVICE_BASE_URL; when unset, the service base URL (one server here)',
    description: 'Base URL of the image service (ISO, iPXE, boot artifacts).',
  },
  apiRouteName: {
    flag: 'api-route-name',
    env: 'API_ROUTE_NAME',
    schema: z.string().min(1),
    default: 'agent-install-operator-api',
    source: 'config/openshift/route.yaml',
    description:
      'OpenShift Route (operator namespace) whose host is the base URL when SERVICE_BASE_URL is unset; first choice.',
  },
  apiIngressName: {
    flag: 'api-ingress-name',
    env: 'API_INGRESS_NAME',
    schema: z.string().min(1),
    default: 'agent-install-operator-api',
    source: 'config/ingress/ingress.yaml',
    description:
      'Ingress (operator namespace) whose first host is the base URL when there is no usable Route.',
  },
  apiServiceName: {
    flag: 'api-service-name',
    env: 'API_SERVICE_NAME',
    schema: z.string().min(1),
    default: 'agent-install-operator-api',
    source: 'config/manager/service.yaml',
    description:
      'Service (operator namespace) in front of the REST API; its load-balancer address, else its cluster DNS name, is the base URL when there is no usable Route or Ingress.',
  },
  apiBindHost: {
    flag: 'api-bind-host',
    env: 'API_BIND_HOST',
    schema: z.string().min(1),
    default: '0.0.0.0',
    source: 'all interfaces, so hosts outside the hub can connect',
    description: 'Address the REST API and image service listen on.',
  },
  apiPort: {
    flag: 'api-port',
    env: 'API_PORT',
    schema: port,
    default: 8090,
    source: 'assisted-service listens on 8090',
    description: 'Port of the REST API and image service (0 picks a free port).',
  },
  webhookPort: {
    flag: 'webhook-port',
    env: 'WEBHOOK_PORT',
    schema: port,
    default: 0,
    source: 'off unless set (9443 in the Deployment, the controller-runtime default)',
    description: 'Port of the admission webhook server (HTTPS); 0 disables it.',
  },
  webhookCertDir: {
    flag: 'webhook-cert-dir',
    env: 'WEBHOOK_CERT_DIR',
    schema: z.string(),
    default: '/tmp/k8s-webhook-server/serving-certs',
    source: 'controller-runtime webhook default',
    description: 'Directory with tls.crt and tls.key for the webhook server.',
  },
  crossNamespaceReferences: {
    flag: 'cross-namespace-references',
    env: 'CROSS_NAMESPACE_REFERENCES',
    schema: z.enum(['webhook', 'refuse', 'allow']),
    default: undefined,
    source:
      "project choice (issue 13): 'webhook' when the webhook server runs (WEBHOOK_PORT > 0), else 'refuse'",
    description:
      "References to a ClusterDeployment in another namespace (InfraEnv clusterRef, Agent clusterDeploymentName, BareMetalHost cluster-reference annotation). 'webhook': honoured for InfraEnvs and Agents, whose admission webhooks admit only users who may update the target; refused from BareMetalHost annotations. 'refuse': always refused (a condition or event says why). 'allow': always honoured, unchecked (trusted single-team hubs). See docs/operations.md, Multi-tenancy.",
  },
  dataDir: {
    flag: 'data-dir',
    env: 'DATA_DIR',
    schema: z.string().min(1),
    default: join(tmpdir(), 'agent-install-operator'),
    source: 'a temp dir locally; the Deployment mounts a PVC at /data',
    description: 'Base images, generated install files and uploaded logs.',
  },
  authKeysSecretName: {
    flag: 'auth-keys-secret',
    env: 'AUTH_KEYS_SECRET',
    schema: z.string().min(1),
    default: 'agent-install-local-auth-key',
    source: 'project choice (upstream: assisted-installer-local-auth-key)',
    description: 'Secret in the operator namespace holding the ES256 key pair for tokens.',
  },
  allowConvergedFlow: {
    flag: 'allow-converged-flow',
    env: 'ALLOW_CONVERGED_FLOW',
    schema: bool,
    default: true,
    source: 'assisted-service ALLOW_CONVERGED_FLOW default',
    description: 'Use the PreprovisioningImage (converged) flow with metal3.',
  },
  pauseProvisionedBmhs: {
    flag: 'pause-provisioned-bmhs',
    env: 'PAUSE_PROVISIONED_BMHS',
    schema: bool,
    default: true,
    source: 'assisted-service PAUSE_PROVISIONED_BMHS default',
    description:
      'Pause BareMetalHosts that metal3 reports detached and keep their status in the baremetalhost.metal3.io/status annotation (so a hub can hand them to another).',
  },
  imageCoolDownMs: {
    flag: 'bmac-image-cooldown-ms',
    env: 'BMAC_IMAGE_COOLDOWN_MS',
    // A Go duration like the other duration settings, or a bare number of milliseconds.
    schema: z.union([goDuration, z.coerce.number().int().nonnegative()]),
    default: 60_000,
    source: 'assisted-service 60 s InfraEnv image cool-down (kubeapi.md §5 "Constants"); tests shorten it',
    description:
      "How long an InfraEnv's image (status.createdTime) must age before the BareMetalHost and PreprovisioningImage controllers boot a host from it, so a burst of InfraEnv edits does not reboot hosts once per edit. A Go duration, or a bare number of milliseconds.",
  },
  ironicBaseUrl: {
    flag: 'ironic-base-url',
    env: 'IRONIC_BASE_URL',
    schema: z.string(),
    default: '',
    source:
      'assisted-service reads it from the hub metal3-image-customization-config Secret or the Provisioning CR; here the ICC Secret when present (ICC_SECRET_*), else this setting',
    description:
      'Ironic API URL(s) the ironic agent in converged-flow images calls back to; two URLs of different IP families (primary first) make a dual-stack hub. Required for the converged flow.',
  },
  ironicInspectorBaseUrl: {
    flag: 'ironic-inspector-base-url',
    env: 'IRONIC_INSPECTOR_BASE_URL',
    schema: z.string(),
    default: '',
    source: 'assisted-service IRONIC_INSPECTOR_BASE_URL (optional)',
    description: 'Ironic inspector URL(s); empty: the ironic URL.',
  },
  ironicAgentImage: {
    flag: 'ironic-agent-image',
    env: 'IRONIC_AGENT_IMAGE',
    schema: z.string(),
    default: '',
    source: "assisted-service IRONIC_AGENT_IMAGE; empty: upstream's last-resort x86_64 image",
    description:
      'Ironic agent image for x86_64 infra-envs (the InfraEnv annotation ironic-agent-image-override wins).',
  },
  ironicAgentImageArm: {
    flag: 'ironic-agent-image-arm',
    env: 'IRONIC_AGENT_IMAGE_ARM',
    schema: z.string(),
    default: '',
    source: "assisted-service IRONIC_AGENT_IMAGE_ARM; empty: upstream's last-resort arm64 image",
    description: 'Ironic agent image for arm64 infra-envs.',
  },
  iccSecretNamespace: {
    flag: 'icc-secret-namespace',
    env: 'ICC_SECRET_NAMESPACE',
    schema: z.string().min(1),
    default: 'openshift-machine-api',
    source: 'assisted-service reads metal3-image-customization-config in openshift-machine-api',
    description:
      'Namespace of the hub image-customization Secret whose IRONIC_BASE_URL, IRONIC_INSPECTOR_BASE_URL and IRONIC_AGENT_IMAGE win over the ironic settings.',
  },
  iccSecretName: {
    flag: 'icc-secret-name',
    env: 'ICC_SECRET_NAME',
    schema: z.string().min(1),
    default: 'metal3-image-customization-config',
    source: 'assisted-service metal3-image-customization-config',
    description:
      'Name of the hub image-customization Secret (read live, at most every 10 minutes; absent is fine).',
  },
  approveCsrsRequeueMs: {
    flag: 'approve-csrs-requeue-duration',
    env: 'APPROVE_CSRS_REQUEUE_DURATION',
    schema: goDuration,
    default: 60_000,
    source: 'assisted-service APPROVE_CSRS_REQUEUE_DURATION default (1m)',
    description:
      "How often a day-2 Agent whose host rebooted looks at its spoke again (CSR approval, the Node's Ready condition) until its stage is Done.",
  },
  agentImage: {
    flag: 'agent-image',
    env: 'AGENT_DOCKER_IMAGE',
    schema: z.string().min(1),
    default: 'quay.io/edge-infrastructure/assisted-installer-agent:latest',
    source: 'assisted-service AGENT_DOCKER_IMAGE',
    description: 'Agent image written into the discovery ignition.',
  },
  serviceCaCertPath: {
    flag: 'service-ca-cert-path',
    env: 'SERVICE_CA_CERT_PATH',
    schema: z.string(),
    default: undefined,
    source: 'assisted-service SERVICE_CA_CERT_PATH (default empty: no CA)',
    description:
      "PEM file of the CA that signs the service base URL's certificate; reclaim puts it on the spoke (ConfigMap reclaim-config) and the runner gets --cacert. Read on the first reclaim; empty: none.",
  },
  installerImage: {
    flag: 'installer-image',
    env: 'INSTALLER_IMAGE',
    schema: z.string().min(1),
    default: 'quay.io/edge-infrastructure/assisted-installer:latest',
    source: 'assisted-service INSTALLER_IMAGE',
    description: 'Installer image handed to hosts in the install step.',
  },
  controllerImage: {
    flag: 'controller-image',
    env: 'CONTROLLER_IMAGE',
    schema: z.string().min(1),
    default: 'quay.io/edge-infrastructure/assisted-installer-controller:latest',
    source: 'assisted-service CONTROLLER_IMAGE',
    description: 'assisted-installer-controller image deployed into new clusters.',
  },
  artifactBackend: {
    flag: 'artifact-backend',
    env: 'ARTIFACT_BACKEND',
    schema: z.enum(['builtin', 'openshift-install']),
    default: 'builtin',
    source: 'project choice: built-in generator until an openshift-install runner is configured',
    description: 'How install artifacts are produced.',
  },
} satisfies Record<string, Setting>;

export type OperatorSettings = {
  /** Set explicitly (flag or environment); undefined: discovered, see src/operator/external-url.ts. */
  serviceBaseUrl: string | undefined;
  /** Set explicitly; undefined: the service base URL. */
  imageServiceBaseUrl: string | undefined;
  apiRouteName: string;
  apiIngressName: string;
  apiServiceName: string;
  apiBindHost: string;
  apiPort: number;
  webhookPort: number;
  webhookCertDir: string;
  /** Unset: 'webhook' when webhookPort > 0, else 'refuse' (src/records/references.ts). */
  crossNamespaceReferences: 'webhook' | 'refuse' | 'allow' | undefined;
  dataDir: string;
  authKeysSecretName: string;
  allowConvergedFlow: boolean;
  pauseProvisionedBmhs: boolean;
  imageCoolDownMs: number;
  ironicBaseUrl: string;
  ironicInspectorBaseUrl: string;
  ironicAgentImage: string;
  ironicAgentImageArm: string;
  iccSecretNamespace: string;
  iccSecretName: string;
  approveCsrsRequeueMs: number;
  agentImage: string;
  /** Unset or empty: no service CA for the reclaim runner. */
  serviceCaCertPath: string | undefined;
  installerImage: string;
  controllerImage: string;
  artifactBackend: 'builtin' | 'openshift-install';
};

export interface OperatorConfig {
  runtime: RuntimeConfig;
  operator: OperatorSettings;
}

export function loadOperatorConfig(
  argv: readonly string[] = process.argv.slice(2),
  env: Record<string, string | undefined> = process.env,
): OperatorConfig {
  const runtime = loadRuntimeConfig(argv, env);
  const { values: out, problems } = loadSettings(operatorSettings, argv, env, { firstIssueOnly: true });
  if (problems.length) throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  return { runtime, operator: out as OperatorSettings };
}

/**
 * The base URL when none is set or discovered: the REST server's own address (loopback when it
 * listens on every interface), right for a local run and for hosts on the same machine.
 */
export function listenBaseUrl(settings: Pick<OperatorSettings, 'apiBindHost' | 'apiPort'>): string {
  const host = settings.apiBindHost === '0.0.0.0' ? '127.0.0.1' : settings.apiBindHost;
  return `http://${host}:${settings.apiPort}`;
}

export function describeOperatorConfig(): string {
  return describeSettings(operatorSettings);
}
