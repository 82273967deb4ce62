// Everything a controller or the REST backend needs, built once per process: the manager and its
// client, typed informers with the indexes of indexes.ts, in-memory host facts, and an enqueue bus
// so one part can ask another to reconcile a key (the level-triggered replacement for upstream's
// event channels).
import type { Logger } from 'pino';
import type {
  Agent,
  AgentClassification,
  AgentClusterInstall,
  AgentServiceConfig,
  ClusterDeployment,
  ClusterImageSet,
  InfraEnv,
  NMStateConfig,
} from '../api/index.ts';
import { WATCH_LABEL } from '../api/index.ts';
import {
  type Informer,
  indexByLabelPairs,
  type KubeClient,
  type KubeObject,
  LABEL_PAIRS_INDEX,
  type Manager,
  type ResourceCacheOptions,
  stripForCache,
} from '../runtime/index.ts';
import { agentForCache } from './agents/cache.ts';
import { ServiceUrlState, type ServiceUrls, type UrlsListener } from './base-urls.ts';
import { listenBaseUrl, type OperatorSettings } from './config.ts';
import { HostFactsStore } from './facts.ts';
import {
  ACI_BY_CLUSTER_INDEX,
  AGENT_BY_BOUND_CLUSTER_INDEX,
  AGENT_BY_CLUSTER_INDEX,
  AGENT_BY_INFRAENV_INDEX,
  AGENT_BY_MAC_INDEX,
  AGENT_BY_NAME_INDEX,
  AGENT_BY_TOKEN_SECRET_INDEX,
  aciByCluster,
  agentByBoundCluster,
  agentByCluster,
  agentByInfraEnv,
  agentByMac,
  agentByName,
  agentByTokenSecret,
  INFRAENV_BY_CLUSTER_INDEX,
  INFRAENV_BY_NMSTATE_SELECTOR_INDEX,
  indexByUid,
  infraEnvByCluster,
  infraEnvByNmStateSelector,
  UID_INDEX,
} from './indexes.ts';
import {
  AGENT,
  AGENT_CLASSIFICATION,
  AGENT_CLUSTER_INSTALL,
  AGENT_SERVICE_CONFIG,
  CLUSTER_DEPLOYMENT,
  CLUSTER_IMAGE_SET,
  CONFIG_MAP,
  INFRA_ENV,
  NMSTATE_CONFIG,
  SECRET,
} from './resources.ts';

/**
 * Secrets and ConfigMaps are cached only when labelled for it (assisted-service does the same), and
 * Secrets' values stay out of the shared string pool; Agents without the large backup annotations'
 * text (records/agents/cache.ts).
 */
export function operatorCacheOptions(): ResourceCacheOptions[] {
  return [
    { resource: SECRET, labelSelector: `${WATCH_LABEL}=true`, transform: stripForCache },
    { resource: CONFIG_MAP, labelSelector: `${WATCH_LABEL}=true` },
    { resource: AGENT, transform: agentForCache },
  ];
}

export type EnqueueKind = 'agent' | 'clusterdeployment' | 'agentclusterinstall';

/** Where a kind's keys go: its controller's queue (`lowPriority` as Controller.enqueue has it). */
export type EnqueueSink = (key: string, lowPriority: boolean) => void;

/** Keys (`ns/name`) handed to the controllers that registered for a kind. */
export class EnqueueBus {
  private readonly sinks = new Map<EnqueueKind, EnqueueSink[]>();

  register(kind: EnqueueKind, sink: EnqueueSink): void {
    const list = this.sinks.get(kind) ?? [];
    list.push(sink);
    this.sinks.set(kind, list);
  }

  /** `lowPriority` for keys woken by an informer's list, which a fleet-wide resync produces. */
  enqueue(kind: EnqueueKind, key: string, lowPriority = false): void {
    for (const s of this.sinks.get(kind) ?? []) s(key, lowPriority);
  }
}

export interface OperatorInformers {
  agents: Informer<Agent>;
  infraEnvs: Informer<InfraEnv>;
  nmStateConfigs: Informer<NMStateConfig>;
  agentClassifications: Informer<AgentClassification>;
  agentServiceConfigs: Informer<AgentServiceConfig>;
  agentClusterInstalls: Informer<AgentClusterInstall>;
  clusterDeployments: Informer<ClusterDeployment>;
  clusterImageSets: Informer<ClusterImageSet>;
  secrets: Informer<KubeObject & { data?: Record<string, string>; type?: string }>;
  configMaps: Informer<KubeObject & { data?: Record<string, string> }>;
}

export type { ServiceUrls } from './base-urls.ts';

export class OperatorContext {
  readonly mgr: Manager;
  readonly client: KubeClient;
  readonly logger: Logger;
  readonly settings: OperatorSettings;
  readonly informers: OperatorInformers;
  readonly facts = new HostFactsStore();
  readonly bus = new EnqueueBus();
  /** Namespace the operator runs in (its Secrets and Lease live there). */
  readonly namespace: string;
  /**
   * Where the base URLs come from (settings, the discovered Route/Ingress/Service, the listen
   * address); the REST server and base-url-discovery.ts update it.
   */
  readonly urlState: ServiceUrlState;
  /**
   * Whether BMAC and the PreprovisioningImage controller use the converged flow. Starts as
   * ALLOW_CONVERGED_FLOW; startOperator replaces it with the hub-checked decision
   * (converged-flow.ts) before any controller registers, and it does not change afterwards.
   */
  convergedFlow: boolean;
  /** Injectable clock, so tests can move time. */
  now: () => Date = () => new Date();

