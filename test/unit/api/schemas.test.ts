import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AGENT_API_VERSION,
  AGENT_KIND,
  AGENT_PLURAL,
  AGENTCLUSTERINSTALL_API_VERSION,
  AGENTCLUSTERINSTALL_KIND,
  AGENTCLUSTERINSTALL_PLURAL,
  agentClusterInstallSchema,
  agentClusterInstallStatusSchema,
  agentKind,
  agentSchema,
  agentStatusSchema,
  BAREMETALHOST_API_VERSION,
  bareMetalHostSchema,
  clusterDeploymentSchema,
  crd,
  findKind,
  findKindByResource,
  hostDiskSchema,
  hostInterfaceSchema,
  INFRAENV_PLURAL,
  infraEnvSchema,
  infraEnvSpecSchema,
  infraEnvStatusSchema,
  KINDS,
  nmStateConfigSchema,
} from '../../../src/api/index.ts';
import { alwaysSerializedPaths, convert } from '../../../src/api/openapi.ts';

describe('kind table', () => {
  it('has unique kinds and resources', () => {
    const keys = KINDS.map((k) => `${k.apiVersion}/${k.kind}`);
    expect(new Set(keys).size).toBe(keys.length);
    const resources = KINDS.map((k) => `${k.plural}.${k.group}`);
    expect(new Set(resources).size).toBe(resources.length);
  });

  it('agrees with the exported constants', () => {
    expect(agentKind.apiVersion).toBe(AGENT_API_VERSION);
    expect(agentKind.kind).toBe(AGENT_KIND);
    expect(agentKind.plural).toBe(AGENT_PLURAL);
    const aci = findKind(AGENTCLUSTERINSTALL_API_VERSION, AGENTCLUSTERINSTALL_KIND);
    expect(aci?.plural).toBe(AGENTCLUSTERINSTALL_PLURAL);
    expect(aci?.schema).toBe(agentClusterInstallSchema);
    expect(findKindByResource('agent-install.openshift.io', INFRAENV_PLURAL)?.schema).toBe(infraEnvSchema);
    expect(findKind(BAREMETALHOST_API_VERSION, 'BareMetalHost')?.owned).toBe(false);
    expect(findKind('v1', 'Pod')).toBeUndefined();
  });

  it('marks exactly the upstream kinds as owned', () => {
    expect(
      KINDS.filter((k) => k.owned)
        .map((k) => `${k.kind}.${k.group}`)
        .sort(),
    ).toEqual([
      'Agent.agent-install.openshift.io',
      'AgentClassification.agent-install.openshift.io',
      'AgentClusterInstall.extensions.hive.openshift.io',
      'AgentServiceConfig.agent-install.openshift.io',
      'InfraEnv.agent-install.openshift.io',
      'NMStateConfig.agent-install.openshift.io',
    ]);
    expect(
      KINDS.filter((k) => !k.owned)
        .map((k) => `${k.kind}.${k.group}`)
        .sort(),
    ).toEqual([
      'BareMetalHost.metal3.io',
      'ClusterDeployment.hive.openshift.io',
      'ClusterImageSet.hive.openshift.io',
      'Machine.machine.openshift.io',
      'MachineConfigPool.machineconfiguration.openshift.io',
      'MachineSet.machine.openshift.io',
      'PreprovisioningImage.metal3.io',
    ]);
  });
});

describe('always-serialized fields', () => {
  it('are filled in by parsing', () => {
    expect(agentStatusSchema.parse({})).toEqual({ role: '', debugInfo: {} });
    expect(infraEnvStatusSchema.parse({})).toEqual({
      debugInfo: { eventsURL: '' },
      bootArtifacts: { initrd: '', rootfs: '', kernel: '', ipxeScript: '', discoveryIgnitionURL: '' },
    });
    expect(agentClusterInstallStatusSchema.parse({})).toEqual({
      progress: { totalPercentage: 0 },
      debugInfo: { eventsURL: '', logsURL: '' },
    });
    expect(hostInterfaceSchema.parse({ name: 'eth0' })).toEqual({
      name: 'eth0',
      ipV4Addresses: [],
      ipV6Addresses: [],
      flags: [],
    });
    expect(hostDiskSchema.parse({ installationEligibility: {} })).toEqual({
      id: '',
      installationEligibility: { notEligibleReasons: [] },
    });
    expect(infraEnvSpecSchema.parse({ pullSecretRef: { name: 'ps' } }).ipxeScriptType).toBe(
      'DiscoveryImageAlways',
    );
  });

  it('are listed by alwaysSerializedPaths', () => {
    expect(alwaysSerializedPaths(agentSchema)).toEqual([
      'spec.approved',
      'spec.role',
      'status.debugInfo',
      'status.inventory.disks[].id',
      'status.inventory.disks[].installationEligibility.notEligibleReasons',
      'status.inventory.interfaces[].flags',
      'status.inventory.interfaces[].ipV4Addresses',
      'status.inventory.interfaces[].ipV6Addresses',
      'status.role',
    ]);
    expect(alwaysSerializedPaths(infraEnvSchema)).toEqual([
      'spec.ipxeScriptType',
      'status.bootArtifacts',
      'status.bootArtifacts.discoveryIgnitionURL',
      'status.bootArtifacts.initrd',
      'status.bootArtifacts.ipxeScript',
      'status.bootArtifacts.kernel',
      'status.bootArtifacts.rootfs',
      'status.debugInfo',
      'status.debugInfo.eventsURL',
    ]);
    expect(alwaysSerializedPaths(agentClusterInstallSchema)).toEqual([
      'status.debugInfo',
      'status.debugInfo.eventsURL',
      'status.debugInfo.logsURL',
      'status.progress',
      'status.progress.totalPercentage',
    ]);
  });
});

