// Ignition config shapes (spec 3.1.0 / 3.2.0) as far as the service generates or merges them.
// Values arrive from users as arbitrary JSON, so every nested field is optional here; the parser
// (parse.ts) checks the types against the schema before anything reads them.

export type IgnitionVersion = '3.1.0' | '3.2.0';

export interface IgnitionHttpHeader {
  name: string;
  value?: string | null;
}

export interface IgnitionResource {
  source?: string | null;
  compression?: string | null;
  httpHeaders?: IgnitionHttpHeader[];
  verification?: { hash?: string | null };
}

export interface IgnitionNodeOwner {
  id?: number | null;
  name?: string | null;
}

export interface IgnitionFile {
  path: string;
  overwrite?: boolean | null;
  mode?: number | null;
  user?: IgnitionNodeOwner;
  group?: IgnitionNodeOwner;
  contents?: IgnitionResource;
  append?: IgnitionResource[];
}

export interface IgnitionUnit {
  name: string;
  enabled?: boolean | null;
  mask?: boolean | null;
  contents?: string | null;
  dropins?: { name: string; contents?: string | null }[];
}

export interface IgnitionUser {
  name: string;
  passwordHash?: string | null;
  sshAuthorizedKeys?: string[];
  groups?: string[];
  [field: string]: unknown;
}

export interface IgnitionConfig {
  ignition: {
    version: string;
    config?: { merge?: IgnitionResource[]; replace?: IgnitionResource };
    proxy?: { httpProxy?: string | null; httpsProxy?: string | null; noProxy?: string[] };
    security?: { tls?: { certificateAuthorities?: IgnitionResource[] } };
    timeouts?: { httpResponseHeaders?: number | null; httpTotal?: number | null };
  };
  passwd?: { users?: IgnitionUser[]; groups?: Record<string, unknown>[] };
  storage?: {
    files?: IgnitionFile[];
    directories?: Record<string, unknown>[];
    links?: Record<string, unknown>[];
    disks?: Record<string, unknown>[];
    filesystems?: Record<string, unknown>[];
    luks?: Record<string, unknown>[];
    raid?: Record<string, unknown>[];
  };
  systemd?: { units?: IgnitionUnit[] };
}

/** Result of an operation that fails with a user-facing message (the text carries over from upstream). */
export type IgnitionResult<T> = { ok: true; value: T } | { ok: false; error: string; details?: string[] };
