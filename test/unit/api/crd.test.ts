import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  buildCrd,
  type CustomResourceDefinition,
  EXTERNAL_CRD_DIR,
  generateCrdFiles,
  OWNED_CRD_DIR,
  openAPISchemaFor,
} from '../../../src/api/crd.ts';
import { crdName, EXTERNAL_KINDS, KINDS, type KindDefinition, OWNED_KINDS } from '../../../src/api/index.ts';
import type { JSONSchemaProps } from '../../../src/api/openapi.ts';
import { compileCrdSchema, repoRoot, walkSchema } from './helpers.ts';

function schemaAt(root: JSONSchemaProps, path: string): JSONSchemaProps {
  let node = root;
  for (const part of path.split('.').filter(Boolean)) {
    if (part === '[]') node = node.items as JSONSchemaProps;
    else node = (node.properties as Record<string, JSONSchemaProps>)[part] as JSONSchemaProps;
    if (!node) throw new Error(`no schema at ${path}`);
  }
  return node;
}

function kindNamed(kind: string): KindDefinition {
  const k = KINDS.find((x) => x.kind === kind);
  if (!k) throw new Error(kind);
  return k;
}

function schemaOf(kind: string): JSONSchemaProps {
  return openAPISchemaFor(kindNamed(kind));
}

describe('generator', () => {
  it('is deterministic', () => {
    const a = generateCrdFiles();
    const b = generateCrdFiles();
    expect([...a.keys()]).toEqual([...b.keys()]);
    for (const [path, content] of a) expect(b.get(path)).toBe(content);
  });

  it('produces one CRD per kind plus a kustomization per directory', () => {
    const files = generateCrdFiles();
    for (const k of OWNED_KINDS) expect(files.has(`${OWNED_CRD_DIR}/${k.group}_${k.plural}.yaml`)).toBe(true);
    for (const k of EXTERNAL_KINDS)
      expect(files.has(`${EXTERNAL_CRD_DIR}/${k.group}_${k.plural}.yaml`)).toBe(true);
    expect(files.has(`${OWNED_CRD_DIR}/kustomization.yaml`)).toBe(true);
    expect(files.has(`${EXTERNAL_CRD_DIR}/kustomization.yaml`)).toBe(true);
    expect(files.size).toBe(KINDS.length + 2);
  });

  it('matches the committed files (run `node hack/generate-crds.ts` after changing src/api)', () => {
    for (const [path, content] of generateCrdFiles()) {
      const abs = join(repoRoot, path);
      expect(existsSync(abs), `${path} exists`).toBe(true);
      expect(readFileSync(abs, 'utf8'), path).toBe(content);
    }
  });

  it('sorts keys in the rendered YAML', () => {
    const text = generateCrdFiles().get(`${OWNED_CRD_DIR}/agent-install.openshift.io_agents.yaml`) ?? '';
    const top = text.split('\n').filter((l) => /^[a-z]/i.test(l));
    expect(top).toEqual([
      'apiVersion: apiextensions.k8s.io/v1',
      'kind: CustomResourceDefinition',
      'metadata:',
      'spec:',
    ]);
  });
});

interface ExpectedKind {
  group: string;
  kind: string;
  plural: string;
  singular: string;
  scope: 'Namespaced' | 'Cluster';
  shortNames?: string[];
  columns: Array<[name: string, type: string, jsonPath: string, priority?: number]>;
}

const expectedOwned: ExpectedKind[] = [
  {
    group: 'agent-install.openshift.io',
    kind: 'Agent',
    plural: 'agents',
    singular: 'agent',
    scope: 'Namespaced',
    columns: [
      ['Cluster', 'string', '.spec.clusterDeploymentName.name'],
      ['Approved', 'boolean', '.spec.approved'],
      ['Role', 'string', '.status.role'],
      ['Stage', 'string', '.status.progress.currentStage'],
      ['Hostname', 'string', '.status.inventory.hostname', 1],
      ['Requested Hostname', 'string', '.spec.hostname', 1],
    ],
  },
  {
    group: 'agent-install.openshift.io',
    kind: 'InfraEnv',
    plural: 'infraenvs',
    singular: 'infraenv',
    scope: 'Namespaced',
    columns: [
      ['ISO Created At', 'string', '.status.createdTime'],
      ['ISO URL', 'string', '.status.isoDownloadURL', 1],
    ],
  },
  {
    group: 'agent-install.openshift.io',
    kind: 'NMStateConfig',
    plural: 'nmstateconfigs',
    singular: 'nmstateconfig',
    scope: 'Namespaced',
    columns: [],
  },
  {
    group: 'agent-install.openshift.io',
    kind: 'AgentClassification',
    plural: 'agentclassifications',
    singular: 'agentclassification',
    scope: 'Namespaced',
    columns: [],
  },
  {
    group: 'agent-install.openshift.io',
    kind: 'AgentServiceConfig',
    plural: 'agentserviceconfigs',
    singular: 'agentserviceconfig',
    scope: 'Cluster',
    columns: [],
  },
  {
    group: 'extensions.hive.openshift.io',
    kind: 'AgentClusterInstall',
    plural: 'agentclusterinstalls',
    singular: 'agentclusterinstall',
    scope: 'Namespaced',
    shortNames: ['aci'],
    columns: [
      ['Cluster', 'string', '.spec.clusterDeploymentRef.name'],
      ['State', 'string', '.status.debugInfo.state'],
    ],
  },
];

