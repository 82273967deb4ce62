// AdmissionReview (admission.k8s.io/v1) handling: decode the review, run the validator or mutator
// of the webhook it was sent to, and build the response. Malformed reviews yield HTTP 400 with a
// plain error; well-formed reviews always yield HTTP 200 with a response echoing the request uid.
//
// Webhooks (the path of each is `/<name>`):
//   validate-agent                  agents                      CREATE, UPDATE
//   validate-agentclusterinstall    agentclusterinstalls        CREATE, UPDATE
//   validate-infraenv               infraenvs                   CREATE, UPDATE
//   validate-agentclassification    agentclassifications        CREATE, UPDATE
//   mutate-agentclusterinstall      agentclusterinstalls        CREATE, UPDATE (JSONPatch)

import type { ClusterDeployment } from '../api/clusterdeployment.ts';
import { AGENT_INSTALL_GROUP, HIVE_EXTENSIONS_GROUP } from '../api/common.ts';
import { validateAgent } from './agent.ts';
import { validateAgentClassification } from './agentclassification.ts';
import { mutateAgentClusterInstall, validateAgentClusterInstall } from './agentclusterinstall.ts';
import {
  INFRAENV_CLUSTER_DEPLOYMENT_TIMEOUT_MS,
  infraEnvClusterDeploymentToCheck,
  validateInfraEnv,
} from './infraenv.ts';
import {
  crossNamespaceTarget,
  type ResourceAttributes,
  referenceAttributes,
  referenceForbiddenMessage,
  referenceUncheckedMessage,
} from './references.ts';
import { type AdmissionResult, deny, isObject, type Operation } from './types.ts';

export const ADMISSION_API_VERSION = 'admission.k8s.io/v1';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export interface AdmissionRequest {
  uid: string;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource?: string;
  requestKind?: GroupVersionKind;
  requestResource?: GroupVersionResource;
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: string;
  userInfo?: UserInfo;
  object?: unknown;
  oldObject?: unknown;
  dryRun?: boolean;
  options?: unknown;
}

/** The requesting user, as the API server authenticated it (authentication.k8s.io/v1 UserInfo). */
export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** The authorizer's answer to a SubjectAccessReview. */
export interface AccessDecision {
  allowed: boolean;
  /** Why (the authorizer's reason or evaluation error), when it says. */
  reason?: string;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: { status?: 'Success' | 'Failure'; message?: string; reason?: string; code?: number };
  patch?: string;
  patchType?: 'JSONPatch';
  warnings?: string[];
}

export interface AdmissionReview {
  apiVersion: string;
  kind: 'AdmissionReview';
  request?: AdmissionRequest;
  response?: AdmissionResponse;
}

export type WebhookName =
  | 'validate-agent'
  | 'validate-agentclusterinstall'
  | 'validate-infraenv'
  | 'validate-agentclassification'
  | 'mutate-agentclusterinstall';

export interface WebhookDefinition {
  name: WebhookName;
  /** HTTP path the webhook is served on. */
  path: string;
  type: 'validating' | 'mutating';
  group: string;
  version: string;
  kind: string;
  resource: string;
  /** Name of the webhook (and of its configuration object), as upstream names them. */
  webhookName: string;
}

export const WEBHOOKS: readonly WebhookDefinition[] = [
  {
    name: 'validate-agent',
    path: '/validate-agent',
    type: 'validating',
    group: AGENT_INSTALL_GROUP,
    version: 'v1beta1',
    kind: 'Agent',
    resource: 'agents',
    webhookName: 'agentvalidators.admission.agentinstall.openshift.io',
  },
  {
    name: 'validate-agentclusterinstall',
    path: '/validate-agentclusterinstall',
    type: 'validating',
    group: HIVE_EXTENSIONS_GROUP,
    version: 'v1beta1',
    kind: 'AgentClusterInstall',
    resource: 'agentclusterinstalls',
    webhookName: 'agentclusterinstallvalidators.admission.agentinstall.openshift.io',
  },
  {
    name: 'validate-infraenv',
    path: '/validate-infraenv',
    type: 'validating',
    group: AGENT_INSTALL_GROUP,
    version: 'v1beta1',
    kind: 'InfraEnv',
    resource: 'infraenvs',
    webhookName: 'infraenvvalidators.admission.agentinstall.openshift.io',
  },
  {
    name: 'validate-agentclassification',
    path: '/validate-agentclassification',
    type: 'validating',
    group: AGENT_INSTALL_GROUP,
    version: 'v1beta1',
    kind: 'AgentClassification',
    resource: 'agentclassifications',
    webhookName: 'agentclassificationvalidators.admission.agentinstall.openshift.io',
  },
  {
    name: 'mutate-agentclusterinstall',
    path: '/mutate-agentclusterinstall',
    type: 'mutating',
    group: HIVE_EXTENSIONS_GROUP,
    version: 'v1beta1',
    kind: 'AgentClusterInstall',
    resource: 'agentclusterinstalls',
    webhookName: 'agentclusterinstallmutators.admission.agentinstall.openshift.io',
  },
];

