// What the ClusterDeployment reconciler needs besides the OperatorContext; built once by register().

import type { ArtifactGenerator } from '../../core/artifacts/index.ts';
import type { StateMachineOptions } from '../../core/statemachine/index.ts';
import type { ClusterValidationConfig } from '../../core/validations/index.ts';
import type { OwnWriteEchoes } from '../../runtime/index.ts';
import type { ConnectivityPacing } from './connectivity-pacing.ts';
import type { ClusterEventSink } from './events.ts';
import type { PreparationJobs } from './preparation.ts';

export interface ClusterControllerDeps {
  /** Produces the install artifacts (built-in generator or openshift-install). */
  generator: ArtifactGenerator;
  jobs: PreparationJobs;
  events: ClusterEventSink;
  /** Timeouts and flags of the state machines (upstream's environment variables). */
  smOptions: Partial<StateMachineOptions>;
  validation: ClusterValidationConfig;
  /** When this process started hearing from hosts (warm-up after a restart), epoch ms. */
  startedAt: number;
  /** The AgentClusterInstall status writes whose watch events need not wake the cluster again. */
  echoes: OwnWriteEchoes;
  /** Paces the connectivity majority groups of large clusters (connectivity-pacing.ts). */
  connectivity: ConnectivityPacing;
  /** Reconcile a ClusterDeployment (`ns/name`) again. */
  enqueue: (cdKey: string) => void;
}
