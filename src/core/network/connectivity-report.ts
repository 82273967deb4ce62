// A host's connectivity report as kept between its replies. Each report of an n-host cluster names
// the n - 1 others, so a cluster's reports grow with n²: as parsed trees (five objects and three
// arrays per remote host) a 1,000-host cluster's report held 0.45 MiB of heap, 0.45 GB for the
// cluster. Kept compact (an array per field, typed arrays for flags, offsets and numbers) it holds
// 0.10 MiB (`npm run bench`), serialises to the same text and reads through ConnectivityReader.

/** A connectivity-check reply as parsed (core/steps/reply-schemas.ts), nulls dropped. */
export interface ConnectivityReport {
  remote_hosts?: ConnectivityRemoteHost[];
}
export interface ConnectivityRemoteHost {
  host_id: string;
  l2_connectivity?: {
    outgoing_ip_address?: string;
    outgoing_nic?: string;
    remote_ip_address?: string;
    remote_mac?: string;
    successful?: boolean;
  }[];
  l3_connectivity?: {
    remote_ip_address?: string;
    successful?: boolean;
    average_rtt_ms?: number;
    packet_loss_percentage?: number;
  }[];
  mtu_report?: { outgoing_nic?: string; remote_ip_address?: string; mtu_successful?: boolean }[];
}

/** A report read by remote-host index `k` and check index `j`, allocating nothing. */
export interface ConnectivityReader {
  readonly remoteCount: number;
  hostId(k: number): string;
  l2Count(k: number): number;
  l2OutgoingNic(k: number, j: number): string | undefined;
  l2RemoteIp(k: number, j: number): string | undefined;
  l2RemoteMac(k: number, j: number): string | undefined;
  /** `successful === true`. */
  l2Successful(k: number, j: number): boolean;
  l3Count(k: number): number;
  l3RemoteIp(k: number, j: number): string | undefined;
  l3Successful(k: number, j: number): boolean;
  l3AverageRttMs(k: number, j: number): number | undefined;
  l3PacketLossPercentage(k: number, j: number): number | undefined;
  mtuCount(k: number): number;
  mtuOutgoingNic(k: number, j: number): string | undefined;
  mtuRemoteIp(k: number, j: number): string | undefined;
  mtuSuccessful(k: number, j: number): boolean;
}

/** A stored report: compact when it could be kept so exactly, else the parsed tree. */
export type StoredConnectivityReport = ConnectivityReport | CompactConnectivityReport;

type L2 = NonNullable<ConnectivityRemoteHost['l2_connectivity']>[number];
type L3 = NonNullable<ConnectivityRemoteHost['l3_connectivity']>[number];
type Mtu = NonNullable<ConnectivityRemoteHost['mtu_report']>[number];

// Keys in the order the reply schema (core/steps/reply-schemas.ts) gives them: the order the tree
// had, so the report serialises to the same text either way.
const REMOTE_KEYS = ['host_id', 'l2_connectivity', 'l3_connectivity', 'mtu_report'] as const;
const L2_STRINGS = ['outgoing_nic', 'outgoing_ip_address', 'remote_ip_address', 'remote_mac'] as const;
const L2_KEYS = [...L2_STRINGS, 'successful'] as const;
const L3_STRINGS = ['outgoing_nic', 'remote_ip_address'] as const;
const L3_NUMBERS = ['average_rtt_ms', 'packet_loss_percentage'] as const;
const L3_KEYS = ['outgoing_nic', 'remote_ip_address', 'successful', ...L3_NUMBERS] as const;
const MTU_STRINGS = ['outgoing_nic', 'remote_ip_address'] as const;
const MTU_KEYS = [...MTU_STRINGS, 'mtu_successful'] as const;

// A boolean field: absent, false or true (bits 0-1 of an entry's flags).
const ABSENT = 0;
const FALSE = 1;
const TRUE = 2;
// Presence of an L3 entry's numbers (bits 2 and 3).
const HAS_RTT = 4;
const HAS_LOSS = 8;
// Which lists a remote host has (absent and empty differ in the text).
const HAS_L2 = 1;
const HAS_L3 = 2;
const HAS_MTU = 4;

