// A small stand-in for metal3's baremetal-operator, for tests and demos of zero-touch provisioning:
// a "rack" of simulated machines, each powered on and booted from whatever image its
// BareMetalHost asks for, the way BMO would drive the BMC. It is not part of the operator.
//
// Non-converged: a BMH is `available` as soon as it is seen (inspection is disabled by BMAC);
// `online: true` with `spec.image.url` boots the machine from that live ISO (`provisioned`);
// clearing the image powers it off again (`available`).
// Converged: the stand-in creates the BMH's PreprovisioningImage (owned by the BMH, with its
// InfraEnv label) as BMO does, boots the machine from the PPI's image once it is Ready
// (`inspecting` → `available`), and `customDeploy` moves it to `provisioned` on the same running
// agent. `reboot.metal3.io` power-cycles the machine and is removed.
//
// Each BMH is matched to a machine by its boot MAC (case-insensitive). All machines share one
// simulated network and scheduler, so multi-node clusters see each other in connectivity checks.

import type { BareMetalHost, PreprovisioningImage } from '../api/index.ts';
import { INFRAENV_LABEL } from '../api/index.ts';
import { BARE_METAL_HOST, PREPROVISIONING_IMAGE } from '../records/resources.ts';
import { isAlreadyExists, isNotFound, type KubeClient } from '../runtime/index.ts';
import { type BootOptions, type BootResult, boot, type DiscoveryConfig } from './boot.ts';
import { SimHost } from './host.ts';
import { Limiter, sleep } from './http.ts';
import type { InstallPace } from './install-task.ts';
import { SimNetwork } from './network.ts';
import { hashString, seededRandom } from './prng.ts';
import type { SimulatedMachine } from './profiles.ts';
import { Scheduler } from './scheduler.ts';
import { emptyStats, type SimEvent, type SimStats } from './stats.ts';

const REBOOT_ANNOTATION = 'reboot.metal3.io';

/**
 * The PreprovisioningImage metal3's baremetal-operator creates for a BMH: same name, owned by it,
 * with its InfraEnv label, asking for an ISO.
 */
export function preprovisioningImageOf(bmh: BareMetalHost, architecture: string): PreprovisioningImage {
  const ieLabel = bmh.metadata.labels?.[INFRAENV_LABEL];
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'PreprovisioningImage',
    metadata: {
      name: bmh.metadata.name,
      namespace: bmh.metadata.namespace,
      labels: ieLabel ? { [INFRAENV_LABEL]: ieLabel } : {},
      ownerReferences: [
        {
          apiVersion: 'metal3.io/v1alpha1',
          kind: 'BareMetalHost',
          name: bmh.metadata.name ?? '',
          uid: bmh.metadata.uid ?? '',
          controller: true,
        },
      ],
    },
    spec: { acceptFormats: ['iso'], architecture },
  } as PreprovisioningImage;
}

export interface SimMetal3Options {
  client: KubeClient;
  namespace: string;
  /** The machines BMHs can point at (by boot MAC). */
  machines: SimulatedMachine[];
  /** Play a BMO that creates PreprovisioningImages and boots from them (converged flow). */
  converged: boolean;
  /** How often BMHs and PPIs are read (real ms). Default 250. */
  pollMs?: number;
  speed?: number;
  install?: InstallPace;
  rebootMs?: number;
  mediaOptions?: BootOptions;
  /** Replace what the booted media says (e.g. a reachable service URL). */
  overrides?: Partial<Pick<DiscoveryConfig, 'serviceUrl' | 'token' | 'insecure' | 'caCert'>>;
  onEvent?: (ev: SimEvent | Metal3Event) => void;
}

/** What the stand-in did to a BMH, for test logs. */
export interface Metal3Event {
  type: 'metal3';
  bmh: string;
  action: 'boot' | 'power-off' | 'reboot' | 'state' | 'ppi-created' | 'error';
  detail: string;
}

interface PoweredMachine {
  host: SimHost;
  imageUrl: string;
  media: BootResult;
  abort: AbortController;
}

