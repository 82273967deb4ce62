// Static network configuration (core.md §8.3): validation, the stored sort order, and the files
// placed under /etc/assisted/network/host<N>/ — keyfiles (OCP < 4.18) or an nmpolicy (≥ 4.18).

import { type Document, isMap, isSeq, parseDocument, stringify, visit } from 'yaml';
import { Lru } from '../../util/lru.ts';
import type { InfraEnv } from '../model.ts';
import { baseVersionAtLeast } from '../version.ts';

export type HostStaticNetworkConfig = NonNullable<InfraEnv['static_network_config']>[number];
export type MacInterfaceEntry = HostStaticNetworkConfig['mac_interface_map'][number];

/** A file relative to /etc/assisted/network (e.g. `host0/mac_interface.ini`). */
export interface StaticNetworkFile {
  path: string;
  contents: string;
}

export type StaticNetworkFlavour = 'keyfile' | 'nmstatectl';

/** Converts one nmstate YAML into NetworkManager keyfiles (what `nmstatectl gc` does). */
export type KeyfileGenerator = (networkYaml: string) => { name: string; contents: string }[];

export const DEFAULT_MIN_VERSION_FOR_NMSTATECTL = '4.18';

/** Interface names systemd derives from hardware (`man systemd.net-naming-scheme`). */
const PREDICTABLE_NAME = /^en[PsvxXbucaipod]/;

function compareEntries(a: MacInterfaceEntry, b: MacInterfaceEntry): number {
  if (a.logical_nic_name !== b.logical_nic_name) return a.logical_nic_name < b.logical_nic_name ? -1 : 1;
  if (a.mac_address !== b.mac_address) return a.mac_address < b.mac_address ? -1 : 1;
  return 0;
}

