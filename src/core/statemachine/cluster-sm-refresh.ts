// RefreshStatus rules of the cluster (spec §2.3, CR1–CR26), in upstream order: first match wins.

import type { ClusterStatus } from '../model.ts';
import {
  allHostsDone,
  hasHostInStatus,
  isClusterComplete,
  isFinalizing,
  isInstalling,
} from './cluster-predicates.ts';
import {
  CLUSTER_INFO,
  clusterFailed,
  completeInstallation,
  enterFinalizing,
  finalizingStageSoftTimeout,
  logsTimedOut,
  preparingTimedOut,
  pushConsoleUrl,
  stageTimeoutMinutes,
  startInstalling,
} from './cluster-refresh-effects.ts';
import {
  type ClusterApply,
  type ClusterArgs,
  type ClusterEngine,
  postRefresh,
  stayCluster,
} from './cluster-sm-common.ts';
import {
  hasClusterStatusTimedOut,
  isClusterLogCollectionTimedOut,
  isFinalizingStageTimedOut,
  isInstallationTimedOut,
} from './cluster-timeouts.ts';
import { CC, CV, REQUIRED_FOR_INSTALL_IDS } from './condition-ids.ts';
import { wholeMinutes } from './durations.ts';
import { And, type Condition, If, Not, Or, When } from './engine.ts';
import { NON_FAILING_FINALIZING_STAGES } from './stages.ts';

const IfC = (id: string): Condition<ClusterArgs> => If<ClusterArgs>(id);

const pending = And(
  IfC(CV.machineCidrDefined),
  IfC(CV.clusterCidrDefined),
  IfC(CV.serviceCidrDefined),
  IfC(CV.dnsDomainDefined),
  IfC(CV.pullSecretSet),
);
const vipsDefined = And(IfC(CV.ingressVipsDefined), IfC(CV.apiVipsDefined));
const requiredForInstall = And(...REQUIRED_FOR_INSTALL_IDS.map(IfC));
const dhcp = IfC(CC.vipDhcpAllocationSet);

const finalizingC = When<ClusterArgs>((a) => isFinalizing(a.cluster));
const installingC = When<ClusterArgs>((a) => isInstalling(a.cluster));
const someIpua = When<ClusterArgs>((a) => hasHostInStatus(a.cluster, 'installing-pending-user-action'));
const soft = When<ClusterArgs>((a) => a.soft);
const installTimedOut = When<ClusterArgs>((a) => isInstallationTimedOut(a.cluster, a.now, a.options));
const stageTimedOut = When<ClusterArgs>((a) =>
  isFinalizingStageTimedOut(a.cluster, a.now, a.options, a.soft),
);
const nonFailingStage = When<ClusterArgs>((a) =>
  NON_FAILING_FINALIZING_STAGES.includes(a.cluster.progress?.finalizing_stage ?? ''),
);
const stageTimedOutFlag = When<ClusterArgs>((a) => a.cluster.progress?.finalizing_stage_timed_out === true);