describe('owned CRDs', () => {
  it('cover exactly the owned kinds', () => {
    expect(OWNED_KINDS.map((k) => k.kind).sort()).toEqual(expectedOwned.map((e) => e.kind).sort());
  });

  for (const e of expectedOwned) {
    describe(e.kind, () => {
      const crd: CustomResourceDefinition = buildCrd(kindNamed(e.kind));
      const version = crd.spec.versions[0];

      it('has the upstream names, scope and short names', () => {
        expect(crd.metadata.name).toBe(`${e.plural}.${e.group}`);
        expect(crdName(kindNamed(e.kind))).toBe(crd.metadata.name);
        expect(crd.spec.group).toBe(e.group);
        expect(crd.spec.scope).toBe(e.scope);
        expect(crd.spec.names).toEqual({
          kind: e.kind,
          listKind: `${e.kind}List`,
          plural: e.plural,
          singular: e.singular,
          ...(e.shortNames ? { shortNames: e.shortNames } : {}),
        });
      });

      it('serves v1beta1 as the storage version with the status subresource', () => {
        expect(crd.spec.versions).toHaveLength(1);
        expect(version?.name).toBe('v1beta1');
        expect(version?.served).toBe(true);
        expect(version?.storage).toBe(true);
        expect(version?.subresources).toEqual({ status: {} });
      });

      it('has the upstream printer columns', () => {
        const cols = (version?.additionalPrinterColumns ?? []).map((c) => {
          const row: unknown[] = [c.name, c.type, c.jsonPath];
          if (c.priority !== undefined) row.push(c.priority);
          return row;
        });
        expect(cols).toEqual(e.columns);
      });
    });
  }
});

