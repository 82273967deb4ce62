// Agent spec fields the backend validates before it stores them (kubeapi.md §3.4.5): installer
// args, the ignition override and node labels. A value the backend would refuse is reported and
// not applied: the host keeps the value last applied, which the Agent keeps in status.backend.

import { validateIgnitionOverride } from '../core/ignition/override.ts';
import { labelKeyErrors, labelValueErrors } from '../core/labels.ts';

/** coreos-installer flags a user may pass (kubeapi.md §1.1 installerArgs). */
export const ALLOWED_INSTALLER_FLAGS = [
  '--append-karg',
  '--delete-karg',
  '-n',
  '--copy-network',
  '--network-dir',
  '--save-partlabel',
  '--save-partindex',
  '--image-url',
  '--image-file',
];

function parseInstallerArgs(text: string, host: string, infraEnvId: string): string[] | { error: string } {
  if (text === '') return [];
  const prefix = `Fail to unmarshal installer args for host ${host} in infraEnv ${infraEnvId}: `;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    return { error: prefix + (e as Error).message };
  }
  if (!Array.isArray(parsed) || parsed.some((a) => typeof a !== 'string')) {
    return { error: `${prefix}expected a JSON array of strings` };
  }
  return parsed as string[];
}

function unexpectedFlag(args: readonly string[]): string | undefined {
  for (const arg of args) {
    if (!arg.startsWith('-')) continue;
    const flag = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
    if (!ALLOWED_INSTALLER_FLAGS.includes(flag)) {
      return `found unexpected flag ${flag} for installer - allowed flags are [${ALLOWED_INSTALLER_FLAGS.join(' ')}]`;
    }
  }
  return undefined;
}

/** Upstream's installer-args checks that need no backend: JSON string array, allowed flags. */
export function installerArgsError(text: string, host: string, infraEnvId: string): string | undefined {
  const parsed = parseInstallerArgs(text, host, infraEnvId);
  return 'error' in parsed ? parsed.error : unexpectedFlag(parsed);
}

/**
 * The installer args the host holds: the spec re-encoded as a JSON array ("" gives `[]`) when it
 * differs from the applied value and is valid, otherwise the applied value.
 */
export function appliedInstallerArgs(
  spec: string | undefined,
  applied: string | undefined,
  host: string,
  infraEnvId: string,
): string | undefined {
  const text = spec ?? '';
  if (text === (applied ?? '')) return applied;
  const parsed = parseInstallerArgs(text, host, infraEnvId);
  if ('error' in parsed || unexpectedFlag(parsed)) return applied;
  return JSON.stringify(parsed);
}

/** The ignition override the host holds: the spec when valid ("" clears), else the applied one. */
export function appliedIgnitionOverride(
  spec: string | undefined,
  applied: string | undefined,
): string | undefined {
  if (validateIgnitionOverride(spec)) return applied;
  return spec ? spec : undefined;
}

/** Invalid Node label keys or values, the first in key order. */
export function nodeLabelsError(labels: Record<string, string> | undefined): string | undefined {
  for (const [key, value] of Object.entries(labels ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const keyErrs = labelKeyErrors(key);
    if (keyErrs.length > 0) return `invalid node label key ${JSON.stringify(key)}: ${keyErrs.join('; ')}`;
    const valueErrs = labelValueErrors(value);
    if (valueErrs.length > 0) {
      return `invalid node label value ${JSON.stringify(value)} for key ${JSON.stringify(key)}: ${valueErrs.join('; ')}`;
    }
  }
  return undefined;
}

/** The node labels the host holds: the spec set when every label is valid, else the applied set. */
export function appliedNodeLabels(
  spec: Record<string, string> | undefined,
  applied: Record<string, string> | undefined,
): Record<string, string> | undefined {
  if (nodeLabelsError(spec)) return applied;
  return spec && Object.keys(spec).length > 0 ? { ...spec } : undefined;
}