function compareMaps(a: MacInterfaceEntry[], b: MacInterfaceEntry[]): number {
  if (a.length !== b.length) return a.length - b.length;
  for (let i = 0; i < a.length; i++) {
    const c = compareEntries(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return 0;
}

/** The stored order: each map by logical name then MAC; hosts by YAML, then by map. */
export function sortStaticNetworkConfig(configs: HostStaticNetworkConfig[]): HostStaticNetworkConfig[] {
  return configs
    .map((c) => ({
      network_yaml: c.network_yaml,
      mac_interface_map: [...c.mac_interface_map].sort(compareEntries),
    }))
    .sort((a, b) =>
      a.network_yaml !== b.network_yaml
        ? a.network_yaml < b.network_yaml
          ? -1
          : 1
        : compareMaps(a.mac_interface_map, b.mac_interface_map),
    );
}

interface NmInterface {
  name?: unknown;
  type?: unknown;
  identifier?: unknown;
  'link-aggregation'?: { port?: unknown };
}

/** How nmstate reports a document it cannot read into its network state. */
const INVALID_YAML = 'InvalidArgument: Invalid YAML string:';

/** One host YAML as read once, for every reader of the same text. */
interface ReadNetworkYaml {
  /** The first syntax error, as nmstate words it; the document is not converted then. */
  syntaxError?: string;
  /** `toJS()` of the document; plain objects and arrays in it are frozen (shared by every reader). */
  value?: unknown;
  /**
   * The value is a tree made one to one from the document's untagged maps and sequences: no
   * aliases, no tags on collections, no YAML 1.1 merge keys, no errors or warnings. Only then is
   * editing a copy of the value the same as editing the document (nmPolicyYaml).
   */
  plainTree: boolean;
}

/**
 * Recently read YAML texts. One reconcile reads each host's YAML to validate it, to choose the
 * flavour and to generate the files; parsing it each time put 53 MiB of old-generation allocation
 * in the start-up heap profile at 1,000 InfraEnvs (issue 16). Bounded in entries and characters
 * so large documents are not kept alive; a text over the budget is parsed each time.
 */
const readYamls = new Lru<string, ReadNetworkYaml>({
  maxEntries: 32,
  maxWeight: 128 * 1024,
  weightOf: (text) => text.length,
});

function readNetworkYaml(networkYaml: string): ReadNetworkYaml {
  const known = readYamls.get(networkYaml);
  if (known) return known;
  const read = readNetworkYamlUncached(networkYaml);
  readYamls.set(networkYaml, read);
  return read;
}

function readNetworkYamlUncached(networkYaml: string): ReadNetworkYaml {
  const doc = parseDocument(networkYaml);
  if (doc.errors.length > 0) {
    const message = (doc.errors[0]!.message.split('\n')[0] ?? '').replace(/:$/, '');
    return { syntaxError: `${INVALID_YAML} ${message}`, plainTree: false };
  }
  return { value: freezePlain(doc.toJS() as unknown), plainTree: isPlainTree(doc) };
}

const MAP_TAG = 'tag:yaml.org,2002:map';
const SEQ_TAG = 'tag:yaml.org,2002:seq';

function isPlainTree(doc: Document): boolean {
  if (doc.warnings.length > 0 || doc.schema.name !== 'core') return false;
  let plain = true;
  visit(doc, {
    Alias() {
      plain = false;
      return visit.BREAK;
    },
    Collection(_, node) {
      if (node.tag === undefined || node.tag === (isMap(node) ? MAP_TAG : SEQ_TAG)) return undefined;
      plain = false;
      return visit.BREAK;
    },
  });
  return plain;
}

/** Freezes the plain objects and arrays of a converted document (other objects are left as they are). */
function freezePlain<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (!Array.isArray(value) && proto !== Object.prototype) return value;
  Object.freeze(value);
  for (const item of Object.values(value)) freezePlain(item);
  return value;
}

/** The host YAML as nmstate's network state (read-only: shared), or nmstate's reason why not. */
function parseNetworkYaml(networkYaml: string): { doc?: Record<string, unknown>; error?: string } {
  if (networkYaml === '') return { error: 'cannot generate configuration with an empty host YAML' };
  const { syntaxError, value } = readNetworkYaml(networkYaml);
  if (syntaxError) return { error: syntaxError };
  const shape = nmStateShapeError(value);
  if (shape) return { error: `${INVALID_YAML} ${shape}` };
  return { doc: value as Record<string, unknown> };
}

type Kind = 'mapping' | 'sequence' | 'string' | 'boolean' | 'integer';

function kindOf(value: unknown): string {
  if (value === null) return 'unit value';
  if (Array.isArray(value)) return 'sequence';
  if (typeof value === 'object') return 'map';
  if (typeof value === 'number')
    return Number.isInteger(value) ? `integer \`${value}\`` : `floating point \`${value}\``;
  if (typeof value === 'string') return `string ${JSON.stringify(value)}`;
  return `${typeof value} \`${String(value)}\``;
}

function hasKind(value: unknown, kind: Kind): boolean {
  switch (kind) {
    case 'mapping':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'sequence':
      return Array.isArray(value);
    case 'integer':
      return Number.isInteger(value);
    default:
      return typeof value === kind;
  }
}

/** Top-level and per-interface fields whose type nmstate fixes; other keys are not checked. */
const TOP_LEVEL_KINDS: Record<string, Kind> = {
  interfaces: 'sequence',
  routes: 'mapping',
  'route-rules': 'mapping',
  'dns-resolver': 'mapping',
  'ovs-db': 'mapping',
  ovn: 'mapping',
  hostname: 'mapping',
};
const INTERFACE_KINDS: Record<string, Kind> = {
  type: 'string',
  state: 'string',
  mtu: 'integer',
  ipv4: 'mapping',
  ipv6: 'mapping',
};
const IP_KINDS: Record<string, Kind> = {
  enabled: 'boolean',
  dhcp: 'boolean',
  autoconf: 'boolean',
  address: 'sequence',
};

function fieldsError(value: Record<string, unknown>, kinds: Record<string, Kind>, path: string) {
  for (const [key, kind] of Object.entries(kinds)) {
    const field = value[key];
    if (field !== undefined && field !== null && !hasKind(field, kind)) {
      return `${path}${key}: invalid type: ${kindOf(field)}, expected a ${kind}`;
    }
  }
  return undefined;
}

/**
 * Where a parsed document cannot be nmstate's network state (serde's "invalid type" wording), or
 * undefined. Checks the fields whose type nmstate fixes, so a wrongly shaped document is refused
 * like upstream does instead of reaching the image.
 */
function nmStateShapeError(value: unknown): string | undefined {
  if (!hasKind(value, 'mapping')) return `invalid type: ${kindOf(value)}, expected struct NetworkState`;
  const doc = value as Record<string, unknown>;
  const top = fieldsError(doc, TOP_LEVEL_KINDS, '');
  if (top) return top;
  const interfaces = (doc.interfaces ?? []) as unknown[];
  for (const [i, nic] of interfaces.entries()) {
    if (!hasKind(nic, 'mapping')) return `interfaces[${i}]: invalid type: ${kindOf(nic)}, expected a mapping`;
    const iface = nic as Record<string, unknown>;
    const own = fieldsError(iface, INTERFACE_KINDS, `interfaces[${i}].`);
    if (own) return own;
    for (const family of ['ipv4', 'ipv6'] as const) {
      const ip = iface[family];
      if (!hasKind(ip, 'mapping')) continue;
      const bad = fieldsError(ip as Record<string, unknown>, IP_KINDS, `interfaces[${i}].${family}.`);
      if (bad) return bad;
    }
  }
  return undefined;
}

/**
 * Upstream's checks, one message each, for every host: map present and unique, YAML readable,
 * every ethernet interface / bond port either mapped, MAC-identified or hardware-named.
 */
export function validateStaticNetworkConfig(
  configs: HostStaticNetworkConfig[],
  opts: { useNmstatectl?: boolean } = {},
): string[] {
  const errors: string[] = [];
  configs.forEach((host, i) => {
    const map = host.mac_interface_map ?? [];
    if (map.length === 0) errors.push(`at least one interface for host ${i} must be provided`);
    const names = new Set(map.map((m) => m.logical_nic_name));
    const macs = new Set(map.map((m) => m.mac_address));
    if (names.size < map.length || macs.size < map.length) {
      errors.push(`MACs and Interfaces for host ${i} must be unique`);
    }
    const { doc, error } = parseNetworkYaml(host.network_yaml);
    if (error || !doc) {
      errors.push(`failed to validate network yaml for host ${i}, ${error}`);
      return;
    }
    const problem = checkInterfaceNames(doc, names, opts.useNmstatectl ?? false);
    if (problem) errors.push(problem);
  });
  return errors;
}

function checkInterfaceNames(doc: Record<string, unknown>, mapped: Set<string>, useNmstatectl: boolean) {
  const interfaces = Array.isArray(doc.interfaces) ? (doc.interfaces as NmInterface[]) : [];
  const macIdentified = new Set<string>();
  for (const nic of interfaces) {
    if (typeof nic?.name !== 'string') return 'interface name not found in networks configuration';
    if (nic.identifier === 'mac-address') macIdentified.add(nic.name);
  }
  for (const nic of interfaces) {
    const name = nic.name as string;
    if (useNmstatectl && nic.identifier === 'mac-address') return 'Mac-address identifier is not supported';
    const missing = (port: string) =>
      !mapped.has(port) && !macIdentified.has(port) && !PREDICTABLE_NAME.test(port);
    if ((nic.type === 'ethernet' || nic.type === '802-3-ethernet') && missing(name)) {
      return `mac-interface mapping for interface ${name} is missing and not a physical interface`;
    }
    const ports = nic.type === 'bond' ? nic['link-aggregation']?.port : undefined;
    if (Array.isArray(ports) && ports.some((p) => typeof p === 'string' && missing(p))) {
      return `mac-interface mapping for interface ${name} is missing and not a physical interface`;
    }
  }
  return undefined;
}

/** True when any host's YAML names an interface by MAC (`identifier: mac-address`). */
export function usesMacIdentifier(configs: HostStaticNetworkConfig[]): boolean {
  return configs.some((host) => {
    const { doc } = parseNetworkYaml(host.network_yaml);
    const interfaces = Array.isArray(doc?.interfaces) ? (doc.interfaces as NmInterface[]) : [];
    return interfaces.some((nic) => nic?.identifier === 'mac-address');
  });
}

/**
 * nmstatectl (nmpolicy) flavour from OCP `minVersion` (4.18) on, unless a YAML uses MAC
 * identifiers (nmstate mis-handles them in policies); an unknown version means keyfiles.
 */
export function chooseStaticNetworkFlavour(
  configs: HostStaticNetworkConfig[],
  openshiftVersion: string | undefined,
  minVersion = DEFAULT_MIN_VERSION_FOR_NMSTATECTL,
): StaticNetworkFlavour {
  if (!openshiftVersion || !baseVersionAtLeast(openshiftVersion, minVersion)) return 'keyfile';
  return usesMacIdentifier(configs) ? 'keyfile' : 'nmstatectl';
}

/** `<mac>=<logical name>` lines, sorted, no trailing newline. */
export function macInterfaceIni(map: MacInterfaceEntry[]): string {
  return map
    .map((m) => `${m.mac_address}=${m.logical_nic_name}`)
    .sort()
    .join('\n');
}

/** Adds `autoconnect=true` and `autoconnect-priority=1` to the keyfile's [connection] section. */
export function withAutoconnect(keyfile: string): string {
  const lines = keyfile.replace(/\n+$/, '').split('\n');
  const start = lines.findIndex((l) => l.trim() === '[connection]');
  const settings = ['autoconnect=true', 'autoconnect-priority=1'];
  if (start < 0) return [...lines, '', '[connection]', ...settings, ''].join('\n');
  let end = lines.findIndex((l, i) => i > start && /^\s*\[/.test(l));
  if (end < 0) end = lines.length;
  const section = lines
    .slice(start + 1, end)
    .filter((l) => !/^\s*autoconnect(-priority)?\s*=/.test(l))
    .filter((l, i, all) => !(l.trim() === '' && i === all.length - 1));
  return [
    ...lines.slice(0, start + 1),
    ...section,
    ...settings,
    ...(end < lines.length ? [''] : []),
    ...lines.slice(end),
  ]
    .join('\n')
    .concat('\n');
}

/**
 * The nmpolicy for one host: `capture` selects each mapped NIC by its MAC (upper case), and
 * `desiredState` is the user's YAML with every logical NIC name replaced by the captured name.
 * Interfaces without ipv4/ipv6 sections get `enabled: false` ones, so nmstate does not leave
 * DHCP running on them.
 */
export function nmPolicyYaml(host: HostStaticNetworkConfig): string {
  const placeholders = new Map<string, string>();
  const capture: Record<string, string> = {};
  host.mac_interface_map.forEach((entry, j) => {
    capture[`iface${j}`] = `interfaces.mac-address == "${entry.mac_address.toUpperCase()}"`;
    placeholders.set(entry.logical_nic_name, `{{ capture.iface${j}.interfaces.0.name }}`);
  });
  const read = readNetworkYaml(host.network_yaml);
  const state = read.plainTree
    ? withAddressFamiliesSet(read.value)
    : documentWithAddressFamiliesSet(host.network_yaml);
  const desiredState = replaceNames(state, placeholders);
  return stringify({ capture, desiredState }, { lineWidth: 0 });
}

const ADDRESS_FAMILIES = ['ipv4', 'ipv6'] as const;

const isMapping = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The network state with `enabled: false` ipv4/ipv6 sections added to interfaces that are not
 * absent and lack them; copies where it adds (the value is shared). On a plain tree this is what
 * documentWithAddressFamiliesSet does to the document: each map is one object, keys are its
 * scalar keys, an added pair is the object's last key.
 */
function withAddressFamiliesSet(state: unknown): unknown {
  if (!isMapping(state) || !Array.isArray(state.interfaces)) return state;
  const interfaces = state.interfaces.map((nic: unknown) => {
    if (!isMapping(nic) || (Object.hasOwn(nic, 'state') && nic.state === 'absent')) return nic;
    const missing = ADDRESS_FAMILIES.filter((family) => !Object.hasOwn(nic, family));
    if (missing.length === 0) return nic;
    return { ...nic, ...Object.fromEntries(missing.map((family) => [family, { enabled: false }])) };
  });
  return { ...state, interfaces };
}

/** The same on the parsed document, for texts whose value is not a plain tree (aliases, tags…). */
function documentWithAddressFamiliesSet(networkYaml: string): unknown {
  const doc = parseDocument(networkYaml);
  const interfaces = doc.get('interfaces');
  if (isSeq(interfaces)) {
    for (const nic of interfaces.items) {
      if (!isMap(nic) || nic.get('state') === 'absent') continue;
      for (const family of ADDRESS_FAMILIES) {
        if (!nic.has(family)) nic.set(family, doc.createNode({ enabled: false }));
      }
    }
  }
  return doc.toJS() as unknown;
}

function replaceNames(value: unknown, names: Map<string, string>): unknown {
  if (typeof value === 'string') return names.get(value) ?? value;
  if (Array.isArray(value)) return value.map((v) => replaceNames(v, names));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaceNames(v, names)]));
  }
  return value;
}

