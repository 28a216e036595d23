/**
 * The three team attribution methods as the API and the dashboard name them: what each is, where its definition
 * comes from, and what fed it over a range (pure, no I/O). The arithmetic is in core/attribution/.
 */

import type { TeamMethod } from './team-cost.js';

export interface TeamMethodInfo {
  /** The `method=` value. */
  id: TeamMethod;
  name: string;
  /** Whose definition it follows, by name. */
  source: string;
  /** Where that definition is published (null: this project's README). */
  url: string | null;
  /** The method in a sentence or two, as implemented. */
  definition: string;
}

export const TEAM_METHODS: Readonly<Record<TeamMethod, TeamMethodInfo>> = {
  'request-share': {
    id: 'request-share',
    name: 'Request share',
    source: 'NodePool Ledger (README, "How the numbers are made")',
    url: null,
    definition:
      "Each node's price split over its pods by w_cpu × cpu request ÷ allocatable cpu + w_memory × memory request ÷ allocatable memory (0.5/0.5 unless weights are given); what no pod requested is idle.",
  },
  'aws-split': {
    id: 'aws-split',
    name: 'AWS split cost allocation',
    source: 'AWS Data Exports User Guide: Understanding split cost allocation data (Amazon EKS)',
    url: 'https://docs.aws.amazon.com/cur/latest/userguide/example-split-cost-allocation-data.html',
    definition:
      "The instance's cost divided over its instance type's vCPU and GB weighted 9:1 (GPU:rest 9:1 on GPU instances); each pod pays its split usage ratio of max(used, reserved), and the instance's unused capacity is handed to the pods by the same ratio (idle when spread, its own band otherwise).",
  },
  opencost: {
    id: 'opencost',
    name: 'OpenCost',
    source: 'OpenCost Specification (Workload Costs; Appendix A)',
    url: 'https://github.com/opencost/opencost/blob/develop/spec/opencost-specv01.md',
    definition:
      "The node's price split into CPU and RAM prices by OpenCost's base prices (a core 7.46 times a GiB, over the node's capacity, scaled to its price); each pod pays max(request, usage) × those prices; the rest is idle.",
  },
};

/** What fed a method over a range: requests alone, or max(request, usage) where usage was collected. */
export interface TeamMethodFeed {
  /** not-applicable: the method takes requests by definition (request share). */
  usage: 'not-applicable' | 'none' | 'partial' | 'all';
  /** Pod-hours with usage ÷ pod-hours, over the snapshots that recorded it; null when none did. */
  usagePodHoursShare: number | null;
  note: string;
}

export const FED_BY_REQUESTS_ONLY = 'fed by requests only (no usage collected)';

/** The feed of a method over a range, from Σ pod-hours and Σ pod-hours with usage. */
export function methodFeed(method: TeamMethod, sums: readonly { podHours: number; usagePodHours: number }[]): TeamMethodFeed {
  if (method === 'request-share') {
    return { usage: 'not-applicable', usagePodHoursShare: null, note: 'Requests only, by definition.' };
  }
  const podHours = sums.reduce((t, r) => t + r.podHours, 0);
  const usagePodHours = sums.reduce((t, r) => t + r.usagePodHours, 0);
  const share = podHours > 0 ? Math.min(1, usagePodHours / podHours) : null;
  if (share === null || usagePodHours <= 0) {
    return {
      usage: 'none',
      usagePodHoursShare: share,
      note: `${TEAM_METHODS[method].name} ${FED_BY_REQUESTS_ONLY}: each pod is charged its requests where the method takes max(request, usage).`,
    };
  }
  if (share >= 1 - 1e-9) return { usage: 'all', usagePodHoursShare: 1, note: 'Fed by max(request, usage) for every pod.' };
  return {
    usage: 'partial',
    usagePodHoursShare: share,
    note: `Fed by max(request, usage) for ${(share * 100).toFixed(0)} % of pod-hours; by requests alone for the rest (no usage collected for them).`,
  };
}
