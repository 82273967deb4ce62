// Booting from discovery media: the ignition parser against the project's golden discovery
// ignitions, then the ISO path end to end — a real xorriso-built live ISO with an embedded
// ignition archive, served over HTTP with Range support, read a few KiB at a time.

import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeNewc } from '../../../src/images/cpio.ts';
import {
  bootFromIgnitionUrl,
  bootFromIso,
  parseDiscoveryIgnition,
  parseGoFlags,
  serviceTrust,
  splitSystemdWords,
} from '../../../src/sim/boot.ts';
import { startFleet } from '../../../src/sim/fleet.ts';
import {
  bufferSource,
  decodeEmbedArea,
  findIsoFile,
  readEmbeddedIgnition,
} from '../../../src/sim/iso-read.ts';
import { buildTestIso, runXorriso } from '../../harness/iso.ts';
import { FakeAgentApi } from './fake-agent-api.ts';
import { MediaServer } from './media-server.ts';

const GOLDEN = 'test/unit/core/ignition/golden';
const INFRA_ENV = '5c4a7c8e-1b2d-4e5f-8a9b-0c1d2e3f4a5b';
const AGENT = 'quay.io/edge-infrastructure/assisted-installer-agent:latest';

/** The gzip'd cpio + 4-byte padding the image service embeds (§9.3). */
function ignitionArchive(ignition: string): Buffer {
  const gz = gzipSync(writeNewc([{ name: 'config.ign', data: Buffer.from(ignition) }]));
  return Buffer.concat([gz, Buffer.alloc((4 - (gz.length % 4)) % 4)]);
}

/** A minimal discovery ignition with an agent.service like the service generates. */
function discoveryIgnition(opts: { url: string; token?: string; ca?: string }): string {
  const unit = [
    '[Service]',
    'Type=simple',
    ...(opts.token ? [`Environment=PULL_SECRET_TOKEN=${opts.token}`] : []),
    `ExecStart=/usr/local/bin/agent --url ${opts.url} --infra-env-id ${INFRA_ENV} --agent-version ${AGENT} --insecure=false${opts.ca ? ' --cacert /etc/assisted-service/service-ca-cert.crt' : ''}`,
  ].join('\n');
  const files = [
    { path: '/root/.docker/config.json', contents: { source: 'data:,%7B%22auths%22%3A%7B%7D%7D' } },
    ...(opts.ca
      ? [
          {
            path: '/etc/assisted-service/service-ca-cert.crt',
            contents: { source: `data:text/plain;base64,${Buffer.from(opts.ca).toString('base64')}` },
          },
        ]
      : []),
  ];
  return JSON.stringify({
    ignition: { version: '3.1.0' },
    storage: { files },
    systemd: { units: [{ name: 'agent.service', enabled: true, contents: unit }] },
  });
}

/** Writes the archive into images/ignition.img, located independently with xorriso. */
async function embed(isoPath: string, archive: Buffer, pathInIso = '/images/ignition.img'): Promise<number> {
  const { stdout } = await runXorriso(['-indev', isoPath, '-find', pathInIso, '-exec', 'report_lba']);
  const m = /File data lba:\s*\d+\s*,\s*(\d+)\s*,/.exec(stdout);
  if (!m) throw new Error(`no lba in ${stdout}`);
  const offset = Number(m[1]) * 2048;
  const iso = await readFile(isoPath);
  archive.copy(iso, offset);
  await writeFile(isoPath, iso);
  return offset;
}