/** Per host N (stored order): keyfiles then mac_interface.ini, or mac_interface.ini then ymlFileN.yml. */
export function generateStaticNetworkFiles(
  configs: HostStaticNetworkConfig[],
  flavour: StaticNetworkFlavour,
  keyfileGenerator?: KeyfileGenerator,
): { files?: StaticNetworkFile[]; error?: string } {
  const files: StaticNetworkFile[] = [];
  for (const [i, host] of configs.entries()) {
    const dir = `host${i}`;
    const ini: StaticNetworkFile = {
      path: `${dir}/mac_interface.ini`,
      contents: macInterfaceIni(host.mac_interface_map),
    };
    if (flavour === 'nmstatectl') {
      files.push(ini, { path: `${dir}/ymlFile${i}.yml`, contents: nmPolicyYaml(host) });
      continue;
    }
    if (!keyfileGenerator) {
      return { error: 'static network keyfiles need an nmstate keyfile generator (OCP < 4.18)' };
    }
    let keyfiles: { name: string; contents: string }[];
    try {
      keyfiles = keyfileGenerator(host.network_yaml);
    } catch (err) {
      return { error: `failed to create static config for host ${i}: ${(err as Error).message}` };
    }
    if (keyfiles.length === 0) {
      return {
        error: `failed to create static config for host ${i}: nmstate generated an empty NetworkManager config file content`,
      };
    }
    for (const keyfile of keyfiles) {
      const name = keyfile.name.endsWith('.nmconnection') ? keyfile.name : `${keyfile.name}.nmconnection`;
      files.push({ path: `${dir}/${name}`, contents: withAutoconnect(keyfile.contents) });
    }
    files.push(ini);
  }
  return { files };
}
