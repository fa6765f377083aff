import { defineConfig } from 'vitest/config';

// Tests import workspace packages from their TypeScript sources (the `@toolhost/source` export
// condition), so a test run never sees a stale `dist/`.
const conditions = ['@toolhost/source', 'import', 'module', 'node', 'default'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@toolhost/source'] } },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts', 'plugins/*/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**', 'test/fixtures/**'],
    // isolated-vm requires it on Node >= 20 (V8 heap sharing with Node's snapshot corrupts isolates).
    pool: 'forks',
    execArgv: ['--no-node-snapshot'],
    testTimeout: 20_000,
  },
});