describe('discovery ignition parsing', () => {
  it('reads flags, token, proxy, CA and pull secret from a golden discovery ignition', async () => {
    const text = await readFile(join(GOLDEN, 'discovery-proxy-ntp-ca-ssh.ign'), 'utf8');
    const { config } = parseDiscoveryIgnition(text);
    expect(config).toMatchObject({
      serviceUrl: 'https://assisted.example.com:8090',
      infraEnvId: INFRA_ENV,
      agentVersion: AGENT,
      insecure: true,
      caCertPath: '/etc/assisted-service/service-ca-cert.crt',
      caCert: '-----BEGIN CERTIFICATE-----\nMIIBtest\n-----END CERTIFICATE-----\n',
      token: 'eyJhbGciOiJFUzI1NiJ9.eyJpbmZyYV9lbnZfaWQiOiJ4In0.sig',
      pullSecret: '{"auths":{"cloud.openshift.com":{"auth":"dXNlcjpwYXNz","email":"a@b.c"}}}',
      // "%%" in the unit is systemd's escape for "%".
      proxy: {
        httpProxy: 'http://proxy.example.com:3128',
        httpsProxy: 'http://user:p%40ss@proxy.example.com:3128',
      },
    });
    expect(config.trustAnchors.length).toBeGreaterThan(0);
    expect(serviceTrust(config)).toEqual({ rejectUnauthorized: false });
  });

  it('a minimal golden ignition: no token → empty X-Secret-Key, no CA', async () => {
    const { config } = parseDiscoveryIgnition(await readFile(join(GOLDEN, 'discovery-minimal.ign'), 'utf8'));
    expect(config.infraEnvId).toBe(INFRA_ENV);
    expect(typeof config.token).toBe('string');
    expect(config.caCert).toBeUndefined();
  });

  it('splits systemd words and Go flags', () => {
    expect(splitSystemdWords(`a "b c" 'd e' f\\ g`)).toEqual(['a', 'b c', 'd e', 'f g']);
    expect(parseGoFlags(['--url', 'http://x', '--insecure', '-interval=5', '--cacert', '/c'])).toEqual({
      url: 'http://x',
      insecure: 'true',
      interval: '5',
      cacert: '/c',
    });
    expect(() => parseDiscoveryIgnition('{"systemd":{"units":[]}}')).toThrow(/agent.service/);
  });

  it('decodes an embed area: gzip cpio followed by zeros; rejects empty and xz areas', () => {
    const area = Buffer.concat([ignitionArchive('{"a":1}'), Buffer.alloc(4096)]);
    expect(decodeEmbedArea(area)[0]!.data.toString()).toBe('{"a":1}');
    expect(() => decodeEmbedArea(Buffer.alloc(1024))).toThrow(/empty/);
    expect(() => decodeEmbedArea(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 1, 2]))).toThrow(/xz/);
  });
});

