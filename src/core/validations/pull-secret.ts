// The backend's pull-secret format check (the docker config JSON a cluster is registered or updated
// with): an `auths` object whose every entry carries an `auth` that is base64 of `user:password`.
// Messages are upstream's. The secret itself never appears in one: a non-string `auth` is shown
// only when it is a plain scalar (upstream prints any value).

const USER_PASSWORD_SEPARATOR = ':';

/** Go's json matches struct fields exactly first, then case-insensitively. */
function authsField(doc: Record<string, unknown>): unknown {
  if ('auths' in doc) return doc.auths;
  const key = Object.keys(doc).find((k) => k.toLowerCase() === 'auths');
  return key === undefined ? undefined : doc[key];
}

/** Go's standard base64 decoding (padding required; line breaks ignored), or undefined. */
function decodeStdBase64(text: string): string | undefined {
  const s = text.replace(/[\r\n]/g, '');
  if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s)) {
    return undefined;
  }
  return Buffer.from(s, 'base64').toString('latin1');
}

/** How Go's %v prints a decoded JSON scalar; structures are not shown. */
function goScalar(value: unknown): string {
  if (value === null) return '<nil>';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return Array.isArray(value) ? '[...]' : 'map[...]';
}

function entryProblem(registry: string, entry: unknown): string | undefined {
  const fields = (entry ?? {}) as Record<string, unknown>;
  const hasAuth = 'auth' in fields;
  if (!hasAuth && !('credsStore' in fields)) {
    return `invalid pull secret: ${JSON.stringify(registry)} JSON-object requires either 'auth' or 'credsStore' field`;
  }
  const auth = fields.auth;
  if (hasAuth && typeof auth !== 'string') {
    return `invalid pull secret: 'auth' field of ${JSON.stringify(registry)} is ${goScalar(auth)} but should be a string`;
  }
  const decoded = decodeStdBase64(typeof auth === 'string' ? auth : '');
  if (decoded === undefined) {
    return `invalid pull secret: 'auth' field of ${JSON.stringify(registry)} is not base64-encoded`;
  }
  if (!decoded.includes(USER_PASSWORD_SEPARATOR)) {
    return `invalid pull secret: 'auth' for ${registry} is not in 'user:password' format`;
  }
  return undefined;
}

/** Why the docker config JSON is not a valid pull secret, or undefined when it is. */
export function pullSecretProblem(text: string): string | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(text.trim());
  } catch {
    return 'pull secret must be a well-formed JSON';
  }
  // Go decodes into {auths: map[string]map[string]any}: any other shape is a decode error.
  if (doc !== null && (typeof doc !== 'object' || Array.isArray(doc))) {
    return 'pull secret must be a well-formed JSON';
  }
  const auths = doc === null ? undefined : authsField(doc as Record<string, unknown>);
  if (auths !== undefined && auths !== null && (typeof auths !== 'object' || Array.isArray(auths))) {
    return 'pull secret must be a well-formed JSON';
  }
  const entries = Object.entries((auths ?? {}) as Record<string, unknown>);
  if (entries.some(([, e]) => e !== null && (typeof e !== 'object' || Array.isArray(e)))) {
    return 'pull secret must be a well-formed JSON';
  }
  if (entries.length === 0) return "pull secret must contain 'auths' JSON-object field";
  for (const [registry, entry] of entries) {
    const problem = entryProblem(registry, entry);
    if (problem) return problem;
  }
  return undefined;
}