describe('schema details', () => {
  it('AgentClusterInstall requires spec and its three required fields', () => {
    const s = schemaOf('AgentClusterInstall');
    expect(s.required).toEqual(['spec']);
    expect(schemaAt(s, 'spec').required).toEqual([
      'clusterDeploymentRef',
      'networking',
      'provisionRequirements',
    ]);
    expect(schemaAt(s, 'spec.provisionRequirements').required).toEqual(['controlPlaneAgents']);
    expect(schemaAt(s, 'spec.provisionRequirements.workerAgents').minimum).toBe(0);
    expect(schemaAt(s, 'spec.provisionRequirements.arbiterAgents').minimum).toBe(0);
    expect(schemaAt(s, 'spec.apiVIPs').maxItems).toBe(2);
    expect(schemaAt(s, 'spec.ingressVIPs').maxItems).toBe(2);
    expect(schemaAt(s, 'status.progress').required).toEqual(['totalPercentage']);
  });

  it('AgentClusterInstall carries the platform name transition rule and defaults', () => {
    const s = schemaOf('AgentClusterInstall');
    expect(schemaAt(s, 'spec.external.platformName')).toMatchObject({
      type: 'string',
      default: 'Unknown',
      'x-kubernetes-validations': [
        {
          rule: "oldSelf == 'Unknown' || self == oldSelf",
          message: 'platform name cannot be changed once set',
        },
      ],
    });
    expect(schemaAt(s, 'spec.external.cloudControllerManager')).toMatchObject({
      default: '',
      enum: ['', 'External'],
    });
    expect(schemaAt(s, 'spec.loadBalancer.type')).toMatchObject({
      default: 'ClusterManaged',
      enum: ['ClusterManaged', 'UserManaged'],
    });
    expect(schemaAt(s, 'spec.diskEncryption.enableOn').default).toBe('none');
    expect(schemaAt(s, 'spec.diskEncryption.mode').enum).toEqual(['tpmv2', 'tang']);
    expect(schemaAt(s, 'spec.controlPlane.hyperthreading')).toMatchObject({
      default: 'Enabled',
      enum: ['', 'Enabled', 'Disabled'],
    });
    expect(schemaAt(s, 'spec.platformType').enum).toEqual([
      '',
      'BareMetal',
      'None',
      'VSphere',
      'Nutanix',
      'External',
    ]);
    expect(schemaAt(s, 'spec.networking.networkType').enum).toEqual([
      'OpenShiftSDN',
      'OVNKubernetes',
      'CiscoACI',
      'Cilium',
      'Calico',
      'None',
    ]);
  });

  it('Agent requires role and approved and keeps the snake_case field names', () => {
    const s = schemaOf('Agent');
    expect(schemaAt(s, 'spec').required).toEqual(['approved', 'role']);
    expect(schemaAt(s, 'spec.role').enum).toBeUndefined();
    for (const p of [
      'spec.installation_disk_id',
      'spec.installation_disk_path',
      'status.installation_disk_id',
    ]) {
      expect(schemaAt(s, p).type).toBe('string');
    }
    expect(schemaAt(s, 'status.deprovision_info').properties).toHaveProperty('cluster_namespace');
    expect(schemaAt(s, 'status.inventory.interfaces.[]').required).toEqual([
      'flags',
      'ipV4Addresses',
      'ipV6Addresses',
    ]);
    expect(schemaAt(s, 'status.inventory.disks.[]').required).toEqual(['id']);
    expect(schemaAt(s, 'status.inventory.disks.[].installationEligibility').required).toEqual([
      'notEligibleReasons',
    ]);
    expect(schemaAt(s, 'spec.ignitionEndpointTokenReference').required).toEqual(['name', 'namespace']);
  });

  it('InfraEnv validation and defaults', () => {
    const s = schemaOf('InfraEnv');
    expect(schemaAt(s, 'spec').required).toEqual(['pullSecretRef']);
    expect(schemaAt(s, 'spec.cpuArchitecture')).toMatchObject({ type: 'string', default: 'x86_64' });
    expect(schemaAt(s, 'spec.cpuArchitecture').enum).toBeUndefined();
    expect(schemaAt(s, 'spec.ipxeScriptType')).toMatchObject({
      default: 'DiscoveryImageAlways',
      enum: ['', 'DiscoveryImageAlways', 'BootOrderControl'],
    });
    expect(schemaAt(s, 'spec.kernelArguments.[].operation').enum).toEqual(['append', 'replace', 'delete']);
    expect(schemaAt(s, 'spec.kernelArguments.[].value').pattern).toBe(
      '^(?:(?:[^ \\t\\n\\r"]+)|(?:"[^"]*"))+$',
    );
    expect(schemaAt(s, 'spec.networkDiscoveryDelaySeconds')).toMatchObject({
      type: 'integer',
      format: 'int64',
      minimum: 0,
    });
    expect(schemaAt(s, 'spec.agentApproval.autoApprove').default).toBe(false);
    expect(schemaAt(s, 'spec.mirrorRegistryRef').required).toEqual(['name', 'namespace']);
  });

  it('NMStateConfig interfaces need a MAC address and at least one entry; config is free-form', () => {
    const s = schemaOf('NMStateConfig');
    expect(schemaAt(s, 'spec.interfaces').minItems).toBe(1);
    expect(schemaAt(s, 'spec.interfaces.[]').required).toEqual(['macAddress', 'name']);
    expect(schemaAt(s, 'spec.interfaces.[].macAddress').pattern).toBe(
      '^([0-9A-Fa-f]{2}[:]){5}([0-9A-Fa-f]{2})$',
    );
    expect(schemaAt(s, 'spec.config')).toEqual({
      description: expect.any(String),
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
    });
    expect(s.properties).not.toHaveProperty('status');
  });

  it('AgentClassification and AgentServiceConfig required fields', () => {
    expect(schemaAt(schemaOf('AgentClassification'), 'spec').required).toEqual([
      'labelKey',
      'labelValue',
      'query',
    ]);
    const asc = schemaOf('AgentServiceConfig');
    expect(schemaAt(asc, 'spec').required).toEqual(['databaseStorage', 'filesystemStorage']);
    expect(schemaAt(asc, 'spec.iPXEHTTPRoute').enum).toEqual(['enabled', 'disabled']);
    expect(schemaAt(asc, 'spec.osImages.[]').required).toEqual(['openshiftVersion', 'url', 'version']);
    expect(schemaAt(asc, 'spec.mustGatherImages.[].cpuArchitecture').enum).toEqual([
      'x86_64',
      'aarch64',
      'arm64',
      'ppc64le',
      's390x',
      'multi',
    ]);
    expect(schemaAt(asc, 'spec.ingress').required).toEqual([
      'assistedServiceHostname',
      'imageServiceHostname',
    ]);
    expect(asc.properties).toHaveProperty('spec.properties.OSImageCACertRef');
    expect(asc.properties).toHaveProperty('spec.properties.OSImageAdditionalParamsRef');
  });

  it('metadata is rendered as a bare object everywhere', () => {
    for (const k of KINDS) expect(schemaAt(openAPISchemaFor(k), 'metadata')).toEqual({ type: 'object' });
  });
});