describe('booting from a real ISO', () => {
  let dir: string;
  let isoPath: string;
  let plainIsoPath: string;
  let areaOffset: number;
  const ignition = discoveryIgnition({
    url: 'http://10.0.0.1:8090',
    token: 'tok-123',
    ca: '-----BEGIN CERTIFICATE-----\nX\n-----END CERTIFICATE-----\n',
  });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sim-boot-'));
    isoPath = (await buildTestIso(dir)).path;
    areaOffset = await embed(isoPath, ignitionArchive(ignition));
    // A plain ISO9660 image (no Rock Ridge, no igninfo.json): 8.3 names and the ignition.img fallback.
    const root = join(dir, 'plain');
    await mkdir(join(root, 'images'), { recursive: true });
    await writeFile(join(root, 'images', 'ignition.img'), Buffer.alloc(64 * 1024));
    plainIsoPath = join(dir, 'plain.iso');
    await runXorriso([
      '-outdev',
      plainIsoPath,
      '-rockridge',
      'off',
      '-joliet',
      'off',
      '-map',
      root,
      '/',
      '-commit',
    ]);
    expect((await readFile(plainIsoPath)).includes('ignition.img')).toBe(false);
    await embed(plainIsoPath, ignitionArchive(ignition), '/IMAGES/IGNITION.IMG');
  }, 60_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('finds igninfo.json via Rock Ridge names and reads config.ign from a buffer', async () => {
    const src = bufferSource(await readFile(isoPath));
    expect(await findIsoFile(src, 'coreos/igninfo.json')).toMatchObject({ directory: false });
    const { ignition: got, area } = await readEmbeddedIgnition(src);
    expect(got.toString()).toBe(ignition);
    expect(area).toEqual({ offset: areaOffset, length: 256 * 1024, via: 'igninfo.json' });
  });

  it('falls back to images/ignition.img on a plain ISO9660 image (upper-case 8.3 names)', async () => {
    const { ignition: got, area } = await readEmbeddedIgnition(bufferSource(await readFile(plainIsoPath)));
    expect(got.toString()).toBe(ignition);
    expect(area.via).toBe('images/ignition.img');
  });

  it('boots over HTTP with Range requests, fetching only a few KiB of the image', async () => {
    const iso = await readFile(isoPath);
    const server = await new MediaServer({ '/byapikey/jwt/4.16/x86_64/minimal.iso': iso }).start();
    try {
      const result = await bootFromIso(`${server.url}/byapikey/jwt/4.16/x86_64/minimal.iso`);
      expect(result.config).toMatchObject({
        serviceUrl: 'http://10.0.0.1:8090',
        infraEnvId: INFRA_ENV,
        agentVersion: AGENT,
        token: 'tok-123',
        caCertPath: '/etc/assisted-service/service-ca-cert.crt',
        caCert: '-----BEGIN CERTIFICATE-----\nX\n-----END CERTIFICATE-----\n',
        pullSecret: '{"auths":{}}',
      });
      expect(result.source).toMatchObject({ kind: 'iso', areaOffset, via: 'igninfo.json' });
      expect(server.requests.every((r) => r.status === 206)).toBe(true);
      const fetched = server.requests.reduce((n, r) => n + r.bytes, 0);
      expect(fetched).toBeLessThan(100 * 1024);
      expect(fetched).toBeLessThan(iso.length / 10);
    } finally {
      await server.close();
    }
  });

  it('startFleet boots from the served ISO and its hosts register with the embedded token', async () => {
    const api = await new FakeAgentApi({ lifetimeMs: 30_000 }).start();
    const fleetIso = (await buildTestIso(dir, { name: 'fleet.iso' })).path;
    await embed(fleetIso, ignitionArchive(discoveryIgnition({ url: api.url, token: 'iso-token' })));
    const server = await new MediaServer({ '/fleet.iso': await readFile(fleetIso) }).start();
    const fleet = await startFleet({
      media: { isoUrl: `${server.url}/fleet.iso` },
      hosts: 3,
      speed: 1000,
      startJitterMs: 10,
    });
    try {
      await fleet.waitFor((f) => f.stats.stepsByType.inventory === 3, { timeoutMs: 20_000 });
      expect(fleet.config).toMatchObject({ serviceUrl: api.url, infraEnvId: INFRA_ENV, token: 'iso-token' });
      const registers = api.find('POST', /\/hosts$/);
      expect(registers).toHaveLength(3);
      expect(registers.every((r) => r.headers['x-secret-key'] === 'iso-token')).toBe(true);
      expect(server.requests.every((r) => r.status === 206)).toBe(true);
    } finally {
      await fleet.stop();
      await server.close();
      await api.close();
    }
  });

  it('copes with a server that ignores Range (stops reading early)', async () => {
    const server = await new MediaServer(
      { '/full.iso': await readFile(isoPath) },
      { ignoreRange: true },
    ).start();
    try {
      const result = await bootFromIso(`${server.url}/full.iso`);
      expect(result.config.token).toBe('tok-123');
    } finally {
      await server.close();
    }
  });

  it('reports HTTP errors with the credential redacted', async () => {
    const server = await new MediaServer({}).start();
    try {
      await expect(bootFromIso(`${server.url}/byapikey/secret-jwt/4.16/x86_64/minimal.iso`)).rejects.toThrow(
        /HTTP 404/,
      );
      await expect(
        bootFromIso(`${server.url}/byapikey/secret-jwt/4.16/x86_64/minimal.iso`),
      ).rejects.not.toThrow(/secret-jwt/);
    } finally {
      await server.close();
    }
  });
});

describe('booting from a discovery.ign URL', () => {
  it('GETs the ignition and parses it', async () => {
    const ign = discoveryIgnition({ url: 'https://svc.example:8090', token: 't' });
    const server = await new MediaServer({
      '/api/assisted-install/v2/infra-envs/x/downloads/files': Buffer.from(ign),
    }).start();
    try {
      const result = await bootFromIgnitionUrl(
        `${server.url}/api/assisted-install/v2/infra-envs/x/downloads/files?file_name=discovery.ign&api_key=k`,
      );
      expect(result.config).toMatchObject({
        serviceUrl: 'https://svc.example:8090',
        token: 't',
        infraEnvId: INFRA_ENV,
      });
      expect(result.source).toEqual({
        kind: 'ignition',
        url: expect.stringContaining('file_name=discovery.ign'),
      });
    } finally {
      await server.close();
    }
  });
});
