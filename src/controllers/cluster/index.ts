// The install path (kubeapi.md §3.1, §3.2): one reconciler keyed by ClusterDeployment that owns the
// cluster record in its AgentClusterInstall — finalizers, ownerReference, validations and the
// cluster state machine, installation start and preparation, hand-off to Hive, day 2 and teardown
// — plus the ACI-only sanity check for ACIs no ClusterDeployment manages.
//
// Wakes on: its ClusterDeployment; AgentClusterInstalls (by clusterDeploymentRef and by the CDs
// that name them); Agents (by spec.clusterDeploymentName and the cluster they are bound to, every
// change of what the cluster reads: all but annotations and labels other than the InfraEnv's);
// ClusterImageSets, pull/CA Secrets and manifests/mirror ConfigMaps the ACI references; the enqueue
// bus ('clusterdeployment'); the end of a preparation job; and a change of the base URLs.

import type { Agent } from '../../api/index.ts';
import type { ArtifactGenerator } from '../../core/artifacts/index.ts';
import { optionsFromEnv, type StateMachineOptions } from '../../core/statemachine/index.ts';
import type { ClusterValidationConfig } from '../../core/validations/index.ts';
import type { OperatorContext } from '../../records/context.ts';
import { ACI_BY_CLUSTER_INDEX } from '../../records/indexes.ts';
import {
  AGENT,
  AGENT_CLUSTER_INSTALL,
  CLUSTER_DEPLOYMENT,
  CLUSTER_IMAGE_SET,
  CONFIG_MAP,
  SECRET,
} from '../../records/resources.ts';
import { type Controller, keyOf, OwnWriteEchoes, updateWhen } from '../../runtime/index.ts';
import { reconcileAgentClusterInstall } from './aci-check.ts';
import { ConnectivityPacing } from './connectivity-pacing.ts';
import type { ClusterControllerDeps } from './deps.ts';
import { type ClusterEventSink, operatorEventSink } from './events.ts';
import { PreparationJobs, selectArtifactGenerator } from './preparation.ts';
import { reconcileClusterDeployment } from './reconcile.ts';
import {
  addClusterIndexes,
  agentChangeReachesCluster,
  cdKeysOfAci,
  cdKeysOfAgent,
  cdKeysOfConfigMap,
  cdKeysOfImageSet,
  cdKeysOfSecret,
} from './watches.ts';

export interface ClusterControllerOptions {
  generator?: ArtifactGenerator;
  events?: ClusterEventSink;
  smOptions?: Partial<StateMachineOptions>;
  validation?: ClusterValidationConfig;
  workers?: number;
}

/** DISABLED_CLUSTER_VALIDATIONS (comma-separated ids), as upstream's service reads it. */
export function validationConfigFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): ClusterValidationConfig {
  const disabled = (env.DISABLED_CLUSTER_VALIDATIONS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return disabled.length > 0 ? { disabledClusterValidations: disabled } : {};
}

export interface RegisteredClusterControllers {
  clusterDeployments: Controller;
  agentClusterInstalls: Controller;
  deps: ClusterControllerDeps;
}

export function registerClusterControllers(
  ctx: OperatorContext,
  options: ClusterControllerOptions = {},
): RegisteredClusterControllers {
  addClusterIndexes(ctx);
  const fromEnv = optionsFromEnv(process.env);
  for (const e of fromEnv.errors) ctx.logger.warn(`ignoring ${e}`);
  let cdController: Controller | undefined;
  const deps: ClusterControllerDeps = {
    generator: options.generator ?? selectArtifactGenerator(ctx),
    jobs: new PreparationJobs(),
    events: options.events ?? operatorEventSink(ctx),
    smOptions: options.smOptions ?? fromEnv.options,
    validation: options.validation ?? validationConfigFromEnv(process.env),
    startedAt: ctx.now().getTime(),
    // A held update that was not the pass's own write wakes what the ACI watch would have: the
    // ClusterDeployments of both versions (a spec change may have moved the ACI to another).
    echoes: new OwnWriteEchoes((oldAci, newAci) => {
      const keys = new Set([...cdKeysOfAci(ctx, oldAci as never), ...cdKeysOfAci(ctx, newAci as never)]);
      for (const key of keys) cdController?.enqueue(key);
    }),
    enqueue: (key) => cdController?.enqueue(key),
    connectivity: new ConnectivityPacing(),
  };
  ctx.mgr.onShutdown(() => deps.jobs.drain());
  cdController = ctx.mgr
    .controller('clusterdeployment')
    .for(CLUSTER_DEPLOYMENT)
    .watches(AGENT_CLUSTER_INSTALL, (aci) => cdKeysOfAci(ctx, aci as never), {
      predicates: [deps.echoes.predicate],
    })
    .watches<Agent>(AGENT, (agent) => cdKeysOfAgent(ctx, agent), {
      predicates: [updateWhen(agentChangeReachesCluster)],
    })
    .watches(CLUSTER_IMAGE_SET, (cis) => cdKeysOfImageSet(ctx, cis))
    .watches(SECRET, (secret) => cdKeysOfSecret(ctx, secret))
    .watches(CONFIG_MAP, (cm) => cdKeysOfConfigMap(ctx, cm))
    .withWorkers(options.workers ?? 4)
    .complete((req) => reconcileClusterDeployment(ctx, deps, req));
  const cds = cdController;
  ctx.bus.register('clusterdeployment', (key, low) => cds.enqueue(key, low));
  // The ACI's debugInfo.eventsURL and logsURL name the service base URL.
  ctx.onUrlsChange(() => cds.resync(ctx.informers.clusterDeployments.store.list()));

  const aciController = ctx.mgr
    .controller('agentclusterinstall')
    .for(AGENT_CLUSTER_INSTALL)
    .watches(CLUSTER_DEPLOYMENT, (cd) => {
      const ns = cd.metadata.namespace;
      const keys = ctx.informers.agentClusterInstalls.store
        .byIndex(ACI_BY_CLUSTER_INDEX, keyOf(ns, cd.metadata.name ?? ''))
        .map((a) => keyOf(a.metadata.namespace, a.metadata.name ?? ''));
      const named = (cd as { spec?: { clusterInstallRef?: { name?: string } } }).spec?.clusterInstallRef
        ?.name;
      if (named) keys.push(keyOf(ns, named));
      return keys;
    })
    .complete((req) => reconcileAgentClusterInstall(ctx, deps, req));
  ctx.bus.register('agentclusterinstall', (key, low) => aciController.enqueue(key, low));
  return { clusterDeployments: cds, agentClusterInstalls: aciController, deps };
}

/** The registrar for src/controllers/index.ts. */
export function register(ctx: OperatorContext): void {
  registerClusterControllers(ctx);
}