export class SimMetal3 {
  readonly stats: SimStats;
  readonly network = new SimNetwork();
  private readonly opts: SimMetal3Options;
  private readonly scheduler = new Scheduler();
  private readonly limiter = new Limiter(32);
  private readonly powered = new Map<string, PoweredMachine>();
  private readonly stopping = new AbortController();
  private loop?: Promise<void>;

  constructor(opts: SimMetal3Options) {
    this.opts = opts;
    this.stats = emptyStats(opts.machines.length);
  }

  /** The machine a BMH boots, by its boot MAC. */
  machineFor(bmh: BareMetalHost): SimulatedMachine | undefined {
    const mac = (bmh.spec.bootMACAddress ?? '').toLowerCase();
    if (!mac) return undefined;
    return this.opts.machines.find((m) => m.addresses.some((a) => a.mac.toLowerCase() === mac));
  }

  /** The running simulated host of a BMH, if powered on. */
  hostOf(bmhName: string): SimHost | undefined {
    return this.powered.get(bmhName)?.host;
  }

  /** What the powered-on machine of a BMH booted (its discovery ignition included). */
  mediaOf(bmhName: string): BootResult | undefined {
    return this.powered.get(bmhName)?.media;
  }

  start(): this {
    this.loop ??= (async () => {
      while (!this.stopping.signal.aborted) {
        await this.pass().catch((err) => this.emit('*', 'error', String(err)));
        await sleep(this.opts.pollMs ?? 250, this.stopping.signal).catch(() => {});
      }
    })();
    return this;
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.loop;
    for (const name of [...this.powered.keys()]) await this.powerOff(name);
    await this.scheduler.stop();
  }

  private emit(bmh: string, action: Metal3Event['action'], detail: string): void {
    this.opts.onEvent?.({ type: 'metal3', bmh, action, detail });
  }

  /** One look at every BMH of the namespace. */
  private async pass(): Promise<void> {
    const { client, namespace } = this.opts;
    const bmhs = (await client.list<BareMetalHost>(BARE_METAL_HOST, { namespace })).items;
    const ppis = this.opts.converged
      ? (await client.list<PreprovisioningImage>(PREPROVISIONING_IMAGE, { namespace })).items
      : [];
    const names = new Set(bmhs.map((b) => b.metadata.name ?? ''));
    for (const name of [...this.powered.keys()]) if (!names.has(name)) await this.powerOff(name);
    for (const bmh of bmhs) {
      try {
        await this.sync(
          bmh,
          ppis.find((p) => p.metadata.name === bmh.metadata.name),
        );
      } catch (err) {
        if (!isNotFound(err)) this.emit(bmh.metadata.name ?? '', 'error', String(err));
      }
    }
  }

  private async sync(bmh: BareMetalHost, ppi: PreprovisioningImage | undefined): Promise<void> {
    const name = bmh.metadata.name ?? '';
    const state = bmh.status?.provisioning?.state ?? '';
    if (bmh.metadata.deletionTimestamp) {
      await this.powerOff(name);
      if (state !== 'deleting') await this.setStatus(bmh, 'deleting', false);
      return;
    }
    const machine = this.machineFor(bmh);
    if (!machine) {
      if (state !== 'registration error')
        await this.setStatus(bmh, 'registration error', false, 'no machine with this boot MAC');
      return;
    }
    if (bmh.metadata.annotations?.[REBOOT_ANNOTATION] !== undefined) {
      await this.opts.client.patch(BARE_METAL_HOST, name, bmh.metadata.namespace, 'merge', {
        metadata: { annotations: { [REBOOT_ANNOTATION]: null } },
      });
      const running = this.powered.get(name);
      if (running) {
        this.emit(name, 'reboot', running.imageUrl);
        await this.powerOff(name);
      }
    }
    if (!bmh.spec.online) {
      await this.powerOff(name);
      if (state === '') await this.setStatus(bmh, this.opts.converged ? 'inspecting' : 'available', false);
      return;
    }
    if (this.opts.converged) await this.syncConverged(bmh, machine, ppi, state);
    else await this.syncLiveIso(bmh, machine, state);
  }

