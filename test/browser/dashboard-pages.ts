/** The dashboard's pages as the browser tests see them: where each lives and what on it proves its data arrived. */

export const COST_BARS = '[data-testid="cost-chart"] .recharts-bar-rectangle path';
export const TIMELINE_LINES = '[data-testid="timeline-chart"] .recharts-line-curve';

/**
 * Per page: its path, and what on it proves the data arrived; below the fold, what is drawn once `scrollTo` is scrolled
 * into view.
 */
export const PAGES = [
  {
    name: 'overview',
    path: '/',
    ready: [COST_BARS, '[data-testid="figure-billUsd"]'],
    // The packing timeline, the fifth panel, is below the fold at 1280 × 900: drawn once scrolled near.
    belowTheFold: { scrollTo: '[aria-label="Cluster packing over time"] [data-in-view]', ready: [TIMELINE_LINES] },
  },
  {
    name: 'nodepools',
    path: '/nodepools',
    ready: ['[data-testid="nodepool-card"]', '[data-testid="compare-table"] tbody tr'],
    // Below the fold at 1280 × 900: drawn once scrolled near (web/src/components/ui/in-view.tsx).
    belowTheFold: { scrollTo: '[data-testid="compare-table"]', ready: ['[data-testid="compare-chart"] .recharts-bar-rectangle path'] },
  },
  { name: 'consolidation', path: '/consolidation', ready: [TIMELINE_LINES, '[data-testid="events-table"] tbody tr'] },
  { name: 'nodes', path: '/nodes', ready: ['[data-testid="nodes-table"] tbody tr [role="meter"]'] },
  {
    name: 'teams',
    path: '/teams',
    ready: ['[data-testid="team-chart"] .recharts-bar-rectangle path', '[data-testid="team-table"] tbody tr'],
  },
  {
    name: 'savings',
    path: '/savings',
    ready: ['[data-testid="savings-waterfall"] .recharts-bar-rectangle path', '[data-testid="why-not-table"] tbody tr'],
  },
  { name: 'bill', path: '/bill', ready: ['[data-testid="bill-lines"] tbody tr'] },
  // Rows only where usage was collected (pages.test.ts seeds with metrics-server).
  { name: 'workloads', path: '/workloads', ready: ['[data-testid="workloads-table"] tbody tr'] },
] as const;
