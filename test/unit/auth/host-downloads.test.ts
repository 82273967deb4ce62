// Which cluster files an agent token may download (issue 13, item 2): only the three the installer
// and controller fetch, only while the cluster installs, only for a token with a host in the
// installation. One row per file, route and situation.
import { describe, expect, it } from 'vitest';
import { type AgentDownloadRequest, agentClusterDownload } from '../../../src/auth/index.ts';

const CID = 'cccccccc-0000-4000-8000-00000000000c';
type Row = Omit<AgentDownloadRequest, 'clusterId'> & { expected: 200 | 403 | 409 };

const allowed = (route: 'files' | 'credentials', fileName: string): Row[] => [
  { route, fileName, clusterState: 'installing', participating: true, expected: 200 },
  { route, fileName, clusterState: 'installing-pending-user-action', participating: true, expected: 200 },
  { route, fileName, clusterState: 'finalizing', participating: true, expected: 200 },
  { route, fileName, clusterState: 'installing', participating: false, expected: 403 },
  { route, fileName, clusterState: 'ready', participating: true, expected: 409 },
  { route, fileName, clusterState: 'installed', participating: true, expected: 409 },
  { route, fileName, clusterState: 'adding-hosts', participating: true, expected: 409 },
];

const never = (route: 'files' | 'credentials', fileName: string): Row[] =>
  ['installing', 'finalizing', 'installed'].map((clusterState) => ({
    route,
    fileName,
    clusterState,
    participating: true,
    expected: 403 as const,
  }));

const rows: Row[] = [
  ...allowed('files', 'bootstrap.ign'),
  ...allowed('files', 'custom_manifests.json'),
  ...allowed('credentials', 'kubeconfig-noingress'),
  ...never('credentials', 'kubeadmin-password'),
  ...never('credentials', 'kubeconfig'),
  ...never('files', 'install-config.yaml'),
  ...never('files', 'metadata.json'),
  ...never('files', 'master.ign'),
  ...never('files', 'worker.ign'),
  ...never('files', 'arbiter.ign'),
  ...never('files', 'custom_manifests.yaml'),
  // A name allowed on one route is not allowed on the other.
  ...never('files', 'kubeconfig-noingress'),
  ...never('credentials', 'bootstrap.ign'),
];

describe('agentClusterDownload', () => {
  it.each(rows)(
    '$route $fileName, cluster $clusterState, participating $participating → $expected',
    (row) => {
      const decision = agentClusterDownload({ ...row, clusterId: CID });
      if (row.expected === 200) {
        expect(decision).toEqual({ ok: true });
        return;
      }
      expect(decision.ok).toBe(false);
      if (decision.ok) return;
      expect(decision.status).toBe(row.expected);
      expect(decision.reason).toContain(row.fileName);
    },
  );
});