  private async syncLiveIso(bmh: BareMetalHost, machine: SimulatedMachine, state: string): Promise<void> {
    const name = bmh.metadata.name ?? '';
    const url = bmh.spec.image?.url;
    const running = this.powered.get(name);
    if (!url) {
      if (running) await this.powerOff(name);
      if (state !== 'available') await this.setStatus(bmh, 'available', false);
      return;
    }
    if (running?.imageUrl === url) {
      if (state !== 'provisioned') await this.setStatus(bmh, 'provisioned', true);
      return;
    }
    if (running) await this.powerOff(name);
    await this.setStatus(bmh, 'provisioning', false);
    await this.powerOn(name, machine, url);
    await this.setStatus(bmh, 'provisioned', true);
  }

  private async syncConverged(
    bmh: BareMetalHost,
    machine: SimulatedMachine,
    ppi: PreprovisioningImage | undefined,
    state: string,
  ): Promise<void> {
    const name = bmh.metadata.name ?? '';
    if (!ppi) {
      await this.createPpi(bmh, machine);
      if (state === '') await this.setStatus(bmh, 'inspecting', false);
      return;
    }
    const ready = ppi.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
    const url = ppi.status?.imageUrl;
    if (!ready || !url) return;
    const running = this.powered.get(name);
    if (running?.imageUrl !== url) {
      if (running) await this.powerOff(name);
      await this.powerOn(name, machine, url);
    }
    const wanted = bmh.spec.customDeploy?.method ? 'provisioned' : 'available';
    if (state !== wanted) await this.setStatus(bmh, wanted, true);
  }

  private async createPpi(bmh: BareMetalHost, machine: SimulatedMachine): Promise<void> {
    const ieLabel = bmh.metadata.labels?.[INFRAENV_LABEL];
    const ppi = preprovisioningImageOf(bmh, machine.inventory.cpu?.architecture ?? 'x86_64');
    try {
      await this.opts.client.create(PREPROVISIONING_IMAGE, ppi);
      this.emit(bmh.metadata.name ?? '', 'ppi-created', ieLabel ?? '');
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }

  private async setStatus(
    bmh: BareMetalHost,
    state: string,
    poweredOn: boolean,
    errorMessage = '',
  ): Promise<void> {
    await this.opts.client.patch(
      BARE_METAL_HOST,
      bmh.metadata.name ?? '',
      bmh.metadata.namespace,
      'merge',
      {
        status: {
          provisioning: { state },
          operationalStatus: errorMessage ? 'error' : 'OK',
          errorMessage,
          poweredOn,
        },
      },
      { subresource: 'status' },
    );
    this.emit(bmh.metadata.name ?? '', 'state', state);
  }

  /** Boots the machine from `url`: reads the media, then its discovery agent starts. */
  private async powerOn(name: string, machine: SimulatedMachine, url: string): Promise<void> {
    const media = await boot({ isoUrl: url }, { ...this.opts.mediaOptions, signal: this.stopping.signal });
    const abort = new AbortController();
    const host = new SimHost({
      config: { ...media.config, ...this.opts.overrides },
      machine,
      network: this.network,
      limiter: this.limiter,
      speed: this.opts.speed,
      signal: AbortSignal.any([abort.signal, this.stopping.signal]),
      random: seededRandom(hashString(`metal3:${machine.hostId}`)),
      install: this.opts.install,
      controller: 'bootstrap',
      rebootMs: this.opts.rebootMs,
      stats: this.stats,
      onEvent: (ev) => this.opts.onEvent?.(ev),
    });
    this.powered.set(name, { host, imageUrl: url, media, abort });
    host.start(this.scheduler);
    this.emit(name, 'boot', url);
  }

  private async powerOff(name: string): Promise<void> {
    const running = this.powered.get(name);
    if (!running) return;
    this.powered.delete(name);
    running.abort.abort();
    this.network.setHostUp(running.host.hostId, false);
    await running.host.close();
    this.emit(name, 'power-off', running.imageUrl);
  }
}
