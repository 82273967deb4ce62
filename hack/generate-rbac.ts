// Writes config/rbac/*.yaml (ServiceAccount, ClusterRole, Role and bindings) from src/rbac/rules.ts.
//
// Usage: node hack/generate-rbac.ts [--check]
//   --check  list files that differ from what would be written (or are stale) and exit 1 if any.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RBAC_DIR, rbacFiles } from '../src/rbac/rules.ts';
import { parseCheckFlag, writeOrCheck } from './lib/generated-files.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const check = parseCheckFlag(process.argv.slice(2), 'node hack/generate-rbac.ts [--check]');
writeOrCheck(
  {
    root,
    files: rbacFiles(),
    ownedDirs: [RBAC_DIR],
    command: 'node hack/generate-rbac.ts',
    what: 'RBAC manifests',
  },
  check,
);