describe('parsing objects from the API', () => {
  it('keeps unknown fields at every level', () => {
    const obj = {
      apiVersion: 'agent-install.openshift.io/v1beta1',
      kind: 'InfraEnv',
      metadata: { name: 'x', namespace: 'y', somethingNew: 1 },
      spec: { pullSecretRef: { name: 'ps', extra: true }, futureField: 'a', proxy: { other: 1 } },
      status: { newStatus: 3, debugInfo: { eventsURL: 'u', more: 'm' } },
      topLevelExtra: 'z',
    };
    const parsed = infraEnvSchema.parse(obj);
    expect(parsed).toMatchObject(obj);
  });

  it('keeps unknown fields of external kinds', () => {
    const cd = {
      apiVersion: 'hive.openshift.io/v1',
      kind: 'ClusterDeployment',
      metadata: { name: 'c' },
      spec: {
        clusterName: 'c',
        baseDomain: 'example.com',
        platform: { agentBareMetal: { agentSelector: {} }, baremetal: { libvirtSSHPrivateKeySecretRef: {} } },
        provisioning: { installConfigSecretRef: { name: 'x' } },
      },
      status: { conditions: [{ type: 'X' }], webConsoleURL: 'u' },
    };
    expect(clusterDeploymentSchema.parse(cd)).toEqual(cd);
    const bmh = {
      apiVersion: 'metal3.io/v1alpha1',
      kind: 'BareMetalHost',
      metadata: { name: 'b' },
      spec: { online: true, bmc: { address: 'a', credentialsName: 'c', extra: 1 }, hardwareProfile: 'x' },
      status: { provisioning: { state: 'ready', rootDeviceHints: {} }, poweredOn: true },
    };
    expect(bareMetalHostSchema.parse(bmh)).toEqual(bmh);
  });

  it('applies the CRD defaults', () => {
    const aci = agentClusterInstallSchema.parse({
      metadata: { name: 'a' },
      spec: {
        clusterDeploymentRef: { name: 'a' },
        networking: {},
        provisionRequirements: { controlPlaneAgents: 1 },
        external: {},
        loadBalancer: {},
        controlPlane: { name: 'master' },
        diskEncryption: {},
      },
    });
    expect(aci.spec.external).toEqual({ platformName: 'Unknown', cloudControllerManager: '' });
    expect(aci.spec.loadBalancer?.type).toBe('ClusterManaged');
    expect(aci.spec.controlPlane?.hyperthreading).toBe('Enabled');
    expect(aci.spec.diskEncryption?.enableOn).toBe('none');
    const ie = infraEnvSchema.parse({ metadata: {}, spec: { pullSecretRef: {}, agentApproval: {} } });
    expect(ie.spec.cpuArchitecture).toBe('x86_64');
    expect(ie.spec.pullSecretRef.name).toBe('');
    expect(ie.spec.agentApproval?.autoApprove).toBe(false);
  });

  it('rejects wrong types, enums and patterns', () => {
    const base = { metadata: { name: 'n' } };
    expect(agentSchema.safeParse({ ...base, spec: { role: 'master' } }).success).toBe(false);
    expect(agentSchema.safeParse({ ...base, spec: { role: 'master', approved: 'yes' } }).success).toBe(false);
    expect(agentSchema.safeParse({ ...base, spec: { role: '', approved: false } }).success).toBe(true);
    expect(
      nmStateConfigSchema.safeParse({ ...base, spec: { interfaces: [{ name: 'e', macAddress: 'nope' }] } })
        .success,
    ).toBe(false);
    expect(
      infraEnvSchema.safeParse({
        ...base,
        spec: { pullSecretRef: { name: 'p' }, kernelArguments: [{ operation: 'illegal', value: 'q' }] },
      }).success,
    ).toBe(false);
  });
});

describe('OpenAPI conversion', () => {
  it('rejects constructs that would not be structural', () => {
    expect(() => convert(z.object({ a: z.unknown() }))).toThrow(/preserveUnknownFields/);
    expect(() => convert(z.object({ a: z.union([z.string(), z.boolean()]) }))).toThrow(/int-or-string/);
    expect(() => convert(z.object({ a: z.record(z.string(), z.unknown()) }))).toThrow(/free-form/);
    expect(() => convert(z.object({ a: z.enum(['x']).transform((v) => v.length) }))).toThrow(/unsupported/);
  });

  it('maps optional, default and crd metadata', () => {
    const schema = z.object({
      req: z.string().min(1).max(5),
      opt: z.number().int().min(1).max(3).optional(),
      def: z.boolean().default(true),
      raw: crd(z.string(), { crd: { format: 'date-time' }, description: 'when' }).optional(),
      zodOnly: crd(z.string().default('x'), { crdDefault: false }),
      forced: crd(z.array(z.string()).default([]), { crdRequired: true }),
      loose: crd(z.object({}), { crdOptional: true }),
    });
    expect(convert(schema)).toEqual({
      type: 'object',
      required: ['forced', 'req'],
      properties: {
        def: { type: 'boolean', default: true },
        forced: { type: 'array', items: { type: 'string' }, default: [] },
        loose: { type: 'object' },
        opt: { type: 'integer', minimum: 1, maximum: 3 },
        raw: { type: 'string', format: 'date-time', description: 'when' },
        req: { type: 'string', minLength: 1, maxLength: 5 },
        zodOnly: { type: 'string' },
      },
    });
  });
});
