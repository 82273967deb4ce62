// The Ignition 3.2.0 config schema (3.1.0 is a strict subset), described as data so that the
// parser can type-check user JSON and the merger can apply coreos/ignition's merge rules
// (keyed lists, pointer vs. value fields) without a hand-written walk per type.

export type PrimitiveType = 'string' | 'integer' | 'boolean';

/**
 * `value` fields are Go non-pointer fields: in a merge the child's value always wins, even when the
 * child leaves it out (it is then the zero value). `pointer` fields only win when the child sets them.
 */
export interface PrimitiveSpec {
  kind: 'primitive';
  type: PrimitiveType;
  value?: boolean;
}

export interface StructSpec {
  kind: 'struct';
  fields: Record<string, FieldSpec>;
  /** Go pointer-to-struct (luks.clevis, clevis.custom): the child's object replaces the parent's whole. */
  pointer?: boolean;
  /** Only in 3.2.0 (fields added by 3.2). */
  since32?: string[];
}

export interface ListSpec {
  kind: 'list';
  item: PrimitiveSpec | StructSpec;
  /** Returns an item's merge key; primitive lists are keyed by their value. */
  key?: (item: Record<string, unknown>) => string;
  /** Lists that share one key space (storage files/directories/links). */
  handle?: string;
  /** Appended without key matching (files[].append). */
  appendOnly?: boolean;
}

export type FieldSpec = PrimitiveSpec | StructSpec | ListSpec;

const str: PrimitiveSpec = { kind: 'primitive', type: 'string' };
const int: PrimitiveSpec = { kind: 'primitive', type: 'integer' };
const bool: PrimitiveSpec = { kind: 'primitive', type: 'boolean' };
const valueStr: PrimitiveSpec = { kind: 'primitive', type: 'string', value: true };
const valueInt: PrimitiveSpec = { kind: 'primitive', type: 'integer', value: true };

const byName = (item: Record<string, unknown>) => String(item.name ?? '');
const bySource = (item: Record<string, unknown>) => String(item.source ?? '');
const byPath = (item: Record<string, unknown>) => String(item.path ?? '');
const byDevice = (item: Record<string, unknown>) => String(item.device ?? '');
const byUrl = (item: Record<string, unknown>) => String(item.url ?? '');
const byPartition = (item: Record<string, unknown>) =>
  typeof item.number === 'number' && item.number !== 0 ? String(item.number) : String(item.label ?? '');

function struct(fields: Record<string, FieldSpec>, extra: Partial<StructSpec> = {}): StructSpec {
  return { kind: 'struct', fields, ...extra };
}
function list(item: PrimitiveSpec | StructSpec, extra: Partial<ListSpec> = {}): ListSpec {
  return { kind: 'list', item, ...extra };
}

const httpHeader = struct({ name: valueStr, value: str });
export const resourceSpec: StructSpec = struct({
  compression: str,
  httpHeaders: list(httpHeader, { key: byName }),
  source: str,
  verification: struct({ hash: str }),
});
const owner = struct({ id: int, name: str });

const nodeFields: Record<string, FieldSpec> = { group: owner, overwrite: bool, path: valueStr, user: owner };

const fileSpec = struct({
  ...nodeFields,
  append: list(resourceSpec, { appendOnly: true }),
  contents: resourceSpec,
  mode: int,
});
const directorySpec = struct({ ...nodeFields, mode: int });
const linkSpec = struct({ ...nodeFields, hard: bool, target: valueStr });

const partitionSpec = struct(
  {
    guid: str,
    label: str,
    number: valueInt,
    resize: bool,
    shouldExist: bool,
    sizeMiB: int,
    startMiB: int,
    typeGuid: str,
    wipePartitionEntry: bool,
  },
  { since32: ['resize'] },
);

const tangSpec = struct({ thumbprint: str, url: valueStr });
const clevisSpec = struct(
  {
    custom: struct({ config: valueStr, needsNetwork: bool, pin: valueStr }, { pointer: true }),
    tang: list(tangSpec, { key: byUrl }),
    threshold: int,
    tpm2: bool,
  },
  { pointer: true },
);

const luksSpec = struct({
  clevis: clevisSpec,
  device: str,
  keyFile: resourceSpec,
  label: str,
  name: valueStr,
  options: list(str),
  uuid: str,
  wipeVolume: bool,
});

const userSpec = struct(
  {
    gecos: str,
    groups: list(str),
    homeDir: str,
    name: valueStr,
    noCreateHome: bool,
    noLogInit: bool,
    noUserGroup: bool,
    passwordHash: str,
    primaryGroup: str,
    shell: str,
    shouldExist: bool,
    sshAuthorizedKeys: list(str),
    system: bool,
    uid: int,
  },
  { since32: ['shouldExist'] },
);

const groupSpec = struct(
  { gid: int, name: valueStr, passwordHash: str, shouldExist: bool, system: bool },
  { since32: ['shouldExist'] },
);

const unitSpec = struct({
  contents: str,
  dropins: list(struct({ contents: str, name: valueStr }), { key: byName }),
  enabled: bool,
  mask: bool,
  name: valueStr,
});

export const configSpec: StructSpec = struct({
  ignition: struct({
    config: struct({ merge: list(resourceSpec, { key: bySource }), replace: resourceSpec }),
    proxy: struct({ httpProxy: str, httpsProxy: str, noProxy: list(str) }),
    security: struct({ tls: struct({ certificateAuthorities: list(resourceSpec, { key: bySource }) }) }),
    timeouts: struct({ httpResponseHeaders: int, httpTotal: int }),
    version: valueStr,
  }),
  passwd: struct({
    groups: list(groupSpec, { key: byName }),
    users: list(userSpec, { key: byName }),
  }),
  storage: struct(
    {
      directories: list(directorySpec, { key: byPath, handle: 'node' }),
      disks: list(
        struct({ device: valueStr, partitions: list(partitionSpec, { key: byPartition }), wipeTable: bool }),
        { key: byDevice },
      ),
      files: list(fileSpec, { key: byPath, handle: 'node' }),
      filesystems: list(
        struct({
          device: valueStr,
          format: str,
          label: str,
          mountOptions: list(str),
          options: list(str),
          path: str,
          uuid: str,
          wipeFilesystem: bool,
        }),
        { key: byDevice },
      ),
      links: list(linkSpec, { key: byPath, handle: 'node' }),
      luks: list(luksSpec, { key: byName }),
      raid: list(
        struct({ devices: list(str), level: valueStr, name: valueStr, options: list(str), spares: int }),
        { key: byName },
      ),
    },
    { since32: ['luks'] },
  ),
  systemd: struct({ units: list(unitSpec, { key: byName }) }),
});
