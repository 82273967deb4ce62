// Writes the CustomResourceDefinitions generated from src/api:
//   config/crd/bases/<group>_<plural>.yaml     owned kinds
//   config/crd/external/<group>_<plural>.yaml  stand-ins for Hive and metal3 kinds
// plus a kustomization.yaml in each directory.
//
// Usage: node hack/generate-crds.ts [--check]
//   --check  regenerate in memory, list files that differ from disk (or are stale) and exit 1
//            if there are any; nothing is written.

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXTERNAL_CRD_DIR, generateCrdFiles, OWNED_CRD_DIR } from '../src/api/crd.ts';
import { parseCheckFlag, writeOrCheck } from './lib/generated-files.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const check = parseCheckFlag(process.argv.slice(2), 'node hack/generate-crds.ts [--check]');

writeOrCheck(
  {
    root,
    files: generateCrdFiles(),
    ownedDirs: [OWNED_CRD_DIR, EXTERNAL_CRD_DIR],
    // Only YAML files in the CRD directories are generated; anything else there is left alone.
    ownedFile: (name) => name.endsWith('.yaml'),
    command: 'node hack/generate-crds.ts',
    what: 'CRDs',
  },
  check,
);
