// Error bodies (agent-api.md §0.5). The Go clients decode an error body by its status code:
// 401 and 403 are `infra_error` {"code": <int>, "message"}, every other status is `error`
// {"kind":"Error","id":<int>,"code":"<string>","href":"","reason"}. A body of the wrong shape
// turns a typed answer (e.g. the 404 that freezes the runner) into a decode error and a retry.

/** A failure the router turns into an error response. */
export interface ApiError {
  readonly status: number;
  /** Human-readable cause; becomes `reason` (or `message` for 401/403). */
  readonly reason: string;
  /** The `error` shape's string `code`; defaults to the status as text. */
  readonly code?: string;
}

export interface InfraErrorBody {
  code: number;
  message: string;
}

export interface ErrorBody {
  kind: 'Error';
  id: number;
  code: string;
  href: string;
  reason: string;
}

export function infraErrorBody(status: number, message: string): InfraErrorBody {
  return { code: status, message };
}

export function errorBody(status: number, reason: string, code?: string): ErrorBody {
  return { kind: 'Error', id: status, code: code ?? String(status), href: '', reason };
}

/** The declared body for a handler-level error of `status`. */
export function bodyForStatus(error: ApiError): InfraErrorBody | ErrorBody {
  return error.status === 401 || error.status === 403
    ? infraErrorBody(error.status, error.reason)
    : errorBody(error.status, error.reason, error.code);
}

/**
 * Bodies for refusals made before any handler runs (authentication, unknown path or method).
 * Upstream sends these through go-openapi's ServeError, which always uses {"code","message"} —
 * which is also why an agent that reaches a wrong URL retries instead of freezing on a typed 404.
 * 503 keeps the declared `error` shape so the Go clients' retry on 503 reads it cleanly.
 */
export function middlewareErrorBody(status: number, message: string): InfraErrorBody | ErrorBody {
  return status === 503 ? errorBody(status, message) : infraErrorBody(status, message);
}

export function apiError(status: number, reason: string, code?: string): ApiError {
  return code === undefined ? { status, reason } : { status, reason, code };
}
