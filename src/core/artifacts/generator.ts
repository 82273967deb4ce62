// Install artifacts: the interface both producers implement — the production runner that extracts
// and runs `openshift-install` (outside the core) and the built-in generator here, used where no
// release image can be pulled (local runs, tests) so the whole flow still runs end to end.

import {
  countByEffectiveRole,
  generateInstallConfig,
  type InstallConfigOptions,
  isSingleNode,
} from '../installconfig/index.ts';
import type { Cluster } from '../model.ts';
import {
  createAdminClientCert,
  createRootCa,
  generateInfraId,
  generateKubeadminPassword,
  type RandomSource,
  randomUuid,
  renderAdminKubeconfig,
} from './credentials.ts';
import { addHostInstallIgnitions, type ClusterManifest, type RoleIgnitions } from './host-ignition.ts';
import {
  emptyIgnition,
  inlineFile,
  machineConfigServerUrl,
  POINTER_IGNITION_VERSION,
  pointerIgnition,
  serializeIgnition,
  setFile,
} from './ignition.ts';
import { builtinManifests } from './manifests.ts';
import {
  postProcessBootstrapIgnition,
  postProcessRoleIgnition,
  type RolePostProcessOptions,
} from './postprocess.ts';

export interface ArtifactGeneratorInput {
  /** The cluster with its hosts, roles and bootstrap host settled. */
  cluster: Cluster;
  installConfig?: InstallConfigOptions;
  /** The user's custom manifests ("manifests" / "openshift" folders). */
  customManifests?: ClusterManifest[];
  roleOptions?: RolePostProcessOptions;
  now: Date;
  random: RandomSource;
}

/** What a cluster's preparation produces; `files` are keyed by their upload names (§8.4 step 11). */
export interface InstallArtifacts {
  /** The OpenShift cluster ID (metadata.json clusterID). */
  clusterId: string;
  infraId: string;
  installConfig: string;
  manifests: ClusterManifest[];
  /** bootstrap.ign, master.ign, worker.ign, arbiter.ign (arbiter clusters), metadata.json,
   *  install-config.yaml, kubeconfig-noingress, kubeadmin-password and every <role>-<hostID>.ign. */
  files: Record<string, string>;
  /** host id → the name of its ignition file in `files`. */
  hostIgnitionFiles: Record<string, string>;
  kubeadminPassword: string;
  kubeconfig: string;
  rootCaPem: string;
}

export interface ArtifactGenerator {
  generate(input: ArtifactGeneratorInput): Promise<InstallArtifacts>;
}

function metadataJson(cluster: Cluster, clusterId: string, infraId: string): string {
  return JSON.stringify({
    clusterName: cluster.name,
    clusterID: clusterId,
    infraID: infraId,
    [cluster.platform.type]: {},
  });
}

/** A small bootstrap config: the core user's SSH key and the root CA where the installer keeps it. */
function bootstrapIgnition(cluster: Cluster, rootCaPem: string): string {
  const config = emptyIgnition(POINTER_IGNITION_VERSION);
  if (cluster.ssh_public_key) {
    const keys = cluster.ssh_public_key
      .split('\n')
      .map((k) => k.trim())
      .filter((k) => k !== '');
    config.passwd = { users: [{ name: 'core', sshAuthorizedKeys: keys }] };
  }
  setFile(config, inlineFile('/opt/openshift/tls/root-ca.crt', rootCaPem));
  return serializeIgnition(config);
}

function roleIgnitions(cluster: Cluster, rootCaPem: string): RoleIgnitions {
  if (isSingleNode(cluster)) {
    // openshift-install single-node-ignition-config: the bootstrap-in-place config does the work.
    const empty = serializeIgnition(emptyIgnition());
    return { master: empty, worker: empty };
  }
  const pointer = (role: string) =>
    serializeIgnition(
      pointerIgnition(machineConfigServerUrl(cluster.name, cluster.base_dns_domain, role), rootCaPem),
    );
  const roles: RoleIgnitions = { master: pointer('master'), worker: pointer('worker') };
  if (countByEffectiveRole(cluster, 'arbiter') > 0) roles.arbiter = pointer('arbiter');
  return roles;
}

/** Produces every install artifact without openshift-install. Deterministic except for key material. */
export class BuiltinArtifactGenerator implements ArtifactGenerator {
  async generate(input: ArtifactGeneratorInput): Promise<InstallArtifacts> {
    const { cluster, now, random } = input;
    const options = input.installConfig ?? {};
    const installConfig = generateInstallConfig(cluster, options);
    const clusterId = randomUuid(random);
    const infraId = generateInfraId(cluster.name, random);
    const kubeadminPassword = generateKubeadminPassword(random);

    const rootCa = await createRootCa(now, random);
    const admin = await createAdminClientCert(rootCa, now, random);
    const kubeconfig = renderAdminKubeconfig({
      clusterName: cluster.name,
      server: `https://api.${cluster.name}.${cluster.base_dns_domain}:6443`,
      caPem: rootCa.certPem,
      clientCertPem: admin.certPem,
      clientKeyPem: admin.keyPem,
    });

    const manifests = builtinManifests({
      cluster,
      installConfig,
      infraId,
      customManifests: input.customManifests,
    });
    const rawRoles = roleIgnitions(cluster, rootCa.certPem);
    const roles: RoleIgnitions = {
      master: postProcessRoleIgnition('master', rawRoles.master, cluster, input.roleOptions),
      worker: postProcessRoleIgnition('worker', rawRoles.worker, cluster, input.roleOptions),
    };
    if (rawRoles.arbiter)
      roles.arbiter = postProcessRoleIgnition('arbiter', rawRoles.arbiter, cluster, input.roleOptions);

    const files: Record<string, string> = {
      'bootstrap.ign': postProcessBootstrapIgnition(bootstrapIgnition(cluster, rootCa.certPem), cluster),
      'master.ign': roles.master,
      'worker.ign': roles.worker,
      'metadata.json': metadataJson(cluster, clusterId, infraId),
      'kubeconfig-noingress': kubeconfig,
      'kubeadmin-password': kubeadminPassword,
      'install-config.yaml': installConfig,
    };
    if (roles.arbiter) files['arbiter.ign'] = roles.arbiter;

    const hostIgnitionFiles = addHostInstallIgnitions(files, {
      cluster,
      roleIgnitions: roles,
      manifests,
      nodeIpAllocations: options.nodeIpAllocations,
    });

    return {
      clusterId,
      infraId,
      installConfig,
      manifests,
      files,
      hostIgnitionFiles,
      kubeadminPassword,
      kubeconfig,
      rootCaPem: rootCa.certPem,
    };
  }
}
