// The OLM bundle as written to disk obeys the load-time rules (one CSV, owned CRDs present, channels
// set) and stays in step with its sources (CRDs, RBAC, images).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { bundleFiles } from '../../../hack/generate-bundle.ts';
import { OWNED_CRD_DIR } from '../../../src/api/crd.ts';

// biome-ignore lint/suspicious/noExplicitAny: parsed YAML manifests, walked by known paths
type Obj = Record<string, any>;
const MANIFESTS = 'bundle/manifests';
const manifests = readdirSync(MANIFESTS).sort();
const objects = manifests.map((f) => ({
  file: f,
  obj: parse(readFileSync(join(MANIFESTS, f), 'utf8')) as Obj,
}));
const csvs = objects.filter((o) => o.obj.kind === 'ClusterServiceVersion');
const csv = csvs[0]?.obj as Obj;
const rbacRules = (file: string) => (parse(readFileSync(join('config/rbac', file), 'utf8')) as Obj).rules;

describe('OLM bundle', () => {
  it('has exactly one ClusterServiceVersion, named for the version', () => {
    expect(csvs).toHaveLength(1);
    expect(csv.metadata.name).toBe('agent-install-operator.v0.1.0');
  });

  it('ships every owned CRD byte-identical to config/crd/bases, and only those', () => {
    const bases = readdirSync(OWNED_CRD_DIR).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
    const owned = csv.spec.customresourcedefinitions.owned as Obj[];
    expect(owned.map((o) => o.name).sort()).toEqual(
      bases.map((f) => (parse(readFileSync(join(OWNED_CRD_DIR, f), 'utf8')) as Obj).metadata.name).sort(),
    );
    for (const f of bases)
      expect(readFileSync(join(MANIFESTS, f), 'utf8'), f).toBe(readFileSync(join(OWNED_CRD_DIR, f), 'utf8'));
    const crdsInBundle = objects.filter((o) => o.obj.kind === 'CustomResourceDefinition').map((o) => o.file);
    expect(crdsInBundle.sort()).toEqual(bases.sort());
    for (const o of owned) {
      expect(o.description, o.name).toBeTruthy();
      if (o.kind !== 'NMStateConfig')
        expect(
          o.statusDescriptors.map((d: Obj) => d.path),
          o.kind,
        ).toContain('conditions');
    }
  });

  it('sets the package and channels', () => {
    const a = (parse(readFileSync('bundle/metadata/annotations.yaml', 'utf8')) as Obj).annotations;
    expect(a['operators.operatorframework.io.bundle.package.v1']).toBe('agent-install-operator');
    expect(a['operators.operatorframework.io.bundle.channels.v1']).toBe('alpha');
    expect(a['operators.operatorframework.io.bundle.channel.default.v1']).toBe('alpha');
    expect(a['operators.operatorframework.io.bundle.mediatype.v1']).toBe('registry+v1');
    const dockerfile = readFileSync('bundle.Dockerfile', 'utf8');
    for (const [k, v] of Object.entries(a)) expect(dockerfile).toContain(`LABEL ${k}=${v}`);
  });

  it('carries an SVG icon (OperatorHub warns without one)', () => {
    const icon: Obj = csv.spec.icon[0];
    expect(icon.mediatype).toBe('image/svg+xml');
    expect(Buffer.from(icon.base64data, 'base64').toString('utf8')).toMatch(/^<svg [^>]*xmlns=/);
  });

  it('supports OwnNamespace and SingleNamespace only', () => {
    const modes = Object.fromEntries((csv.spec.installModes as Obj[]).map((m) => [m.type, m.supported]));
    expect(modes).toEqual({
      OwnNamespace: true,
      SingleNamespace: true,
      MultiNamespace: false,
      AllNamespaces: false,
    });
  });

  it('lists every image of the deployment and its env in relatedImages', () => {
    const related = new Set((csv.spec.relatedImages as Obj[]).map((r) => r.image));
    const images: string[] = [];
    for (const d of csv.spec.install.spec.deployments as Obj[]) {
      for (const c of d.spec.template.spec.containers as Obj[]) {
        images.push(c.image);
        for (const e of c.env ?? []) if (/_IMAGE$/.test(e.name) && e.value) images.push(e.value);
      }
    }
    expect(images.length).toBeGreaterThanOrEqual(4);
    for (const i of images) expect(related, i).toContain(i);
    expect(csv.metadata.annotations.containerImage).toBe(images[0]);
  });

  it('grants exactly the generated RBAC', () => {
    const { permissions, clusterPermissions } = csv.spec.install.spec;
    expect(clusterPermissions).toEqual([
      { serviceAccountName: 'agent-install-operator', rules: rbacRules('role.yaml') },
    ]);
    expect(permissions).toEqual([
      { serviceAccountName: 'agent-install-operator', rules: rbacRules('leader_election_role.yaml') },
    ]);
  });

  it('has alm-examples of owned kinds only, and webhook definitions for the deployment', () => {
    const examples = JSON.parse(csv.metadata.annotations['alm-examples']) as Obj[];
    const ownedKinds = new Set((csv.spec.customresourcedefinitions.owned as Obj[]).map((o) => o.kind));
    expect(examples.length).toBeGreaterThan(0);
    for (const e of examples) expect(ownedKinds, e.kind).toContain(e.kind);
    // The operator-framework's CSV validator warns for an owned kind without an example.
    expect(new Set(examples.map((e) => e.kind))).toEqual(ownedKinds);
    const hooks = csv.spec.webhookdefinitions as Obj[];
    expect(hooks.length).toBeGreaterThan(0);
    for (const h of hooks) {
      expect(h.deploymentName).toBe(csv.spec.install.spec.deployments[0].name);
      expect(h.webhookPath).toMatch(/^\/(validate|mutate)-/);
    }
  });

  it('is what hack/generate-bundle.ts writes (no drift)', () => {
    for (const [rel, content] of bundleFiles()) expect(readFileSync(rel, 'utf8'), rel).toBe(content);
  });
});
