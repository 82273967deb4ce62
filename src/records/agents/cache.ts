// What the Agent cache keeps of the two large backup annotations (issue 16). The raw inventory and
// validations-info annotations are second copies of what the status holds, read only to rebuild a
// host whose Agent lost its status (a restore from backup), and compared to decide whether the
// metadata patch must rewrite them. A cached Agent that has a host state keeps a digest of each in
// their place: 6-20 KiB per Agent less memory, and the comparison still exact. An Agent without a
// state keeps them whole, for the restore to read. The cache's copies are never stored: the
// metadata patch sends only the keys it changes, a takeover builds on the live Agent, and a status
// write's metadata is ignored by the API server (the status subresource takes only the status).

import { createHash } from 'node:crypto';
import type { Agent } from '../../api/index.ts';
import { AGENT_INVENTORY_ANNOTATION, AGENT_VALIDATIONS_INFO_ANNOTATION } from '../../api/index.ts';
import { internStrings, type KubeObject, stripForCache } from '../../runtime/index.ts';

/** Backup annotations the cache holds as digests once the Agent has a host state. */
export const DIGESTED_BACKUP_ANNOTATIONS: readonly string[] = [
  AGENT_INVENTORY_ANNOTATION,
  AGENT_VALIDATIONS_INFO_ANNOTATION,
];

/** Both annotations hold JSON objects, so no real value starts with this. */
const DIGEST_PREFIX = 'cached-sha256:';

/** What the cache keeps in place of a backup annotation's value. */
export function backupDigest(value: string): string {
  return DIGEST_PREFIX + createHash('sha256').update(value).digest('base64url');
}

export function isBackupDigest(value: string | undefined): boolean {
  return value?.startsWith(DIGEST_PREFIX) === true;
}

/** Whether an annotation value as cached (`have`) is `want`, whole or as its digest. */
export function sameAnnotationValue(key: string, have: string | undefined, want: string): boolean {
  if (have === want) return true;
  return isBackupDigest(have) && DIGESTED_BACKUP_ANNOTATIONS.includes(key) && have === backupDigest(want);
}

/** An Agent with a host state: nothing to restore from its backup annotations. */
export function hasHostState(agent: Pick<Agent, 'status'>): boolean {
  return !!agent.status?.debugInfo?.state;
}

/**
 * The Agent informer's transform: compactForCache's two steps with the digests between them, so a
 * backup value the digest replaces is never looked up in, or added to, the string pool.
 */
export function agentForCache(obj: KubeObject): KubeObject {
  const agent = stripForCache(obj) as unknown as Agent;
  const annotations = agent.metadata.annotations;
  if (annotations && hasHostState(agent)) {
    for (const key of DIGESTED_BACKUP_ANNOTATIONS) {
      const value = annotations[key];
      if (value !== undefined && !isBackupDigest(value)) annotations[key] = backupDigest(value);
    }
  }
  return internStrings(obj);
}
