// Local authentication for the host-facing REST API (agent-api.md §7).
export {
  apiKeyOf,
  DEFAULT_REISSUE_BEFORE_SECONDS,
  DEFAULT_URL_TOKEN_TTL_SECONDS,
  goEncodeQuery,
  goQueryEscape,
  needsReissue,
  redactCredentialPath,
  withApiKey,
} from './download-urls.ts';
export {
  AGENT_CLUSTER_DOWNLOADS,
  type AgentDownloadRequest,
  agentClusterDownload,
  CLUSTER_INSTALL_STATES,
  type ClusterDownloadRoute,
  type DownloadDecision,
  HOST_INSTALL_STATES,
} from './host-downloads.ts';
export { base64url, type JwtClaims, type JwtVerification, signJwt, verifyJwt } from './jwt.ts';
export {
  generateKeyPairPem,
  importKeyPair,
  type KeyPairPem,
  type KeyStore,
  loadOrCreateKeys,
  type SigningKeys,
} from './keys.ts';
export {
  type IssuedUrl,
  LocalAuth,
  type LocalAuthOptions,
  OBJECT_NOT_FOUND,
  UNAUTHENTICATED,
} from './local-auth.ts';
export { MemoryKeyStore } from './memory-key-store.ts';
export {
  CLUSTER_CLAIM,
  INFRA_ENV_CLAIM,
  peekClaims,
  subjectOf,
  TOKEN_GENERATION_CLAIM,
  tokenGenerationClaim,
  URL_KIND_CLAIM,
} from './tokens.ts';
export * from './types.ts';
