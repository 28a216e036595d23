import { parentPort, workerData } from 'node:worker_threads';
import { loadScenario } from '../sandbox/index.js';

/** The worker of cli/demo-scenario.ts: simulates the scenario and posts it back (a Scenario is plain data). */
const { name, seed, karpenterVersion } = workerData as { name: string; seed: number; karpenterVersion: string };
parentPort?.postMessage(loadScenario(name, seed, karpenterVersion));
