import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

// One file configures the dashboard build (root web/, output dist/web) and the test runner.
export default defineConfig({
  root: 'web',
  plugins: [react()],
  // web/ imports the API contract's types as @schemas/<module> (the same alias as web/tsconfig.json); types only, so
  // nothing of server/ reaches the bundle.
  resolve: { alias: { '@schemas': fileURLToPath(new URL('./server/schemas', import.meta.url)) } },
  build: { outDir: '../dist/web', emptyOutDir: true },
  server: { host: '127.0.0.1', proxy: { '/api': 'http://127.0.0.1:5173' } },
  test: {
    root: '.',
    include: ['**/*.test.ts', '**/*.test.tsx'],
    exclude: ['node_modules/**', 'dist/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // The pinned AWS SDK works on Node 20; its notice about future releases needing Node 22 is noise here.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