/** Whether `obj`'s keys are all in `order`, in that order, with string/boolean/number values as typed. */
function keysInOrder(obj: object, order: readonly string[]): boolean {
  let at = 0;
  for (const key in obj) {
    while (at < order.length && order[at] !== key) at++;
    if (at === order.length) return false;
    at++;
  }
  return true;
}

function boolBits(v: unknown): number | undefined {
  if (v === undefined) return ABSENT;
  if (typeof v !== 'boolean') return undefined;
  return v ? TRUE : FALSE;
}

/** Appends an entry's string fields; false when one is neither a string nor absent. */
function pushStrings(
  into: (string | undefined)[],
  entry: Record<string, unknown>,
  keys: readonly string[],
): boolean {
  for (const k of keys) {
    const v = entry[k];
    if (v !== undefined && typeof v !== 'string') return false;
    into.push(v as string | undefined);
  }
  return true;
}

/** Builds the compact form, or undefined when it would not give back the same tree (unknown keys, nulls). */
class Builder {
  readonly ids: string[] = [];
  readonly hostBits: number[] = [];
  readonly l2At: number[] = [0];
  readonly l2Str: (string | undefined)[] = [];
  readonly l2Bits: number[] = [];
  readonly l3At: number[] = [0];
  readonly l3Str: (string | undefined)[] = [];
  readonly l3Bits: number[] = [];
  readonly l3Num: number[] = [];
  readonly mtuAt: number[] = [0];
  readonly mtuStr: (string | undefined)[] = [];
  readonly mtuBits: number[] = [];

  addRemote(rh: ConnectivityRemoteHost, intern: (s: string) => string): boolean {
    if (typeof rh !== 'object' || rh === null || !keysInOrder(rh, REMOTE_KEYS)) return false;
    if (typeof rh.host_id !== 'string') return false;
    this.ids.push(intern(rh.host_id));
    let has = 0;
    if (rh.l2_connectivity !== undefined) {
      if (!Array.isArray(rh.l2_connectivity)) return false;
      has |= HAS_L2;
      for (const c of rh.l2_connectivity) if (!this.addL2(c)) return false;
    }
    if (rh.l3_connectivity !== undefined) {
      if (!Array.isArray(rh.l3_connectivity)) return false;
      has |= HAS_L3;
      for (const c of rh.l3_connectivity) if (!this.addL3(c)) return false;
    }
    if (rh.mtu_report !== undefined) {
      if (!Array.isArray(rh.mtu_report)) return false;
      has |= HAS_MTU;
      for (const c of rh.mtu_report) if (!this.addMtu(c)) return false;
    }
    this.hostBits.push(has);
    this.l2At.push(this.l2Bits.length);
    this.l3At.push(this.l3Bits.length);
    this.mtuAt.push(this.mtuBits.length);
    return true;
  }

  private addL2(c: L2): boolean {
    if (typeof c !== 'object' || c === null || !keysInOrder(c, L2_KEYS)) return false;
    const bits = boolBits(c.successful);
    if (bits === undefined || !pushStrings(this.l2Str, c, L2_STRINGS)) return false;
    this.l2Bits.push(bits);
    return true;
  }

  private addL3(c: L3): boolean {
    if (typeof c !== 'object' || c === null || !keysInOrder(c, L3_KEYS)) return false;
    let bits = boolBits(c.successful);
    if (bits === undefined || !pushStrings(this.l3Str, c, L3_STRINGS)) return false;
    const [rtt, loss] = [c.average_rtt_ms, c.packet_loss_percentage];
    if ((rtt !== undefined && typeof rtt !== 'number') || (loss !== undefined && typeof loss !== 'number'))
      return false;
    if (rtt !== undefined) bits |= HAS_RTT;
    if (loss !== undefined) bits |= HAS_LOSS;
    this.l3Bits.push(bits);
    this.l3Num.push(rtt ?? 0, loss ?? 0);
    return true;
  }