export function webhookByPath(path: string): WebhookDefinition | undefined {
  return WEBHOOKS.find((w) => w.path === path);
}

export function webhookByName(name: WebhookName): WebhookDefinition {
  const w = WEBHOOKS.find((x) => x.name === name);
  if (!w) throw new Error(`unknown webhook ${name}`);
  return w;
}

/** The part of a ClusterDeployment the InfraEnv rule reads. */
export interface ClusterDeploymentInstalled {
  spec?: Pick<Partial<ClusterDeployment['spec']>, 'installed'>;
}

export interface AdmissionDependencies {
  /**
   * Reads a ClusterDeployment (InfraEnv osImageVersion rule); undefined when it does not exist.
   * Without it, that rule rejects (as a failed read does).
   */
  getClusterDeployment?: (
    namespace: string,
    name: string,
    signal: AbortSignal,
  ) => Promise<ClusterDeploymentInstalled | undefined>;
  /** Timeout for getClusterDeployment; default 5 s. */
  clusterDeploymentTimeoutMs?: number;
  /**
   * The operator's own user(s): its requests skip the rules that are stricter than upstream (they
   * must be able to write what upstream's controllers write) and the review of cross-namespace
   * references (its controllers only copy references that were admitted, or that
   * CROSS_NAMESPACE_REFERENCES allows).
   */
  relaxedUsers?: readonly string[];
  /**
   * Asks the API server whether `user` may do `attributes` (a SubjectAccessReview), for
   * cross-namespace references (references.ts). Without it, every such reference is refused.
   */
  reviewAccess?: (
    user: UserInfo,
    attributes: ResourceAttributes,
    signal: AbortSignal,
  ) => Promise<AccessDecision>;
  /** Timeout for reviewAccess; default 5 s. */
  reviewAccessTimeoutMs?: number;
  /** Called when a dependency fails (the request is still answered). */
  onError?: (err: unknown, what: string) => void;
}

export type AdmissionHttpResult = { status: 200; review: AdmissionReview } | { status: 400; error: string };

function badRequest(error: string): AdmissionHttpResult {
  return { status: 400, error };
}

function respond(apiVersion: string, response: AdmissionResponse): AdmissionHttpResult {
  return { status: 200, review: { apiVersion, kind: 'AdmissionReview', response } };
}

function fromResult(uid: string, result: AdmissionResult): AdmissionResponse {
  if (result.allowed) {
    return result.warnings?.length
      ? { uid, allowed: true, warnings: result.warnings }
      : { uid, allowed: true };
  }
  return {
    uid,
    allowed: false,
    status: {
      status: 'Failure',
      code: result.code,
      reason: result.code === 409 ? 'Conflict' : result.code === 403 ? 'Forbidden' : 'BadRequest',
      message: result.message,
    },
  };
}

function isGvk(v: unknown): v is GroupVersionKind {
  return (
    isObject(v) && typeof v.group === 'string' && typeof v.version === 'string' && typeof v.kind === 'string'
  );
}

/** Checks the envelope; returns the request or a reason why the body is not a usable review. */
function decode(body: unknown): { apiVersion: string; request: AdmissionRequest } | string {
  if (!isObject(body)) return 'request body must be a JSON object';
  if (body.kind !== 'AdmissionReview') return 'kind must be AdmissionReview';
  if (body.apiVersion !== ADMISSION_API_VERSION && body.apiVersion !== 'admission.k8s.io/v1beta1') {
    return `unsupported apiVersion ${JSON.stringify(body.apiVersion)}; expected ${ADMISSION_API_VERSION}`;
  }
  const req = body.request;
  if (!isObject(req)) return 'request is missing';
  if (typeof req.uid !== 'string' || req.uid === '') return 'request.uid is missing';
  if (typeof req.operation !== 'string' || req.operation === '') return 'request.operation is missing';
  if (!isGvk(req.kind)) return 'request.kind is missing';
  if (req.operation === 'CREATE' || req.operation === 'UPDATE') {
    if (!isObject(req.object)) return `request.object is required for ${req.operation}`;
    if (req.operation === 'UPDATE' && !isObject(req.oldObject))
      return 'request.oldObject is required for UPDATE';
  }
  return { apiVersion: body.apiVersion, request: req as unknown as AdmissionRequest };
}

