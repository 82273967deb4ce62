// Semantic checks that make Ignition reject a config (its "fatal" report entries), restricted to
// what matters for service-generated configs and user overrides: absolute unique paths, unit and
// dropin names, resource URLs, compression, hashes, file modes, proxy URLs and duplicate keys.

import { decodeDataUrl } from './encoding.ts';
import type { IgnitionConfig, IgnitionResource } from './types.ts';

const UNIT_SUFFIXES = [
  '.service',
  '.socket',
  '.device',
  '.mount',
  '.automount',
  '.swap',
  '.target',
  '.path',
  '.timer',
  '.snapshot',
  '.slice',
  '.scope',
];
const SOURCE_SCHEMES = ['http', 'https', 'tftp', 's3', 'gs', 'data'];
const HASH_LENGTHS: Record<string, number> = { sha512: 128, sha256: 64 };
const FILESYSTEM_FORMATS = ['ext4', 'btrfs', 'xfs', 'vfat', 'swap', 'none'];

type Obj = Record<string, unknown>;

/** Returns one message per fatal problem (empty = valid). Messages name the JSON path. */
export function validateConfig(config: IgnitionConfig): string[] {
  const problems: string[] = [];
  const add = (path: string, message: string) => problems.push(`${path}: ${message}`);

  const ign = config.ignition;
  ign.config?.merge?.forEach((r, i) => {
    checkResource(r, `$.ignition.config.merge.${i}`, add);
  });
  if (ign.config?.replace) checkResource(ign.config.replace, '$.ignition.config.replace', add);
  ign.security?.tls?.certificateAuthorities?.forEach((r, i) => {
    checkResource(r, `$.ignition.security.tls.certificateAuthorities.${i}`, add);
  });
  for (const key of ['httpProxy', 'httpsProxy'] as const) {
    const url = ign.proxy?.[key];
    if (url && !/^https?:\/\/[^/\s]/.test(url)) add(`$.ignition.proxy.${key}`, 'invalid url');
  }
  checkDuplicates(ign.config?.merge as Obj[] | undefined, 'source', '$.ignition.config.merge', add);

  const storage = config.storage ?? {};
  const nodePaths = new Set<string>();
  const nodeLists: [string, Obj[] | undefined][] = [
    ['files', storage.files as unknown as Obj[] | undefined],
    ['directories', storage.directories],
    ['links', storage.links],
  ];
  for (const [listName, nodes] of nodeLists) {
    nodes?.forEach((node, i) => {
      const path = `$.storage.${listName}.${i}`;
      const nodePath = String(node.path ?? '');
      if (!nodePath.startsWith('/')) add(`${path}.path`, 'path not absolute');
      else if (nodePaths.has(nodePath)) add(`${path}.path`, `duplicate entry for path ${nodePath}`);
      nodePaths.add(nodePath);
      if (typeof node.mode === 'number' && (node.mode < 0 || node.mode > 0o7777)) {
        add(`${path}.mode`, 'illegal file mode');
      }
      if (listName === 'links' && !node.target) add(`${path}.target`, 'link target is required');
    });
  }
  storage.files?.forEach((file, i) => {
    const path = `$.storage.files.${i}`;
    if (file.contents) checkResource(file.contents, `${path}.contents`, add);
    file.append?.forEach((r, j) => {
      checkResource(r, `${path}.append.${j}`, add);
    });
    if (file.overwrite === true && !file.contents?.source) {
      add(`${path}.overwrite`, 'overwrite must be false if source is unspecified');
    }
  });
  checkDuplicates(storage.disks, 'device', '$.storage.disks', add);
  checkDuplicates(storage.filesystems, 'device', '$.storage.filesystems', add);
  checkDuplicates(storage.raid, 'name', '$.storage.raid', add);
  checkDuplicates(storage.luks, 'name', '$.storage.luks', add);
  storage.filesystems?.forEach((fs, i) => {
    if (typeof fs.format === 'string' && fs.format !== '' && !FILESYSTEM_FORMATS.includes(fs.format)) {
      add(`$.storage.filesystems.${i}.format`, 'invalid filesystem format');
    }
    if (typeof fs.path === 'string' && fs.path !== '' && !fs.path.startsWith('/')) {
      add(`$.storage.filesystems.${i}.path`, 'path not absolute');
    }
  });
  storage.disks?.forEach((disk, i) => {
    if (!String(disk.device ?? '').startsWith('/')) add(`$.storage.disks.${i}.device`, 'path not absolute');
  });

  const units = config.systemd?.units ?? [];
  checkDuplicates(units as unknown as Obj[], 'name', '$.systemd.units', add);
  units.forEach((unit, i) => {
    const path = `$.systemd.units.${i}`;
    if (!UNIT_SUFFIXES.some((s) => unit.name.endsWith(s) && unit.name.length > s.length)) {
      add(`${path}.name`, 'invalid systemd unit extension');
    }
    checkDuplicates(unit.dropins as Obj[] | undefined, 'name', `${path}.dropins`, add);
    unit.dropins?.forEach((dropin, j) => {
      if (!dropin.name.endsWith('.conf'))
        add(`${path}.dropins.${j}.name`, 'invalid systemd unit dropin extension');
    });
  });

  const passwd = config.passwd ?? {};
  checkDuplicates(passwd.users as unknown as Obj[] | undefined, 'name', '$.passwd.users', add);
  checkDuplicates(passwd.groups, 'name', '$.passwd.groups', add);
  passwd.users?.forEach((user, i) => {
    if (!user.name) add(`$.passwd.users.${i}.name`, 'field is required');
  });
  passwd.groups?.forEach((group, i) => {
    if (!group.name) add(`$.passwd.groups.${i}.name`, 'field is required');
  });
  return problems;
}

function checkResource(resource: IgnitionResource, path: string, add: (p: string, m: string) => void): void {
  const source = resource.source;
  if (source !== undefined && source !== null) {
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(source)?.[1]?.toLowerCase();
    if (!scheme || !SOURCE_SCHEMES.includes(scheme)) add(`${path}.source`, 'invalid url scheme');
    else if (scheme === 'data' && decodeDataUrl(source) === undefined)
      add(`${path}.source`, 'invalid data url');
    if (resource.httpHeaders?.length && scheme !== 'http' && scheme !== 'https') {
      add(`${path}.httpHeaders`, 'unsupported scheme for http headers');
    }
  }
  const compression = resource.compression;
  if (compression && compression !== 'gzip') add(`${path}.compression`, 'invalid compression method');
  const hash = resource.verification?.hash;
  if (hash) {
    const [fn, sum] = hash.split('-', 2);
    const length = fn ? HASH_LENGTHS[fn] : undefined;
    if (!length) add(`${path}.verification.hash`, 'unrecognized hash function');
    else if (!sum || sum.length !== length || !/^[0-9a-f]+$/.test(sum)) {
      add(`${path}.verification.hash`, 'malformed hash specifier');
    }
  }
  const headerNames = new Set<string>();
  resource.httpHeaders?.forEach((header, i) => {
    if (!header.name) add(`${path}.httpHeaders.${i}.name`, 'header name is required');
    if (headerNames.has(header.name)) add(`${path}.httpHeaders.${i}`, 'duplicate http header');
    headerNames.add(header.name);
  });
}

function checkDuplicates(
  items: Obj[] | undefined,
  key: string,
  path: string,
  add: (p: string, m: string) => void,
): void {
  const seen = new Set<string>();
  items?.forEach((item, i) => {
    const value = String(item[key] ?? '');
    if (seen.has(value)) add(`${path}.${i}.${key}`, `duplicate entry ${value}`);
    seen.add(value);
  });
}
