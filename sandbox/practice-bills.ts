import { loadScenario } from './index.js';
import { hypotheticalBill, PERTURBATIONS, type Perturbation } from './scenario/hypothetical-bill.js';

/**
 * The practice bills `demo` hands its dashboard (server/services/bill-practice.ts declares what it needs): one day of
 * the simulated scenario billed, perhaps perturbed. Only `demo` imports this, so `serve` never loads the simulator.
 */
export const sandboxPracticeBills = {
  perturbations: PERTURBATIONS,
  scenario(name: string, seed: number, karpenterVersion?: string): { name: string; startMs: number; endMs: number } {
    const s = loadScenario(name, seed, karpenterVersion);
    return { name: s.name, startMs: s.start, endMs: s.end };
  },
  bill(
    scenario: { name: string; seed: number; karpenterVersion?: string },
    window: { fromMs: number; toMs: number; perturbation: Perturbation; seed: number },
  ): { csv: string; whatChanged: string; touchedNodePool: string | null } {
    // The history of the release the database was seeded with: each release decides differently.
    const made = hypotheticalBill(loadScenario(scenario.name, scenario.seed, scenario.karpenterVersion), window);
    return { csv: made.csv, whatChanged: made.whatChanged, touchedNodePool: made.touched?.nodePool ?? null };
  },
};
