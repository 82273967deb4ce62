import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readNewc } from '../../../src/images/cpio.ts';
import { ignitionArchive } from '../../../src/images/embed.ts';
import { createViewStream, serveView } from '../../../src/images/iso-stream.ts';
import { withIsoFile } from '../../../src/images/iso9660.ts';
import { type LiveIsoLayout, readLiveIsoLayout } from '../../../src/images/live-iso.ts';
import {
  bootArtifactFile,
  bootArtifactView,
  imageServiceUrl,
  ipxeBootOrderControlScript,
  ipxeScript,
  pxeInitrdView,
} from '../../../src/images/pxe.ts';
import { buildTestIso, type TestIso } from '../../harness/iso.ts';
import { collect, makeTempDir } from './helpers.ts';

let tmp: Awaited<ReturnType<typeof makeTempDir>>;
let fixture: TestIso;
let layout: LiveIsoLayout;

beforeAll(async () => {
  tmp = await makeTempDir('pxe');
  fixture = await buildTestIso(tmp.dir);
  layout = await withIsoFile(fixture.path, readLiveIsoLayout);
});
afterAll(() => tmp.cleanup());

describe('boot artifacts', () => {
  it('serves kernel and rootfs from the ISO extents', async () => {
    const kernel = bootArtifactFile(layout, 'kernel', 'x86_64');
    expect(kernel?.filename).toBe('vmlinuz');
    const res = await serveView(
      bootArtifactView(fixture.path, kernel!),
      { method: 'GET' },
      { filename: kernel!.filename },
    );
    expect(res.headers['Content-Disposition']).toBe('attachment; filename=vmlinuz');
    expect(res.headers['Content-Length']).toBe(String(fixture.files.vmlinuz.length));
    expect((await collect(res.body!)).equals(fixture.files.vmlinuz)).toBe(true);

    const rootfs = bootArtifactFile(layout, 'rootfs', 'x86_64');
    expect(rootfs?.filename).toBe('rootfs.img');
    const range = await serveView(bootArtifactView(fixture.path, rootfs!), {
      method: 'GET',
      range: 'bytes=1000-1999',
    });
    expect(range.status).toBe(206);
    expect((await collect(range.body!)).equals(fixture.files.rootfs.subarray(1000, 2000))).toBe(true);
  });

  it('knows the s390x names and refuses unknown artifacts', () => {
    const withS390 = {
      ...layout,
      pxe: { ...layout.pxe, kernelImg: { offset: 1, length: 2 }, genericIns: { offset: 3, length: 4 } },
    };
    expect(bootArtifactFile(withS390, 'kernel', 's390x', '416.94.202405291527-0')?.filename).toBe(
      'kernel.img',
    );
    expect(bootArtifactFile(withS390, 'kernel', 's390x', '418.96.202501010000-0')?.filename).toBe('vmlinuz');
    expect(bootArtifactFile(withS390, 'ins-file', 's390x')?.extent).toEqual({ offset: 3, length: 4 });
    expect(bootArtifactFile(withS390, 'ins-file', 'x86_64')).toBeUndefined();
    expect(bootArtifactFile(layout, 'initrd', 'x86_64')).toBeUndefined();
    expect(bootArtifactFile(layout, 'ins-file', 's390x')).toBeUndefined();
  });
});

describe('pxe-initrd', () => {
  it('is the ISO initrd followed by the ignition archive and the ramdisk', async () => {
    const ignition = '{"ignition":{"version":"3.1.0"}}';
    const ramdisk = Buffer.from('ramdisk-archive');
    const view = pxeInitrdView(fixture.path, layout, { ignition, ramdisk });
    const bytes = await collect(createViewStream(view));
    const archive = ignitionArchive(ignition);
    expect(bytes.equals(Buffer.concat([fixture.files.initrd, archive, ramdisk]))).toBe(true);
    const appended = bytes.subarray(
      fixture.files.initrd.length,
      fixture.files.initrd.length + archive.length,
    );
    expect(readNewc(gunzipSync(appended))[0]?.data.toString()).toBe(ignition);
  });

  it('leaves out an empty ramdisk', () => {
    const view = pxeInitrdView(fixture.path, layout, { ignition: '{}', ramdisk: Buffer.alloc(0) });
    expect(view.size).toBe(fixture.files.initrd.length + ignitionArchive('{}').length);
  });
});

