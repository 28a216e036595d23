import { workerChromiumTwin } from './worker-chromium-twin.js';

// See worker-chromium-twin.ts: this file and worker-chromium-b.test.ts, one after the other in a worker.
workerChromiumTwin('a');
