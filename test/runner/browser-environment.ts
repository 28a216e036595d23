import type { Environment } from 'vitest/runtime';
import { builtinEnvironments } from 'vitest/runtime';
import { closeWorkerChromium } from '../browser/worker-chromium.js';

/*
 * The browser project's test environment (vite.config.ts): Node's, and when the worker ends (after its last file),
 * the worker's Chromium closed (test/browser/harness.ts: one Chromium per worker, launched by its first browser file).
 * Vitest sets an environment up once per worker process and tears it down as the worker stops, whatever the files did.
 */
const environment: Environment = {
  name: 'browser-worker',
  viteEnvironment: 'ssr',
  async setup(global, options) {
    const node = await builtinEnvironments.node.setup(global, options);
    return {
      async teardown(g) {
        await closeWorkerChromium();
        await node.teardown(g);
      },
    };
  },
};
export default environment;
