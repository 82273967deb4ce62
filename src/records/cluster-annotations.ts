// ACI and ClusterDeployment annotations that feed the cluster record (kubeapi.md §3.1.6, §4.3, §4.4).

import {
  type AgentClusterInstall,
  type ClusterDeployment,
  HIVE_RECONCILE_PAUSE_ANNOTATION,
  type IGNORED_CLUSTER_VALIDATIONS_ANNOTATION,
  type IGNORED_HOST_VALIDATIONS_ANNOTATION,
  INSTALL_CONFIG_OVERRIDES_ANNOTATION,
} from '../api/index.ts';

/** Go strconv.ParseBool: which strings read as true. */
const GO_TRUE = ['1', 't', 'T', 'TRUE', 'true', 'True'];

/** Installation is held: ACI holdInstallation, or the CD's Hive reconcile-pause annotation is true. */
export function isInstallationHeld(cd: ClusterDeployment, aci: AgentClusterInstall): boolean {
  const pause = cd.metadata.annotations?.[HIVE_RECONCILE_PAUSE_ANNOTATION];
  return aci.spec.holdInstallation === true || (pause !== undefined && GO_TRUE.includes(pause));
}

export type AnnotationResult =
  | { value: string | undefined; error?: undefined }
  | { value?: undefined; error: string };

/**
 * An ignored-validations annotation as the backend stores it: absent → undefined (service
 * defaults apply), present → a JSON list of trimmed, de-duplicated ids (empty → "[]").
 */
export function ignoredValidationsFromAnnotation(
  aci: AgentClusterInstall,
  annotation: typeof IGNORED_CLUSTER_VALIDATIONS_ANNOTATION | typeof IGNORED_HOST_VALIDATIONS_ANNOTATION,
): AnnotationResult {
  const raw = aci.metadata.annotations?.[annotation];
  if (raw === undefined) return { value: undefined };
  if (raw.trim() === '') return { value: '[]' };
  const ids: string[] = [];
  for (const item of raw.split(',')) {
    const id = item.trim();
    if (id === '') {
      return {
        error: `Failed to parse '${annotation}' annotation: annotation "${annotation}": failed to parse comma-separated validation IDs: empty ignored validation ID found in '${raw}'`,
      };
    }
    if (!ids.includes(id)) ids.push(id);
  }
  return { value: JSON.stringify(ids) };
}

/** The install-config overrides annotation; it must be a JSON object (a merge patch). */
export function installConfigOverridesFromAnnotation(aci: AgentClusterInstall): AnnotationResult {
  const raw = aci.metadata.annotations?.[INSTALL_CONFIG_OVERRIDES_ANNOTATION];
  if (raw === undefined || raw === '') return { value: undefined };
  const prefix = `Failed to parse '${INSTALL_CONFIG_OVERRIDES_ANNOTATION}' annotation: `;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (e) {
    return { error: prefix + (e as Error).message };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { error: `${prefix}install-config overrides must be a JSON object` };
  }
  return { value: raw };
}