  constructor(init: { mgr: Manager; settings: OperatorSettings; namespace: string }) {
    this.mgr = init.mgr;
    this.client = init.mgr.client;
    this.logger = init.mgr.logger;
    this.settings = init.settings;
    this.namespace = init.namespace;
    this.convergedFlow = init.settings.allowConvergedFlow;
    this.urlState = new ServiceUrlState({
      service: init.settings.serviceBaseUrl,
      image: init.settings.imageServiceBaseUrl,
      discovered: undefined,
      listen: listenBaseUrl(init.settings),
    });
    const inf = <T extends KubeObject>(r: Parameters<Manager['informer']>[0]) => init.mgr.informer<T>(r);
    this.informers = {
      agents: inf<Agent>(AGENT),
      infraEnvs: inf<InfraEnv>(INFRA_ENV),
      nmStateConfigs: inf<NMStateConfig>(NMSTATE_CONFIG),
      agentClassifications: inf<AgentClassification>(AGENT_CLASSIFICATION),
      agentServiceConfigs: inf<AgentServiceConfig>(AGENT_SERVICE_CONFIG),
      agentClusterInstalls: inf<AgentClusterInstall>(AGENT_CLUSTER_INSTALL),
      clusterDeployments: inf<ClusterDeployment>(CLUSTER_DEPLOYMENT),
      clusterImageSets: inf<ClusterImageSet>(CLUSTER_IMAGE_SET),
      secrets: inf(SECRET),
      configMaps: inf(CONFIG_MAP),
    };
    const { agents, infraEnvs, agentClusterInstalls, clusterDeployments } = this.informers;
    agents.store.addIndex(AGENT_BY_CLUSTER_INDEX, agentByCluster);
    agents.store.addIndex(AGENT_BY_INFRAENV_INDEX, agentByInfraEnv);
    agents.store.addIndex(AGENT_BY_MAC_INDEX, agentByMac);
    // Lookups that scanned every Agent, once per event or request (quadratic in a fleet's wave).
    agents.store.addIndex(AGENT_BY_NAME_INDEX, agentByName);
    agents.store.addIndex(AGENT_BY_BOUND_CLUSTER_INDEX, agentByBoundCluster);
    agents.store.addIndex(AGENT_BY_TOKEN_SECRET_INDEX, agentByTokenSecret);
    infraEnvs.store.addIndex(UID_INDEX, indexByUid);
    infraEnvs.store.addIndex(INFRAENV_BY_CLUSTER_INDEX, infraEnvByCluster);
    // NMStateConfig ↔ InfraEnv selection both ways without a namespace scan (a hub may keep a
    // thousand clusters' configs in one namespace).
    infraEnvs.store.addIndex(INFRAENV_BY_NMSTATE_SELECTOR_INDEX, infraEnvByNmStateSelector);
    this.informers.nmStateConfigs.store.addIndex(LABEL_PAIRS_INDEX, indexByLabelPairs);
    agentClusterInstalls.store.addIndex(ACI_BY_CLUSTER_INDEX, aciByCluster);
    clusterDeployments.store.addIndex(UID_INDEX, indexByUid);
  }

  /** Base URLs hosts use, as of now: read them at use, they follow the discovered address. */
  get urls(): ServiceUrls {
    return this.urlState.current;
  }

  /**
   * Called whenever the base URLs change, so the controllers that write them into status
   * re-reconcile; never called when they stay the same.
   */
  onUrlsChange(listener: UrlsListener): void {
    this.urlState.onChange(listener);
  }

  infraEnvById(id: string): InfraEnv | undefined {
    return this.informers.infraEnvs.store.byIndex(UID_INDEX, id)[0];
  }

  clusterDeploymentById(id: string): ClusterDeployment | undefined {
    return this.informers.clusterDeployments.store.byIndex(UID_INDEX, id)[0];
  }

  /** The same frozen list until one of them changes (Store.byIndexShared). */
  agentsOfCluster(cdKey: string): readonly Agent[] {
    return this.informers.agents.store.byIndexShared(AGENT_BY_CLUSTER_INDEX, cdKey);
  }

  agentsOfInfraEnv(infraEnvKey: string): Agent[] {
    return this.informers.agents.store.byIndex(AGENT_BY_INFRAENV_INDEX, infraEnvKey);
  }

  agentsByMac(mac: string): Agent[] {
    return this.informers.agents.store.byIndex(AGENT_BY_MAC_INDEX, mac.toLowerCase());
  }

  infraEnvsOfCluster(cdKey: string): InfraEnv[] {
    return this.informers.infraEnvs.store.byIndex(INFRAENV_BY_CLUSTER_INDEX, cdKey);
  }

  aciOfCluster(cdKey: string): AgentClusterInstall | undefined {
    return this.informers.agentClusterInstalls.store.byIndex(ACI_BY_CLUSTER_INDEX, cdKey)[0];
  }
}
