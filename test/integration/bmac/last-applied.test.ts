// A hub fed by client-side `kubectl apply` (GitOps tools run it by default): every object carries
// its manifest again in kubectl's last-applied annotation. The operator's caches leave it out (at
// 10,000 sites it is megabytes of heap no reconciler reads), and the objects it patches keep it:
// finalizers, the InfraEnv's ironic-agent mark, BMAC's label, finalizer and annotations, the watch
// label on a referenced Secret. A ZTP site, converged flow, on the real API server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asApplied } from '../../../bench/fleet.ts';
import {
  AGENTCLUSTERINSTALL_FINALIZER,
  type BareMetalHost,
  BMH_FINALIZER,
  CLUSTERDEPLOYMENT_FINALIZER,
  INFRAENV_ENABLE_IRONIC_AGENT_ANNOTATION,
  INFRAENV_FINALIZER,
  INFRAENV_LABEL,
  WATCH_LABEL,
} from '../../../src/api/index.ts';
import {
  AGENT_CLUSTER_INSTALL,
  BARE_METAL_HOST,
  CLUSTER_DEPLOYMENT,
  INFRA_ENV,
  PREPROVISIONING_IMAGE,
  SECRET,
} from '../../../src/records/resources.ts';
import {
  type ApiResource,
  type KubeClient,
  type KubeObject,
  LAST_APPLIED_ANNOTATION,
} from '../../../src/runtime/index.ts';
import { preprovisioningImageOf } from '../../../src/sim/metal3.ts';
import { eventually, newNamespace } from '../../harness/env.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import { clusterDeploymentObject, createImageSet, PULL_SECRET, snoAciObject } from '../cluster/harness.ts';

interface Site {
  res: ApiResource;
  name: string;
  /** What the operator has done to the object once it is through with it. */
  done: (o: KubeObject) => boolean;
}

describe("kubectl's last-applied annotation", () => {
  let op: TestOperator;
  let client: KubeClient;
  let ns: string;
  beforeAll(async () => {
    ns = await newNamespace('applied');
    op = await startTestOperator({
      namespace: ns,
      env: { BMAC_IMAGE_COOLDOWN_MS: '1000', IRONIC_BASE_URL: 'https://ironic.example:6385' },
    });
    client = op.ctx.client;
  });
  afterAll(async () => {
    await op?.stop();
  });

  it('is kept on every object the operator patches, and left out of its caches', async () => {
    const imageSet = await createImageSet(client);
    // As `kubectl apply` creates it: its manifest, one line of JSON, in the annotation.
    const apply = (res: ApiResource, obj: KubeObject) => client.create(res, asApplied(obj));
    const created = [
      await apply(SECRET, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'pull-secret', namespace: ns },
        type: 'kubernetes.io/dockerconfigjson',
        stringData: { '.dockerconfigjson': PULL_SECRET },
      } as KubeObject),
      await apply(CLUSTER_DEPLOYMENT, clusterDeploymentObject(ns, 'site')),
      await apply(AGENT_CLUSTER_INSTALL, snoAciObject(ns, 'site', imageSet)),
    ];
    const bmh = await apply(BARE_METAL_HOST, {
      apiVersion: 'metal3.io/v1alpha1',
      kind: 'BareMetalHost',
      metadata: { name: 'site', namespace: ns, labels: { [INFRAENV_LABEL]: 'site' } },
      spec: { online: true, bootMACAddress: '52:54:00:aa:bb:01' },
    } as KubeObject);
    // Created by metal3, not applied: known before the InfraEnv, so its first patch carries the mark.
    await client.create(PREPROVISIONING_IMAGE, preprovisioningImageOf(bmh as BareMetalHost, 'x86_64'));
    await eventually(async () => op.ctx.mgr.informer(PREPROVISIONING_IMAGE).get(ns, 'site'), {
      what: 'the PreprovisioningImage in the cache',
    });
    created.push(
      bmh,
      await apply(INFRA_ENV, {
        apiVersion: 'agent-install.openshift.io/v1beta1',
        kind: 'InfraEnv',
        metadata: { name: 'site', namespace: ns },
        spec: { pullSecretRef: { name: 'pull-secret' }, clusterRef: { name: 'site', namespace: ns } },
      } as KubeObject),
    );
    const has = (o: KubeObject, finalizer: string) => o.metadata.finalizers?.includes(finalizer) ?? false;
    const sites: Site[] = [
      { res: SECRET, name: 'pull-secret', done: (o) => o.metadata.labels?.[WATCH_LABEL] === 'true' },
      { res: CLUSTER_DEPLOYMENT, name: 'site', done: (o) => has(o, CLUSTERDEPLOYMENT_FINALIZER) },
      { res: AGENT_CLUSTER_INSTALL, name: 'site', done: (o) => has(o, AGENTCLUSTERINSTALL_FINALIZER) },
      {
        res: BARE_METAL_HOST,
        name: 'site',
        done: (o) =>
          has(o, BMH_FINALIZER) &&
          o.metadata.labels?.['cluster.open-cluster-management.io/backup'] === 'true',
      },
      {
        res: INFRA_ENV,
        name: 'site',
        done: (o) =>
          has(o, INFRAENV_FINALIZER) &&
          o.metadata.annotations?.[INFRAENV_ENABLE_IRONIC_AGENT_ANNOTATION] === 'true',
      },
    ];
    for (const [i, site] of sites.entries()) {
      const live = await eventually(
        async () => {
          const o = await client.get<KubeObject>(site.res, site.name, ns);
          return site.done(o) ? o : undefined;
        },
        { timeoutMs: 30_000, what: `${site.res.kind} ${site.name} reconciled` },
      );
      const wanted = created[i]!.metadata.annotations?.[LAST_APPLIED_ANNOTATION];
      expect(wanted, site.res.kind).toContain(`"kind":"${site.res.kind}"`);
      expect(live.metadata.annotations?.[LAST_APPLIED_ANNOTATION], site.res.kind).toBe(wanted);
      // The cache learns of the operator's own patch from the watch, a moment after the API server
      // has it (a Secret enters the label-selected cache only with that patch).
      const cached = await eventually(
        async () => {
          const o = op.ctx.mgr.informer(site.res).get(ns, site.name);
          return o && site.done(o) ? o : undefined;
        },
        { timeoutMs: 30_000, what: `${site.res.kind} ${site.name} reconciled in the cache` },
      );
      expect(cached.metadata.annotations?.[LAST_APPLIED_ANNOTATION], site.res.kind).toBeUndefined();
    }
  });
});