async function withTimeout<T>(ms: number, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`timed out after ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([fn(controller.signal), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function clusterInstalled(
  ref: { namespace: string; name: string },
  deps: AdmissionDependencies,
): Promise<boolean> {
  const get = deps.getClusterDeployment;
  if (!get) return false;
  try {
    const cd = await withTimeout(
      deps.clusterDeploymentTimeoutMs ?? INFRAENV_CLUSTER_DEPLOYMENT_TIMEOUT_MS,
      (signal) => get(ref.namespace, ref.name, signal),
    );
    return cd?.spec?.installed === true;
  } catch (err) {
    deps.onError?.(err, `reading ClusterDeployment ${ref.namespace}/${ref.name}`);
    return false;
  }
}

type Obj = Record<string, unknown>;

/**
 * Admits a request that sets or changes a cross-namespace reference only when the requesting user
 * may act on the target (references.ts); fails closed when the review cannot be made.
 */
async function authorizeReference(
  kind: 'InfraEnv' | 'Agent',
  op: Operation,
  obj: Obj,
  old: Obj | undefined,
  req: AdmissionRequest,
  deps: AdmissionDependencies,
): Promise<AdmissionResult> {
  const namespace = req.namespace || String((obj.metadata as Obj | undefined)?.namespace ?? '');
  const target = crossNamespaceTarget(kind, op, namespace, obj, old);
  if (!target) return { allowed: true };
  const user = req.userInfo ?? {};
  if (deps.relaxedUsers?.includes(user.username ?? '')) return { allowed: true };
  const review = deps.reviewAccess;
  if (!review) return deny(referenceUncheckedMessage(target, 'no access reviewer is configured'), 403);
  try {
    const decision = await withTimeout(
      deps.reviewAccessTimeoutMs ?? INFRAENV_CLUSTER_DEPLOYMENT_TIMEOUT_MS,
      (s) => review(user, referenceAttributes(target), s),
    );
    if (decision.allowed) return { allowed: true };
    return deny(referenceForbiddenMessage(target, user.username ?? '', decision.reason), 403);
  } catch (err) {
    deps.onError?.(err, `reviewing access to ClusterDeployment ${target.namespace}/${target.name}`);
    return deny(referenceUncheckedMessage(target, String(err)), 403);
  }
}

async function validate(
  hook: WebhookDefinition,
  op: Operation,
  obj: Obj,
  old: Obj | undefined,
  req: AdmissionRequest,
  deps: AdmissionDependencies,
): Promise<AdmissionResult> {
  switch (hook.name) {
    case 'validate-agent': {
      const strict = !deps.relaxedUsers?.includes(req.userInfo?.username ?? '');
      const result = validateAgent(op, obj, old, { strict });
      return result.allowed ? authorizeReference('Agent', op, obj, old, req, deps) : result;
    }
    case 'validate-agentclusterinstall':
      return validateAgentClusterInstall(op, obj, old);
    case 'validate-infraenv': {
      const ref = infraEnvClusterDeploymentToCheck(op, obj, old);
      // The ClusterDeployment is the InfraEnv's clusterRef, which names its namespace.
      const installed = ref ? await clusterInstalled(ref, deps) : undefined;
      const result = validateInfraEnv(op, obj, old, { clusterInstalled: installed });
      return result.allowed ? authorizeReference('InfraEnv', op, obj, old, req, deps) : result;
    }
    case 'validate-agentclassification':
      return validateAgentClassification(op, obj, old);
    default:
      return { allowed: true };
  }
}

/**
 * Answers one AdmissionReview sent to `webhook`. Operations other than CREATE and UPDATE, and
 * subresource requests, are allowed untouched.
 */
export async function handleAdmissionReview(
  body: unknown,
  webhook: WebhookName | WebhookDefinition,
  deps: AdmissionDependencies = {},
): Promise<AdmissionHttpResult> {
  const hook = typeof webhook === 'string' ? webhookByName(webhook) : webhook;
  const decoded = decode(body);
  if (typeof decoded === 'string') return badRequest(decoded);
  const { apiVersion, request: req } = decoded;
  const uid = req.uid;

  if (req.kind.group !== hook.group || req.kind.kind !== hook.kind) {
    return respond(apiVersion, {
      uid,
      allowed: false,
      status: {
        status: 'Failure',
        code: 400,
        reason: 'BadRequest',
        message: `webhook ${hook.path} handles ${hook.kind}.${hook.group}, not ${req.kind.kind}.${req.kind.group}`,
      },
    });
  }
  if ((req.operation !== 'CREATE' && req.operation !== 'UPDATE') || req.subResource) {
    return respond(apiVersion, { uid, allowed: true });
  }
  const op: Operation = req.operation;
  const obj = req.object as Obj;
  const old = op === 'UPDATE' ? (req.oldObject as Obj) : undefined;

  if (hook.type === 'mutating') {
    const patch = mutateAgentClusterInstall(op, obj);
    if (patch.length === 0) return respond(apiVersion, { uid, allowed: true });
    return respond(apiVersion, {
      uid,
      allowed: true,
      patchType: 'JSONPatch',
      patch: Buffer.from(JSON.stringify(patch)).toString('base64'),
    });
  }
  try {
    return respond(apiVersion, fromResult(uid, await validate(hook, op, obj, old, req, deps)));
  } catch (err) {
    // A validator bug must not take the server down; failurePolicy Fail keeps the object out.
    deps.onError?.(err, `validating ${hook.kind} ${req.namespace ?? ''}/${req.name ?? ''}`);
    return respond(apiVersion, {
      uid,
      allowed: false,
      status: {
        status: 'Failure',
        code: 500,
        reason: 'InternalError',
        message: `internal error: ${String(err)}`,
      },
    });
  }
}