describe('iPXE scripts', () => {
  const jwt = 'eyJhbGciOiJFUzI1NiJ9.eyJpbmZyYV9lbnZfaWQiOiJ4In0.c2ln';
  const ie = '770980f8-07d0-4824-899c-0da82a7555a5';
  const kernelLine = (base: string, extra = '') =>
    `kernel ${base}/boot-artifacts/kernel?arch=x86_64&version=4.16 initrd=initrd ` +
    `coreos.live.rootfs_url=${base}/boot-artifacts/rootfs?arch=x86_64&version=4.16 random.trust_cpu=on ` +
    'rd.luks.options=discard ignition.firstboot ignition.platform.id=metal console=tty1 console=ttyS1,115200n8 ' +
    `coreos.inst.persistent-kargs="console=tty1 console=ttyS1,115200n8"${extra}`;

  it('signs the initrd URL with api_key for local auth', () => {
    const base = 'https://images.example.com';
    expect(
      ipxeScript({
        imageServiceBaseUrl: base,
        infraEnvId: ie,
        cpuArchitecture: 'x86_64',
        openshiftVersion: '4.16',
        auth: { kind: 'api_key', token: jwt },
      }),
    ).toBe(
      '#!ipxe\n' +
        `initrd --name initrd ${base}/images/${ie}/pxe-initrd?api_key=${jwt}&arch=x86_64&version=4.16\n` +
        `${kernelLine(base)}\n` +
        'boot\n',
    );
  });

  it('uses image_token for rhsso, nothing for none, http when insecure, and appends kargs', () => {
    const rhsso = ipxeScript({
      imageServiceBaseUrl: 'https://images.example.com/base/',
      infraEnvId: ie,
      cpuArchitecture: 'x86_64',
      openshiftVersion: '4.16',
      auth: { kind: 'image_token', token: 'tok' },
      kernelArguments: ['ip=dhcp', 'quiet'],
    });
    expect(rhsso.split('\n')[1]).toBe(
      `initrd --name initrd https://images.example.com/base/images/${ie}/pxe-initrd?arch=x86_64&image_token=tok&version=4.16`,
    );
    expect(rhsso.split('\n')[2]).toBe(kernelLine('https://images.example.com/base', ' ip=dhcp quiet'));

    const insecure = ipxeScript({
      imageServiceBaseUrl: 'https://images.example.com:8443',
      infraEnvId: ie,
      cpuArchitecture: 'x86_64',
      openshiftVersion: '4.16',
      auth: { kind: 'none' },
      insecureHttp: true,
    });
    expect(insecure.split('\n')[1]).toBe(
      `initrd --name initrd http://images.example.com:8443/images/${ie}/pxe-initrd?arch=x86_64&version=4.16`,
    );
    expect(insecure.split('\n')[2]).toBe(kernelLine('http://images.example.com:8443'));
  });

  it('chains back with the MAC for boot-order-control', () => {
    expect(
      ipxeBootOrderControlScript({ serviceBaseUrl: 'https://svc.example.com/', infraEnvId: ie, apiKey: jwt }),
    ).toBe(
      `#!ipxe\nchain https://svc.example.com/api/assisted-install/v2/infra-envs/${ie}/downloads/files?api_key=${jwt}&file_name=ipxe-script&mac=\${net0/mac}\n`,
    );
  });

  it('escapes query values like Go', () => {
    expect(imageServiceUrl('http://h', 'p', { b: 'x y&z', a: '1' })).toBe('http://h/p?a=1&b=x+y%26z');
  });
});
