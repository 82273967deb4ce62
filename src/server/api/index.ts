// The host-facing REST API (agent-api.md §0–§2): router, operations, wire models, backend contract.
export {
  type ApiLimits,
  type ApiReply,
  type ApiRoute,
  DEFAULT_LIMITS,
  defineRoute,
  type HandlerContext,
  mountApiRoute,
} from './api-route.ts';
export * from './backend.ts';
export * from './errors.ts';
export {
  PayloadTooLargeError,
  sendEmpty,
  sendError,
  sendFile,
  sendJson,
  sendMiddlewareError,
} from './http-io.ts';
export { findFilePart, MultipartError, multipartBoundary } from './multipart.ts';
export { isUuid, QueryReader } from './query.ts';
export { type RawHandler, type RouteMatch, type RouteParams, Router } from './router.ts';
export { ALL_API_ROUTES, type ApiServer, type ApiServerOptions, createApiServer } from './server.ts';
export {
  API_BASE_PATH,
  clusterToWire,
  hostHref,
  hostListOf,
  hostToWire,
  infraEnvToWire,
  nextStepRunnerCommand,
  operatorToWire,
} from './wire.ts';
