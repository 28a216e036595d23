import { workerChromiumTwin } from './worker-chromium-twin.js';

// See worker-chromium-twin.ts: this file and worker-chromium-a.test.ts, one after the other in a worker.
workerChromiumTwin('b');