  private addMtu(c: Mtu): boolean {
    if (typeof c !== 'object' || c === null || !keysInOrder(c, MTU_KEYS)) return false;
    const bits = boolBits(c.mtu_successful);
    if (bits === undefined || !pushStrings(this.mtuStr, c, MTU_STRINGS)) return false;
    this.mtuBits.push(bits);
    return true;
  }
}

/** The strings of a list, interned (ids, addresses, MACs and NIC names repeat across a cluster's reports). */
function internAll(list: (string | undefined)[], intern: (s: string) => string): (string | undefined)[] {
  // map() allocates the exact length; the pushed list has room to grow.
  return list.map((s) => (s === undefined ? s : intern(s)));
}

function sameStrings(a: readonly (string | undefined)[], b: readonly (string | undefined)[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameNumbers(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

export class CompactConnectivityReport implements ConnectivityReader {
  readonly remoteCount: number;
  private readonly ids: string[];
  private readonly hostBits: Uint8Array;
  private readonly l2At: Uint32Array;
  private readonly l2Str: (string | undefined)[];
  private readonly l2Bits: Uint8Array;
  private readonly l3At: Uint32Array;
  private readonly l3Str: (string | undefined)[];
  private readonly l3Bits: Uint8Array;
  private readonly l3Num: Float64Array;
  private readonly mtuAt: Uint32Array;
  private readonly mtuStr: (string | undefined)[];
  private readonly mtuBits: Uint8Array;
  /** Whether the tree had `remote_hosts` at all. */
  private readonly listed: boolean;

  private constructor(b: Builder, listed: boolean, intern: (s: string) => string) {
    this.remoteCount = b.ids.length;
    this.listed = listed;
    this.ids = b.ids.slice();
    this.hostBits = Uint8Array.from(b.hostBits);
    this.l2At = Uint32Array.from(b.l2At);
    this.l2Str = internAll(b.l2Str, intern);
    this.l2Bits = Uint8Array.from(b.l2Bits);
    this.l3At = Uint32Array.from(b.l3At);
    this.l3Str = internAll(b.l3Str, intern);
    this.l3Bits = Uint8Array.from(b.l3Bits);
    this.l3Num = Float64Array.from(b.l3Num);
    this.mtuAt = Uint32Array.from(b.mtuAt);
    this.mtuStr = internAll(b.mtuStr, intern);
    this.mtuBits = Uint8Array.from(b.mtuBits);
  }

  /** The compact form of `report`, or undefined when it would not serialise back to the same text. */
  static of(
    report: ConnectivityReport,
    intern: (s: string) => string = (s) => s,
  ): CompactConnectivityReport | undefined {
    if (typeof report !== 'object' || report === null || !keysInOrder(report, ['remote_hosts']))
      return undefined;
    const b = new Builder();
    const list = report.remote_hosts;
    if (list !== undefined) {
      if (!Array.isArray(list)) return undefined;
      for (const rh of list) if (!b.addRemote(rh, intern)) return undefined;
    }
    return new CompactConnectivityReport(b, list !== undefined, intern);
  }

  hostId(k: number): string {
    return this.ids[k] as string;
  }
  l2Count(k: number): number {
    return (this.l2At[k + 1] as number) - (this.l2At[k] as number);
  }
  l2OutgoingNic(k: number, j: number): string | undefined {
    return this.l2Str[((this.l2At[k] as number) + j) * 4];
  }
  l2RemoteIp(k: number, j: number): string | undefined {
    return this.l2Str[((this.l2At[k] as number) + j) * 4 + 2];
  }
  l2RemoteMac(k: number, j: number): string | undefined {
    return this.l2Str[((this.l2At[k] as number) + j) * 4 + 3];
  }
  l2Successful(k: number, j: number): boolean {
    return ((this.l2Bits[(this.l2At[k] as number) + j] as number) & 3) === TRUE;
  }
  l3Count(k: number): number {
    return (this.l3At[k + 1] as number) - (this.l3At[k] as number);
  }
  l3RemoteIp(k: number, j: number): string | undefined {
    return this.l3Str[((this.l3At[k] as number) + j) * 2 + 1];
  }
  l3Successful(k: number, j: number): boolean {
    return ((this.l3Bits[(this.l3At[k] as number) + j] as number) & 3) === TRUE;
  }
  l3AverageRttMs(k: number, j: number): number | undefined {
    const e = (this.l3At[k] as number) + j;
    return (this.l3Bits[e] as number) & HAS_RTT ? this.l3Num[e * 2] : undefined;
  }
  l3PacketLossPercentage(k: number, j: number): number | undefined {
    const e = (this.l3At[k] as number) + j;
    return (this.l3Bits[e] as number) & HAS_LOSS ? this.l3Num[e * 2 + 1] : undefined;
  }
  mtuCount(k: number): number {
    return (this.mtuAt[k + 1] as number) - (this.mtuAt[k] as number);
  }
  mtuOutgoingNic(k: number, j: number): string | undefined {
    return this.mtuStr[((this.mtuAt[k] as number) + j) * 2];
  }
  mtuRemoteIp(k: number, j: number): string | undefined {
    return this.mtuStr[((this.mtuAt[k] as number) + j) * 2 + 1];
  }
  mtuSuccessful(k: number, j: number): boolean {
    return ((this.mtuBits[(this.mtuAt[k] as number) + j] as number) & 3) === TRUE;
  }

  /** Whether both hold the same report (what the facts store asks of every new reply). */
  equals(o: CompactConnectivityReport): boolean {
    return (
      this.listed === o.listed &&
      sameStrings(this.ids, o.ids) &&
      sameNumbers(this.hostBits, o.hostBits) &&
      sameNumbers(this.l2At, o.l2At) &&
      sameStrings(this.l2Str, o.l2Str) &&
      sameNumbers(this.l2Bits, o.l2Bits) &&
      sameNumbers(this.l3At, o.l3At) &&
      sameStrings(this.l3Str, o.l3Str) &&
      sameNumbers(this.l3Bits, o.l3Bits) &&
      sameNumbers(this.l3Num, o.l3Num) &&
      sameNumbers(this.mtuAt, o.mtuAt) &&
      sameStrings(this.mtuStr, o.mtuStr) &&
      sameNumbers(this.mtuBits, o.mtuBits)
    );
  }

  /** The tree again, keys in the schema's order: what JSON.stringify writes on the wire. */
  toJSON(): ConnectivityReport {
    if (!this.listed) return {};
    const remote: ConnectivityRemoteHost[] = [];
    for (let k = 0; k < this.remoteCount; k++) remote.push(this.remoteTree(k));
    return { remote_hosts: remote };
  }

  private remoteTree(k: number): ConnectivityRemoteHost {
    const rh: ConnectivityRemoteHost = { host_id: this.hostId(k) };
    const has = this.hostBits[k] as number;
    if (has & HAS_L2) rh.l2_connectivity = this.entries(k, this.l2At, (e) => this.l2Tree(e));
    if (has & HAS_L3) rh.l3_connectivity = this.entries(k, this.l3At, (e) => this.l3Tree(e));
    if (has & HAS_MTU) rh.mtu_report = this.entries(k, this.mtuAt, (e) => this.mtuTree(e));
    return rh;
  }

  private entries<T>(k: number, at: Uint32Array, tree: (e: number) => T): T[] {
    const out: T[] = [];
    for (let e = at[k] as number; e < (at[k + 1] as number); e++) out.push(tree(e));
    return out;
  }

  private l2Tree(e: number): L2 {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < L2_STRINGS.length; i++)
      setIfPresent(out, L2_STRINGS[i] as string, this.l2Str[e * 4 + i]);
    setBool(out, 'successful', this.l2Bits[e] as number);
    return out as L2;
  }

  private l3Tree(e: number): L3 {
    const out: Record<string, unknown> = {};
    const bits = this.l3Bits[e] as number;
    for (let i = 0; i < L3_STRINGS.length; i++)
      setIfPresent(out, L3_STRINGS[i] as string, this.l3Str[e * 2 + i]);
    setBool(out, 'successful', bits);
    if (bits & HAS_RTT) out.average_rtt_ms = this.l3Num[e * 2];
    if (bits & HAS_LOSS) out.packet_loss_percentage = this.l3Num[e * 2 + 1];
    return out as L3;
  }

  private mtuTree(e: number): Mtu {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < MTU_STRINGS.length; i++)
      setIfPresent(out, MTU_STRINGS[i] as string, this.mtuStr[e * 2 + i]);
    setBool(out, 'mtu_successful', this.mtuBits[e] as number);
    return out as Mtu;
  }
}

function setIfPresent(out: Record<string, unknown>, key: string, v: string | undefined): void {
  if (v !== undefined) out[key] = v;
}

function setBool(out: Record<string, unknown>, key: string, bits: number): void {
  if ((bits & 3) !== ABSENT) out[key] = (bits & 3) === TRUE;
}

/** Reads a parsed tree through the same interface (tests and reports that could not be compacted). */
class TreeReader implements ConnectivityReader {
  readonly remoteCount: number;
  private readonly remote: readonly ConnectivityRemoteHost[];

  constructor(report: ConnectivityReport) {
    this.remote = report.remote_hosts ?? [];
    this.remoteCount = this.remote.length;
  }

  private l2(k: number, j: number): L2 {
    return (this.remote[k] as ConnectivityRemoteHost).l2_connectivity?.[j] as L2;
  }
  private l3(k: number, j: number): L3 {
    return (this.remote[k] as ConnectivityRemoteHost).l3_connectivity?.[j] as L3;
  }
  private mtu(k: number, j: number): Mtu {
    return (this.remote[k] as ConnectivityRemoteHost).mtu_report?.[j] as Mtu;
  }

  hostId(k: number): string {
    return (this.remote[k] as ConnectivityRemoteHost).host_id;
  }
  l2Count(k: number): number {
    return (this.remote[k] as ConnectivityRemoteHost).l2_connectivity?.length ?? 0;
  }
  l2OutgoingNic(k: number, j: number): string | undefined {
    return this.l2(k, j).outgoing_nic ?? undefined;
  }
  l2RemoteIp(k: number, j: number): string | undefined {
    return this.l2(k, j).remote_ip_address ?? undefined;
  }
  l2RemoteMac(k: number, j: number): string | undefined {
    return this.l2(k, j).remote_mac ?? undefined;
  }
  l2Successful(k: number, j: number): boolean {
    return this.l2(k, j).successful === true;
  }
  l3Count(k: number): number {
    return (this.remote[k] as ConnectivityRemoteHost).l3_connectivity?.length ?? 0;
  }
  l3RemoteIp(k: number, j: number): string | undefined {
    return this.l3(k, j).remote_ip_address ?? undefined;
  }
  l3Successful(k: number, j: number): boolean {
    return this.l3(k, j).successful === true;
  }
  l3AverageRttMs(k: number, j: number): number | undefined {
    return this.l3(k, j).average_rtt_ms ?? undefined;
  }
  l3PacketLossPercentage(k: number, j: number): number | undefined {
    return this.l3(k, j).packet_loss_percentage ?? undefined;
  }
  mtuCount(k: number): number {
    return (this.remote[k] as ConnectivityRemoteHost).mtu_report?.length ?? 0;
  }
  mtuOutgoingNic(k: number, j: number): string | undefined {
    return this.mtu(k, j).outgoing_nic ?? undefined;
  }
  mtuRemoteIp(k: number, j: number): string | undefined {
    return this.mtu(k, j).remote_ip_address ?? undefined;
  }
  mtuSuccessful(k: number, j: number): boolean {
    return this.mtu(k, j).mtu_successful === true;
  }
}

/** A reader of either form. */
export function connectivityReader(report: StoredConnectivityReport): ConnectivityReader {
  return report instanceof CompactConnectivityReport ? report : new TreeReader(report);
}

/** Whether the report names at least one remote host. */
export function namesRemoteHosts(report: StoredConnectivityReport | undefined): boolean {
  return report !== undefined && connectivityReader(report).remoteCount > 0;
}
