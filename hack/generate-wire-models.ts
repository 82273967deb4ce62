// Writes src/sim/wire-models.ts: the Go field types of the REST models the simulator decodes,
// derived from upstream's definition (../shared/upstream/swagger.yaml beside the repository, or
// UPSTREAM_SWAGGER). The contract unit test fails when the file drifts from the definition.
//
// Usage: node hack/generate-wire-models.ts

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { swaggerPath } from '../test/harness/swagger-contract.ts';
import { deriveWireModels, renderWireModels } from './lib/wire-models.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const doc = parse(readFileSync(swaggerPath(), 'utf8')) as {
  definitions: Record<string, Record<string, unknown>>;
};
const target = join(root, 'src', 'sim', 'wire-models.ts');
writeFileSync(target, renderWireModels(deriveWireModels(doc.definitions)));
console.log(`wrote ${target}`);
