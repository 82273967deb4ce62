// Whether a host could take a role (core RoleFitness): the role-dependent validations evaluated as
// if the host had that role — cpu and memory for both, plus the storage/virtualisation operators'
// requirements for masters (core.md §1.7). Used for role suggestions and by the install flow.

import type { Cluster, Host, InfraEnv } from '../../core/model.ts';
import type { RoleFitness } from '../../core/statemachine/index.ts';
import { type HostValidationConfig, validateHost } from '../../core/validations/index.ts';

const MASTER_OPERATOR_IDS = [
  'lso-requirements-satisfied',
  'odf-requirements-satisfied',
  'cnv-requirements-satisfied',
  'lvm-requirements-satisfied',
];

export function roleFitness(
  cluster: Cluster,
  infraEnv: InfraEnv | undefined,
  now: Date,
  config: HostValidationConfig = {},
): RoleFitness {
  return (host: Host, role: 'master' | 'arbiter') => {
    try {
      const as: Host = { ...host, role, suggested_role: role };
      const hosts = cluster.hosts.map((h) => (h.id === host.id ? as : h));
      const { conditions } = validateHost({
        host: as,
        cluster: { ...cluster, hosts },
        ...(infraEnv ? { infraEnv } : {}),
        now,
        config,
      });
      const ids = [
        'has-cpu-cores-for-role',
        'has-memory-for-role',
        ...(role === 'master' ? MASTER_OPERATOR_IDS : []),
      ];
      return ids.every((id) => conditions[id] !== false);
    } catch {
      return false;
    }
  };
}
