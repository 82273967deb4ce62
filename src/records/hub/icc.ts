// The hub's image-customization config Secret (kubeapi.md §3.7.1): on an OpenShift hub the metal3
// image-customization controller publishes the ironic URLs and the ironic agent image in Secret
// openshift-machine-api/metal3-image-customization-config (ICC_SECRET_NAMESPACE / ICC_SECRET_NAME).
// When it exists and is complete (IRONIC_BASE_URL and IRONIC_AGENT_IMAGE set), its URLs replace
// the IRONIC_* URL settings as a whole (an ICC Secret without IRONIC_INSPECTOR_BASE_URL means "the
// ironic URL", not the setting), and its image is the ironic image for an infra-env whose
// architecture the image's manifest lists (registry lookup, release-image.ts).
//
// Cheap to consult on every reconcile: the Secret is read live (no watch, no label added to a
// Secret in a namespace the operator does not own) at most once per `recheckMs` (default 10 min)
// per operator context; a missing Secret is the normal case on plain Kubernetes. The architecture
// list of an image is kept once found (ICC images are digests); a failed lookup is logged once and
// retried after `recheckMs`. Nothing here throws: no answer means "use the next source".

import { ociArchitecture } from '../../core/release/registry.ts';
import type { KubeObject } from '../../runtime/index.ts';
import { perObject, WarnOnce } from '../../util/per-object.ts';
import type { OperatorContext } from '../context.ts';
import { SECRET } from '../resources.ts';
import { pullSecretOf } from '../views.ts';
import { imageArchitectures, type RegistryOptions } from './release-image.ts';

export interface IccConfig {
  ironicBaseUrl: string;
  ironicInspectorBaseUrl: string;
  ironicAgentImage: string;
}

/** The config in an ICC Secret's decoded data, or why it is unusable. */
export function parseIccData(
  data: Record<string, string>,
): { ok: true; config: IccConfig } | { ok: false; error: string } {
  const get = (k: string) => (data[k] ?? '').trim();
  const missing = ['IRONIC_BASE_URL', 'IRONIC_AGENT_IMAGE'].filter((k) => !get(k));
  if (missing.length) return { ok: false, error: `missing ${missing.join(', ')}` };
  return {
    ok: true,
    config: {
      ironicBaseUrl: get('IRONIC_BASE_URL'),
      ironicInspectorBaseUrl: get('IRONIC_INSPECTOR_BASE_URL'),
      ironicAgentImage: get('IRONIC_AGENT_IMAGE'),
    },
  };
}

export interface IccOptions extends RegistryOptions {
  /** How long a Secret read or a failed architecture lookup is kept. Default 10 min. */
  recheckMs?: number;
  /** Lists an image's architectures; default imageArchitectures (tests swap it). */
  architectures?: (image: string, opts: RegistryOptions) => Promise<string[]>;
}

interface Timed<T> {
  at: number;
  value: Promise<T>;
}

/** Per operator context: the ICC Secret's config and the architectures of its image. */
export class IccSecret {
  private readonly ctx: OperatorContext;
  private readonly opts: IccOptions;
  private secret: Timed<IccConfig | undefined> | undefined;
  private readonly archs = new Map<string, Timed<string[] | undefined>>();
  private readonly warnings: WarnOnce;

  constructor(ctx: OperatorContext, opts: IccOptions = {}) {
    this.ctx = ctx;
    this.opts = opts;
    this.warnings = new WarnOnce(ctx.logger);
  }

  private fresh(at: number): boolean {
    return this.ctx.now().getTime() - at < (this.opts.recheckMs ?? 10 * 60_000);
  }

  /** The ICC config, or undefined when the Secret is absent, incomplete or unreadable. */
  current(): Promise<IccConfig | undefined> {
    if (this.secret && this.fresh(this.secret.at)) return this.secret.value;
    const { iccSecretNamespace: ns, iccSecretName: name } = this.ctx.settings;
    const value = (async () => {
      try {
        const s = await this.ctx.client.getIfExists<KubeObject & { data?: Record<string, string> }>(
          SECRET,
          name,
          ns,
        );
        if (!s) return undefined;
        const data = Object.fromEntries(
          Object.entries(s.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]),
        );
        const parsed = parseIccData(data);
        if (!parsed.ok) {
          this.warnings.warn(
            `invalid|${s.metadata.resourceVersion}`,
            `ignoring Secret ${ns}/${name}: ${parsed.error}`,
          );
          return undefined;
        }
        return parsed.config;
      } catch (err) {
        this.warnings.warn('read', `cannot read Secret ${ns}/${name}; using the ironic settings`, err);
        return undefined;
      }
    })();
    this.secret = { at: this.ctx.now().getTime(), value };
    return value;
  }

  /** The ICC image when its manifest lists the infra-env's architecture; undefined otherwise. */
  async agentImageFor(
    icc: IccConfig | undefined,
    cpuArchitecture: string | undefined,
  ): Promise<string | undefined> {
    const arch = ociArchitecture(cpuArchitecture);
    if (!icc || !arch) return undefined;
    const image = icc.ironicAgentImage;
    const archs = await this.architecturesOf(image);
    return archs?.includes(arch) ? image : undefined;
  }

  private async architecturesOf(image: string): Promise<string[] | undefined> {
    const cached = this.archs.get(image);
    if (cached) {
      const archs = await cached.value;
      if (archs || this.fresh(cached.at)) return archs;
    }
    const value = (async () => {
      try {
        const dockerConfigJson = await pullSecretOf(this.ctx, 'openshift-config', 'pull-secret').catch(
          () => undefined,
        );
        const archs = await (this.opts.architectures ?? imageArchitectures)(image, {
          ...this.opts,
          ...(dockerConfigJson ? { dockerConfigJson } : {}),
        });
        this.ctx.logger.info({ image, architectures: archs }, 'ironic agent image of the ICC Secret');
        return archs;
      } catch (err) {
        this.warnings.warn(
          `arch|${image}`,
          'cannot read the ICC ironic agent image manifest; not using it',
          err,
        );
        return undefined;
      }
    })();
    this.archs.set(image, { at: this.ctx.now().getTime(), value });
    return value;
  }
}

const perContext = perObject((ctx: OperatorContext) => new IccSecret(ctx));

/** The context's IccSecret (created on first use). */
export function iccSecretOf(ctx: OperatorContext): IccSecret {
  return perContext.of(ctx);
}

/** Replaces the context's IccSecret (tests: a registry stand-in, a short recheck). */
export function useIccSecret(ctx: OperatorContext, icc: IccSecret): void {
  perContext.set(ctx, icc);
}
