import { defineConfig } from 'vitest/config';

// Three projects: `unit` needs no cluster (pure logic, plus local files and loopback servers for the
// image service and simulator); `integration` runs against a real kube-apiserver + etcd started once
// per run by test/harness/global-setup.ts (the multi-tenancy suite test/security/, tenants minted
// with RBAC in their own namespace, runs there too); `fuzz` throws generated input at the parsers.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'src/**/*.test.ts'],
          environment: 'node',
          // Speed is measured by the benchmarks, not here: on a loaded 2-core CI box a loopback
          // server or a child process can take longer than vitest's 5 s default.
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'integration',
          // test/fuzz/integration: generated bad input at the REST routes and every CRD kind, with
          // the operator in-process and the webhooks on (same control plane as the other files).
          // test/chaos: operator kill -9 during installs, API server restarts (own control plane).
          include: [
            'test/integration/**/*.test.ts',
            'test/e2e/**/*.test.ts',
            'test/security/**/*.test.ts',
            'test/fuzz/integration/*.test.ts',
            'test/chaos/*.test.ts',
          ],
          environment: 'node',
          globalSetup: ['test/harness/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // Files share one control plane; each test uses its own namespace.
          fileParallelism: true,
          maxWorkers: 2,
        },
      },
      {
        // Generated bad input at the pure parsers (no cluster); bounded counts, fixed seeds.
        test: {
          name: 'fuzz',
          include: ['test/fuzz/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
        },
      },
    ],
    coverage: {
      provider: 'v8',
      include: ['src/core/**/*.ts', 'src/runtime/**/*.ts'],
      exclude: ['src/**/*.test.ts'],
      reporter: ['text-summary', 'json-summary'],
      // Set about one point under what the unit project measured (issue 15), so coverage that drops
      // fails `make coverage` in CI; raise them as tests are added, never lower them to pass.
      // src/runtime: measured on the unit project only (its integration tests are not counted);
      // 2026-11-25: lines 85.3, branches 70.7, functions 78.3, statements 82.0.
      // src/core: measured on the unit project; 2026-11-26: lines 97.6, branches 90.9,
      // functions 96.8, statements 96.4.
      thresholds: {
        'src/core/**/*.ts': { lines: 96, branches: 89, functions: 95, statements: 95 },
        'src/runtime/**/*.ts': { lines: 84, branches: 69, functions: 77, statements: 81 },
      },
    },
  },
});
