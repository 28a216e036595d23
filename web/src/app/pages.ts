import type { QueryClient } from '@tanstack/react-query';
import type { StatusResponse } from '@schemas/status';
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import { prefetchOverview } from '../routes/overview-queries';

export interface PageDef {
  path: string;
  label: string;
  /** Each page is its own chunk: the first load fetches only the page it opens (and its first screen's charts). */
  Component: LazyExoticComponent<ComponentType>;
  /** Asks for the page's chunk (and its first screen's charts) now: the same download Component waits for. */
  load: () => void;
  /**
   * Asks for the page's first data, each request as the page asks it (the same cache entry), from its URL's query and
   * the status: web/src/main.tsx calls it once /api/status has answered, so the data arrives while the page's code is
   * still on its way instead of being asked only once that code has run.
   */
  prefetch?: (client: QueryClient, search: URLSearchParams, status: StatusResponse) => void;
}

/**
 * A page's chunk, asked for when the page is first drawn (or earlier, by `load`), and beside it the chunks of the
 * charts its first screen draws (at 1280 × 900). A chart's chunk is otherwise asked for only once the page's module
 * runs (lazyNow, when the module using the chart is evaluated), which waits for every chunk the page imports: Recharts'
 * 390 KB then followed the page's code instead of arriving beside it, and the first screen waited for both in turn. A
 * chart below the fold is not asked for here: drawn when scrolled near (InView), its code would only compete with the
 * page's own.
 */
function page(
  load: () => Promise<{ default: ComponentType }>,
  firstScreenCharts: readonly (() => Promise<unknown>)[] = [],
): Pick<PageDef, 'Component' | 'load'> {
  let loading: Promise<{ default: ComponentType }> | null = null;
  const start = () => {
    if (loading === null) {
      loading = load();
      // The same module the chart's lazyNow asks for: one download, and a failure is reported where the chart is drawn.
      for (const chart of firstScreenCharts) chart().catch(() => undefined);
    }
    return loading;
  };
  return { Component: lazy(start), load: () => void start().catch(() => undefined) };
}

export const PAGES: readonly PageDef[] = [
  {
    path: '/',
    label: 'Overview',
    ...page(() => import('../routes/overview'), [() => import('../features/cost/components/cost-chart')]),
    prefetch: prefetchOverview,
  },
  { path: '/nodepools', label: 'NodePools', ...page(() => import('../routes/nodepools')) },
  {
    path: '/consolidation',
    label: 'Consolidation',
    ...page(() => import('../routes/consolidation'), [() => import('../features/consolidation/components/timeline-chart')]),
  },
  { path: '/nodes', label: 'Nodes', ...page(() => import('../routes/nodes')) },
  {
    path: '/teams',
    label: 'Teams',
    ...page(() => import('../routes/teams'), [() => import('../features/teams/components/team-chart')]),
  },
  { path: '/workloads', label: 'Workloads', ...page(() => import('../routes/workloads')) },
  {
    path: '/savings',
    label: 'Savings',
    ...page(() => import('../routes/savings'), [() => import('../features/savings/components/waterfall-chart')]),
  },
  { path: '/budgets', label: 'Budgets', ...page(() => import('../routes/budgets')) },
  { path: '/bill', label: 'Explain this bill', ...page(() => import('../routes/bill')) },
  { path: '/alerts', label: 'Alerts', ...page(() => import('../routes/alerts')) },
  { path: '/org', label: 'Organisation', ...page(() => import('../features/org/org-page')) },
];

/** The page for a path ("/nodes/" and "/nodes" alike); undefined for an unknown path. */
export function pageFor(pathname: string): PageDef | undefined {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  return PAGES.find((p) => p.path === path);
}
