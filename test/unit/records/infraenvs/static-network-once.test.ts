// One InfraEnv reconcile (gatherImageInputs' checks, then the controller's buildProblem) reads each
// host's NMState YAML once and generates the static network files once. Issue 16: at 1,000
// InfraEnvs the start-up heap profile put 53 MiB of old-generation allocation on reading the same
// YAML four or five times and generating the nmpolicies twice.

import { beforeEach, describe, expect, it, vi } from 'vitest';
import * as yaml from 'yaml';
import { infraEnvToRecord } from '../../../../src/records/index.ts';
import { discoveryIgnition, staticNetworkFiles } from '../../../../src/records/infraenvs/discovery.ts';
import {
  checkImageInputs,
  type ImageInputs,
  type ImageType,
} from '../../../../src/records/infraenvs/inputs.ts';
import {
  DISCOVERY_SETTINGS,
  infraEnv,
  nmStateConfig,
  OS_IMAGE_419,
  PULL_SECRET,
  SERVICE_CONFIG_419,
} from '../fixtures.ts';

// The real yaml module, its parseDocument and stringify wrapped so the test can count the calls.
vi.mock('yaml', async (importOriginal) => {
  const actual = await importOriginal<typeof import('yaml')>();
  return { ...actual, parseDocument: vi.fn(actual.parseDocument), stringify: vi.fn(actual.stringify) };
});

const OS = OS_IMAGE_419;
const CONFIG = SERVICE_CONFIG_419;
const SETTINGS = DISCOVERY_SETTINGS;

let site = 0;
/** A three-host InfraEnv whose YAML texts no earlier test read (each call a new subnet). */
function threeHosts(imageType: ImageType): ImageInputs {
  site += 1;
  const nm = [1, 2, 3].map((h) =>
    nmStateConfig(`h${h}`, `52:54:00:00:${site.toString(16).padStart(2, '0')}:0${h}`, `10.${site}.0.${h}`),
  );
  const ie = infraEnv({ imageType });
  const record = infraEnvToRecord(ie, {
    pullSecret: PULL_SECRET,
    nmStateConfigs: nm,
    defaultImageType: 'minimal-iso',
  });
  record.openshift_version = '4.19';
  return { infraEnv: ie, record, imageType, osImage: OS, infraEnvMirrors: undefined, config: CONFIG };
}

/** What one reconcile computes from the inputs: the checks, then the controller's buildProblem. */
function reconcileComputation(inputs: ImageInputs) {
  expect(checkImageInputs(inputs)).toBeUndefined();
  const network = staticNetworkFiles(inputs.record);
  if (!network || 'error' in network) throw new Error('no static network files');
  const built = discoveryIgnition(inputs, SETTINGS, inputs.imageType, network);
  if (!built.ok) throw new Error(built.error);
  return built.value.json;
}

/** How often each host's YAML text was parsed. */
function parsesPerHost(inputs: ImageInputs): number[] {
  const texts = (inputs.record.static_network_config ?? []).map((h) => h.network_yaml);
  const parsed = vi.mocked(yaml.parseDocument).mock.calls.map(([text]) => text);
  return texts.map((t) => parsed.filter((p) => p === t).length);
}

/** How many nmpolicies (`capture` + `desiredState` documents) were written. */
function nmPoliciesWritten(): number {
  return vi
    .mocked(yaml.stringify)
    .mock.calls.filter(([value]) => typeof value === 'object' && value !== null && 'capture' in value).length;
}

describe('static networking in one reconcile', () => {
  beforeEach(() => {
    vi.mocked(yaml.parseDocument).mockClear();
    vi.mocked(yaml.stringify).mockClear();
  });

  it.each(['full-iso', 'minimal-iso'] as const)('%s: each host YAML is parsed once', (imageType) => {
    const inputs = threeHosts(imageType);
    vi.mocked(yaml.parseDocument).mockClear();
    reconcileComputation(inputs);
    expect(parsesPerHost(inputs)).toEqual([1, 1, 1]);
  });

  it('full-iso: the ignition embeds the files generated for the ramdisk instead of generating them again', () => {
    const inputs = threeHosts('full-iso');
    vi.mocked(yaml.stringify).mockClear();
    const json = reconcileComputation(inputs);
    expect(nmPoliciesWritten()).toBe(3);
    expect(json).toContain('/etc/assisted/network/host2/ymlFile2.yml');
  });

  it('the ignition built from the passed files is the one built without them, byte for byte', () => {
    const inputs = threeHosts('full-iso');
    const network = staticNetworkFiles(inputs.record);
    if (!network || 'error' in network) throw new Error('no static network files');
    const given = discoveryIgnition(inputs, SETTINGS, 'full-iso', network);
    const own = discoveryIgnition(inputs, SETTINGS, 'full-iso');
    if (!given.ok || !own.ok) throw new Error('ignition failed');
    expect(given.value.json).toBe(own.value.json);
  });
});
