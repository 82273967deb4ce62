// Agent and AgentClusterInstall fixtures for the CLI unit tests.
import type { Agent, AgentClusterInstall } from '../../../src/api/index.ts';

export function agent(
  name: string,
  over: {
    role?: string;
    hostname?: string;
    state?: string;
    stage?: string;
    pct?: number;
    bootstrap?: boolean;
    validations?: Agent['status'] extends infer S
      ? S extends { validationsInfo?: infer V }
        ? V
        : never
      : never;
  } = {},
): Agent {
  return {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'Agent',
    metadata: { name, namespace: 'ocp' },
    spec: { role: '', approved: true, clusterDeploymentName: { name: 'ocp', namespace: 'ocp' } },
    status: {
      role: over.role ?? 'master',
      bootstrap: over.bootstrap,
      inventory: over.hostname ? { hostname: over.hostname } : undefined,
      debugInfo: { state: over.state ?? 'installing-in-progress' },
      progress: over.stage ? { currentStage: over.stage, installationPercentage: over.pct } : undefined,
      validationsInfo: over.validations,
    },
  } as Agent;
}

export function aci(
  state: string,
  stateInfo: string,
  pct: number,
  conditions: { type: string; status: string; reason?: string; message?: string }[] = [],
): AgentClusterInstall {
  return {
    apiVersion: 'extensions.hive.openshift.io/v1beta1',
    kind: 'AgentClusterInstall',
    metadata: { name: 'ocp', namespace: 'ocp' },
    spec: {
      clusterDeploymentRef: { name: 'ocp' },
      networking: {},
      provisionRequirements: { controlPlaneAgents: 3, workerAgents: 2 },
    },
    status: {
      progress: { totalPercentage: pct },
      debugInfo: { eventsURL: '', logsURL: '', state, stateInfo },
      controlPlaneAgentsReady: 3,
      workerAgentsReady: 1,
      conditions,
    },
  } as AgentClusterInstall;
}
