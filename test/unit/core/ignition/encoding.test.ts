import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  base64DataUrl,
  buildIgnitionArchive,
  buildIronicAgentIgnition,
  canonicalJson,
  DEFAULT_IRONIC_AGENT_IMAGE,
  decodeDataUrl,
  escapedDataUrl,
  ignitionArchiveSizeError,
  ironicAgentOverride,
  ironicCallbackUrls,
  parseIgnition,
  pathEscape,
} from '../../../../src/core/ignition/index.ts';
import { baseVersionAtLeast, compareBaseVersions } from '../../../../src/core/version.ts';
import { minimalInfraEnv } from './fixtures.ts';

describe('data URLs', () => {
  it('path-escapes like Go url.PathEscape', () => {
    expect(pathEscape('a-z_.~$&+:=@ /;,?%é"{}\n')).toBe('a-z_.~$&+:=@%20%2F%3B%2C%3F%25%C3%A9%22%7B%7D%0A');
    expect(escapedDataUrl('x y')).toBe('data:,x%20y');
    expect(base64DataUrl('hi')).toBe('data:text/plain;base64,aGk=');
    expect(base64DataUrl('hi', '')).toBe('data:;base64,aGk=');
  });
  it('decodes', () => {
    expect(decodeDataUrl('data:,x%20y')?.toString()).toBe('x y');
    expect(decodeDataUrl('data:text/plain;charset=utf-8;base64,aGk=')?.toString()).toBe('hi');
    expect(decodeDataUrl('data:;base64,@@')).toBeUndefined();
    expect(decodeDataUrl('data:,%E0%A4%A')).toBeUndefined();
    expect(decodeDataUrl('data:nocomma')).toBeUndefined();
    expect(decodeDataUrl('https://x')).toBeUndefined();
  });
});

describe('canonical JSON', () => {
  it('sorts keys at every level, keeps array order, drops null/undefined', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: null }], c: undefined } })).toBe(
      '{"a":{"d":[3,{"z":1}]},"b":1}',
    );
  });
  it('keeps null members when asked (the InfraEnv image digest hashes them)', () => {
    expect(
      canonicalJson({ b: null, a: [undefined, { y: null, c: undefined }] }, undefined, { keepNull: true }),
    ).toBe('{"a":[null,{"y":null}],"b":null}');
  });
});

describe('ignition archive', () => {
  it('gzip of a newc cpio with config.ign and a trailer, 4-byte padded', () => {
    const archive = buildIgnitionArchive('{"a":1}');
    expect(archive.length % 4).toBe(0);
    const cpio = gunzipSync(archive);
    const text = cpio.toString('latin1');
    expect(text.slice(0, 110)).toBe(
      '070701' +
        '00000001' +
        '000081A4' +
        '00000000'.repeat(2) +
        '00000001' +
        '00000000' +
        '00000007' +
        '00000000'.repeat(4) +
        '0000000B' +
        '00000000',
    );
    expect(text.slice(110, 124)).toBe('config.ign\0\0\0\0');
    expect(text.slice(124, 132)).toBe('{"a":1}\0');
    expect(text.slice(132, 138)).toBe('070701');
    expect(text.slice(132 + 110, 132 + 110 + 14)).toBe('TRAILER!!!\0\0\0\0');
    expect(cpio.length).toBe(132 + 124);
  });
  it('size limit', () => {
    expect(ignitionArchiveSizeError('{}')).toBeUndefined();
  });
});

describe('ironic agent (converged flow)', () => {
  it('callback URLs get default ports and paths', () => {
    expect(ironicCallbackUrls('https://10.0.0.1', '6385')).toBe('https://10.0.0.1:6385');
    expect(ironicCallbackUrls('https://10.0.0.1:1234/x,,https://[fd00::1]', '5050', '/v1/continue')).toBe(
      'https://10.0.0.1:1234/x/v1/continue,https://[fd00::1]:5050/v1/continue',
    );
    expect(ironicCallbackUrls('http://h/v1/continue', '5050', '/v1/continue')).toBe(
      'http://h:5050/v1/continue',
    );
    expect(ironicCallbackUrls('not a url', '1')).toBe('');
  });
  it('is a valid 3.2.0 fragment; default image by architecture', () => {
    const config = buildIronicAgentIgnition(minimalInfraEnv(), { ironicBaseUrl: 'https://h' });
    expect(config.ignition.version).toBe('3.2.0');
    expect(config.systemd?.units?.[0]?.contents).toContain(
      `--name ironic-agent ${DEFAULT_IRONIC_AGENT_IMAGE}\n`,
    );
    expect(config.systemd?.units?.[0]?.contents).toContain('Environment="HTTP_PROXY="\n');
    const withImage = buildIronicAgentIgnition(minimalInfraEnv(), {
      ironicBaseUrl: 'https://h',
      defaultImage: 'x/def',
    });
    expect(withImage.systemd?.units?.[0]?.contents).toContain('--name ironic-agent x/def\n');
    expect(parseIgnition(ironicAgentOverride(minimalInfraEnv(), { ironicBaseUrl: 'https://h' })).ok).toBe(
      true,
    );
    const proxied = buildIronicAgentIgnition(minimalInfraEnv({ proxy: { https_proxy: 'http://a%b' } }), {
      ironicBaseUrl: 'https://h',
      defaultImageArm: 'arm/img',
    });
    expect(proxied.systemd?.units?.[0]?.contents).toContain('Environment="HTTPS_PROXY=http://a%%b"\n');
  });
});

describe('version compare', () => {
  it('numeric major.minor.patch, suffixes ignored', () => {
    expect(compareBaseVersions('4.18.0-ec.1', '4.18')).toBe(0);
    expect(baseVersionAtLeast('4.9', '4.18')).toBe(false);
    expect(baseVersionAtLeast('v4.20.1', '4.18')).toBe(true);
  });
});
