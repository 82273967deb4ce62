// The backend's check of one user-supplied cluster manifest (file name and content) when it is
// created, with upstream's messages. A rejection is a 400: the ClusterDeployment controller reports
// it as an InputError (kubeapi.md §3.1.7 step 4).

import { parseAllDocuments } from 'yaml';

/** etcd's request limit is 1.5 MiB; a ConfigMap made from a manifest allows 1 MiB. */
export const MAX_MANIFEST_BYTES = 1024 * 1024;

function extension(fileName: string): string {
  const base = fileName.slice(fileName.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot < 0 ? '' : base.slice(dot);
}

/** Go's yaml.v2 decodes the first document only: it must parse and be of the wanted shape (or empty). */
function yamlDocumentIs(content: string, shape: 'map' | 'seq'): boolean {
  const docs = parseAllDocuments(content, { uniqueKeys: false });
  if (!Array.isArray(docs)) return true;
  const doc = docs[0];
  if (!doc) return true;
  if (doc.errors.length > 0) return false;
  const value: unknown = doc.toJS();
  if (value === null || value === undefined) return true;
  return shape === 'map' ? typeof value === 'object' && !Array.isArray(value) : Array.isArray(value);
}

function isJson(content: string): boolean {
  try {
    JSON.parse(content);
    return true;
  } catch {
    return false;
  }
}

/** Why the backend refuses manifest `<folder>/<fileName>` of cluster `clusterId`, if it does. */
export function userManifestProblem(
  clusterId: string,
  folder: string,
  fileName: string,
  content: string,
): string | undefined {
  if (fileName.includes(' ')) {
    return `Cluster manifest ${fileName} for cluster ${clusterId} should not include a space in its name.`;
  }
  if (fileName.includes('/')) {
    return `Cluster manifest ${fileName} for cluster ${clusterId} should not include a directory in its name.`;
  }
  const path = `${folder}/${fileName}`;
  const file = `file ${path} for cluster ID ${clusterId}`;
  if (Buffer.byteLength(content) > MAX_MANIFEST_BYTES) {
    return `Manifest content of ${file} exceeds the maximum file size of 1MiB`;
  }
  const ext = extension(fileName);
  if (ext === '.yaml' || ext === '.yml') {
    return yamlDocumentIs(content, 'map')
      ? undefined
      : `Manifest content of ${file} has an invalid YAML format`;
  }
  if (ext === '.json') {
    return isJson(content) ? undefined : `Manifest content of ${file} has an illegal JSON format`;
  }
  if (ext.startsWith('.patch') && (fileName.includes('.yaml.patch') || fileName.includes('.yml.patch'))) {
    return yamlDocumentIs(content, 'seq') ? undefined : `Patch content of ${file} has an invalid YAML format`;
  }
  return `Manifest filename of ${file} is invalid. Only json, yaml and yml extensions are supported`;
}