export function addClusterRefreshRules(sm: ClusterEngine): void {
  const add = (
    id: string,
    sources: readonly ClusterStatus[],
    destination: ClusterStatus,
    condition: Condition<ClusterArgs> | undefined,
    apply: ClusterApply,
  ) => sm.add('RefreshStatus', { id, sources, destination, apply, ...(condition ? { condition } : {}) });
  const preInstall: readonly ClusterStatus[] = ['pending-for-input', 'ready', 'insufficient'];
  const preparing: ClusterStatus = 'preparing-for-installation';
  const ipua: ClusterStatus = 'installing-pending-user-action';

  add(
    'CR1',
    preInstall,
    'pending-for-input',
    And(Not(dhcp), Not(And(vipsDefined, pending))),
    postRefresh(CLUSTER_INFO.pendingForInput),
  );
  add(
    'CR2',
    preInstall,
    'insufficient',
    And(Not(dhcp), vipsDefined, pending, Not(requiredForInstall)),
    postRefresh(CLUSTER_INFO.insufficient),
  );
  add(
    'CR3',
    preInstall,
    'pending-for-input',
    And(dhcp, Not(pending)),
    postRefresh(CLUSTER_INFO.pendingForInput),
  );
  add(
    'CR4',
    preInstall,
    'insufficient',
    And(dhcp, pending, Not(And(requiredForInstall, vipsDefined))),
    postRefresh(CLUSTER_INFO.insufficient),
  );
  add(
    'CR5',
    preInstall,
    'ready',
    And(pending, vipsDefined, requiredForInstall),
    postRefresh(CLUSTER_INFO.ready),
  );
  add(
    'CR6',
    [preparing],
    'ready',
    And(
      When((a) => hasClusterStatusTimedOut(a.cluster, a.now, a.options.prepareForInstallationTimeoutMs)),
      Not(IfC(CC.failedPreparingHostsExist)),
    ),
    preparingTimedOut,
  );
  add(
    'CR7',
    [preparing],
    'installing',
    And(IfC(CC.allHostsPreparedSuccessfully), IfC(CC.clusterPreparationSucceeded)),
    startInstalling,
  );
  add(
    'CR8',
    [preparing],
    'insufficient',
    IfC(CC.unpreparingHostsExist),
    postRefresh(CLUSTER_INFO.unpreparingHostExists),
  );
  add(
    'CR9',
    [preparing],
    'ready',
    Or(
      IfC(CC.failedPreparingHostsExist),
      And(Not(IfC(CC.unpreparingHostsExist)), IfC(CC.clusterPreparationFailed)),
    ),
    postRefresh(CLUSTER_INFO.failedToPrepare),
  );
  add('CR10', [ipua], 'error', Not(Or(installingC, finalizingC)), clusterFailed);
  add('CR11', [ipua], 'error', installTimedOut, postRefresh(CLUSTER_INFO.pendingUserActionTimedOut));
  add(
    'CR12',
    ['installing', 'finalizing'],
    'error',
    And(installTimedOut, soft),
    postRefresh(
      (a) =>
        `cluster installation timeout (${wholeMinutes(a.options.installationTimeoutMs)} minutes) has expired`,
    ),
  );
  add(
    'CR13',
    ['finalizing'],
    'error',
    And(
      When((a) => hasClusterStatusTimedOut(a.cluster, a.now, a.options.finalizingTimeoutMs)),
      Not(soft),
    ),
    postRefresh(CLUSTER_INFO.finalizingTimedOut),
  );
  add(
    'CR14',
    ['finalizing'],
    'error',
    And(Not(soft), stageTimedOut, Not(nonFailingStage)),
    postRefresh((a) => {
      const { stage, minutes } = stageTimeoutMinutes(a);
      return `Cluster finalizing stage '${stage}' has been timed out after timeout duration of ${minutes} minutes`;
    }),
  );
  add(
    'CR15',
    ['finalizing'],
    'finalizing',
    And(Not(stageTimedOutFlag), Or(soft, nonFailingStage), stageTimedOut),
    finalizingStageSoftTimeout,
  );
  add('CR16', [ipua], ipua, And(someIpua, Or(installingC, finalizingC)), stayCluster);
  add(
    'CR17',
    [ipua],
    'installing',
    And(Not(someIpua), installingC, Not(finalizingC)),
    postRefresh(CLUSTER_INFO.installing),
  );
  add('CR18', [ipua], 'finalizing', And(Not(someIpua), finalizingC), enterFinalizing);
  add(
    'CR19',
    ['installing', 'finalizing'],
    ipua,
    And(Or(installingC, finalizingC), someIpua),
    postRefresh(CLUSTER_INFO.installingPendingUserAction),
  );
  add(
    'CR20',
    ['installing'],
    'finalizing',
    And(finalizingC, Not(someIpua)),
    postRefresh(CLUSTER_INFO.finalizing),
  );
  add(
    'CR21',
    ['installing'],
    'installing',
    And(Not(finalizingC), Not(someIpua), installingC),
    postRefresh(CLUSTER_INFO.installing),
  );
  add(
    'CR22',
    ['finalizing'],
    'finalizing',
    When(
      (a) =>
        a.options.ocmConfigured &&
        !a.cluster.is_ams_subscription_console_url_set &&
        (a.cluster.monitored_operators ?? []).some(
          (op) => op.name === 'console' && op.status === 'available',
        ),
    ),
    pushConsoleUrl,
  );
  add(
    'CR23',
    ['finalizing'],
    'installed',
    When((a) => allHostsDone(a.cluster) && isClusterComplete(a.cluster)),
    completeInstallation,
  );
  add('CR24', ['installing'], 'error', And(Not(finalizingC), Not(installingC)), clusterFailed);
  const logsTimeout = When<ClusterArgs>((a) => isClusterLogCollectionTimedOut(a.cluster, a.now, a.options));
  for (const s of ['error', 'cancelled'] as const) add('CR25', [s], s, logsTimeout, logsTimedOut);
  for (const s of [
    preparing,
    'finalizing',
    'installed',
    'error',
    'cancelled',
    'adding-hosts',
    'unmonitored',
  ] as const) {
    add('CR26', [s], s, undefined, stayCluster);
  }
}