describe('structural schemas', () => {
  for (const k of KINDS) {
    it(`${k.kind} is structural`, () => {
      const problems: string[] = [];
      walkSchema(openAPISchemaFor(k), (node, path) => {
        const isBranch = path.includes('<anyOf');
        const flexible =
          node['x-kubernetes-int-or-string'] === true || node['x-kubernetes-preserve-unknown-fields'];
        if (!isBranch && node.type === undefined && !flexible) problems.push(`${path}: no type`);
        if (node.properties && node.additionalProperties)
          problems.push(`${path}: properties and additionalProperties`);
        if (node.additionalProperties === false) problems.push(`${path}: additionalProperties: false`);
        if (node.enum && !(node.enum as unknown[]).every((v) => typeof v === 'string')) {
          problems.push(`${path}: non-string enum`);
        }
        if (node.enum && node.type !== 'string') problems.push(`${path}: enum on non-string`);
        if (node['x-kubernetes-int-or-string'] && node.type !== undefined)
          problems.push(`${path}: int-or-string typed`);
        if (node['x-kubernetes-map-type'] && node.type !== 'object')
          problems.push(`${path}: map-type on ${node.type}`);
        if (node['x-kubernetes-list-type'] && node.type !== 'array')
          problems.push(`${path}: list-type on ${node.type}`);
        if (node.$ref || node.nullable !== undefined) problems.push(`${path}: $ref/nullable not expected`);
        if (node.required) {
          const req = node.required as string[];
          expect([...req].sort(), `${path} required sorted`).toEqual(req);
          for (const r of req) {
            if (!(node.properties as Record<string, unknown> | undefined)?.[r])
              problems.push(`${path}: required ${r}`);
          }
        }
        if (node.anyOf) {
          if (!node['x-kubernetes-int-or-string']) problems.push(`${path}: anyOf outside int-or-string`);
          for (const b of node.anyOf as JSONSchemaProps[]) {
            if (Object.keys(b).some((key) => key !== 'type'))
              problems.push(`${path}: anyOf branch with ${Object.keys(b)}`);
          }
        }
      });
      expect(problems).toEqual([]);
    });
  }

  it('every default is valid against its own schema', () => {
    const problems: string[] = [];
    let count = 0;
    for (const k of KINDS) {
      walkSchema(openAPISchemaFor(k), (node, path) => {
        if (!('default' in node)) return;
        count++;
        const { default: value, ...rest } = node;
        const validate = compileCrdSchema(rest);
        if (!validate(value)) problems.push(`${k.kind}${path}: ${JSON.stringify(validate.errors)}`);
      });
    }
    expect(problems).toEqual([]);
    expect(count).toBeGreaterThan(5);
  });

  it('external kinds preserve unknown fields in every object below the root', () => {
    for (const k of EXTERNAL_KINDS) {
      const s = openAPISchemaFor(k);
      expect(s['x-kubernetes-preserve-unknown-fields']).toBeUndefined();
      for (const part of ['spec', 'status']) {
        const node = (s.properties as Record<string, JSONSchemaProps>)[part];
        if (node) expect(node['x-kubernetes-preserve-unknown-fields'], `${k.kind}.${part}`).toBe(true);
      }
      walkSchema(s, (node, path) => {
        if (path === '' || path === '.metadata' || node.type !== 'object') return;
        if (node.additionalProperties) return;
        expect(node['x-kubernetes-preserve-unknown-fields'], `${k.kind}${path}`).toBe(true);
      });
    }
  });

  it('owned kinds only preserve unknown fields where the spec keeps free-form content or in status.backend', () => {
    const preserved: string[] = [];
    for (const k of OWNED_KINDS) {
      walkSchema(openAPISchemaFor(k), (node, path) => {
        if (node['x-kubernetes-preserve-unknown-fields']) preserved.push(`${k.kind}${path}`);
      });
    }
    expect(preserved.sort()).toEqual([
      'Agent.status.backend',
      'AgentClusterInstall.spec.clusterMetadata.platform',
      'AgentClusterInstall.status.backend',
      'InfraEnv.status.backend',
      'NMStateConfig.spec.config',
    ]);
  });
});
