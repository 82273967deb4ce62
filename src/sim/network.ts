// The simulated L2/L3 network shared by the hosts of one process: which machine owns which
// address (for ARP answers in connectivity checks, free-address scans and VIP verification) and
// whether it is up. Addresses not owned by a simulated host (e.g. hosts simulated by another
// process) are treated as reachable when `unknownReachable` is set.

import type { MachineAddress } from './profiles.ts';

export interface NetworkEntry {
  hostId: string;
  nic: string;
  mac: string;
}

export class SimNetwork {
  readonly unknownReachable: boolean;
  private readonly byIp = new Map<string, NetworkEntry>();
  private readonly down = new Set<string>();

  constructor(opts: { unknownReachable?: boolean } = {}) {
    this.unknownReachable = opts.unknownReachable ?? true;
  }

  attach(hostId: string, addresses: MachineAddress[]): void {
    for (const a of addresses) this.byIp.set(a.ip, { hostId, nic: a.nic, mac: a.mac });
  }

  /** A host that is powered off or cut off answers nothing. */
  setHostUp(hostId: string, up: boolean): void {
    if (up) this.down.delete(hostId);
    else this.down.add(hostId);
  }

  owner(ip: string): NetworkEntry | undefined {
    return this.byIp.get(ip);
  }

  /** Whether an ARP/ping to `ip` gets an answer, and from which MAC (when known). */
  probe(ip: string): { reachable: boolean; mac?: string } {
    const entry = this.byIp.get(ip);
    if (!entry) return { reachable: this.unknownReachable };
    return { reachable: !this.down.has(entry.hostId), mac: entry.mac };
  }
}
