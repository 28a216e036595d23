import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

export interface PageDef {
  path: string;
  label: string;
  /** Each page is its own chunk: the first load fetches only the page it opens (and its first screen's charts). */
  Component: LazyExoticComponent<ComponentType>;
}

/**
 * A page's chunk, asked for when the page is first drawn, and beside it the chunks of the charts its first screen
 * draws (at 1280 × 900). A chart's chunk is otherwise asked for only once the page's module runs (lazyNow, when the
 * module using the chart is evaluated), which waits for every chunk the page imports: Recharts' 390 KB then followed
 * the page's code instead of arriving beside it, and the first screen waited for both in turn. A chart below the fold
 * is not asked for here: drawn when scrolled near (InView), its code would only compete with the page's own.
 */
function page(load: () => Promise<{ default: ComponentType }>, firstScreenCharts: readonly (() => Promise<unknown>)[] = []) {
  return lazy(() => {
    const loading = load();
    // The same module the chart's lazyNow asks for: one download, and a failure is reported where the chart is drawn.
    for (const chart of firstScreenCharts) chart().catch(() => undefined);
    return loading;
  });
}

export const PAGES: readonly PageDef[] = [
  {
    path: '/',
    label: 'Overview',
    Component: page(() => import('../routes/overview'), [() => import('../features/cost/components/cost-chart')]),
  },
  { path: '/nodepools', label: 'NodePools', Component: page(() => import('../routes/nodepools')) },
  {
    path: '/consolidation',
    label: 'Consolidation',
    Component: page(() => import('../routes/consolidation'), [() => import('../features/consolidation/components/timeline-chart')]),
  },
  { path: '/nodes', label: 'Nodes', Component: page(() => import('../routes/nodes')) },
  {
    path: '/teams',
    label: 'Teams',
    Component: page(() => import('../routes/teams'), [() => import('../features/teams/components/team-chart')]),
  },
  { path: '/workloads', label: 'Workloads', Component: page(() => import('../routes/workloads')) },
  {
    path: '/savings',
    label: 'Savings',
    Component: page(() => import('../routes/savings'), [() => import('../features/savings/components/waterfall-chart')]),
  },
  { path: '/budgets', label: 'Budgets', Component: page(() => import('../routes/budgets')) },
  { path: '/bill', label: 'Explain this bill', Component: page(() => import('../routes/bill')) },
  { path: '/alerts', label: 'Alerts', Component: page(() => import('../routes/alerts')) },
  { path: '/org', label: 'Organisation', Component: page(() => import('../features/org/org-page')) },
];

/** The page for a path ("/nodes/" and "/nodes" alike); undefined for an unknown path. */
export function pageFor(pathname: string): PageDef | undefined {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  return PAGES.find((p) => p.path === path);
}
