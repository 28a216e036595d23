import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

export interface PageDef {
  path: string;
  label: string;
  /** Each page is its own chunk: the first load fetches only the page it opens. */
  Component: LazyExoticComponent<ComponentType>;
}

export const PAGES: readonly PageDef[] = [
  { path: '/', label: 'Overview', Component: lazy(() => import('../routes/overview')) },
  { path: '/nodepools', label: 'NodePools', Component: lazy(() => import('../routes/nodepools')) },
  { path: '/consolidation', label: 'Consolidation', Component: lazy(() => import('../routes/consolidation')) },
  { path: '/nodes', label: 'Nodes', Component: lazy(() => import('../routes/nodes')) },
  { path: '/teams', label: 'Teams', Component: lazy(() => import('../routes/teams')) },
  { path: '/workloads', label: 'Workloads', Component: lazy(() => import('../routes/workloads')) },
  { path: '/savings', label: 'Savings', Component: lazy(() => import('../routes/savings')) },
  { path: '/budgets', label: 'Budgets', Component: lazy(() => import('../routes/budgets')) },
  { path: '/bill', label: 'Explain this bill', Component: lazy(() => import('../routes/bill')) },
  { path: '/alerts', label: 'Alerts', Component: lazy(() => import('../routes/alerts')) },
  { path: '/org', label: 'Organisation', Component: lazy(() => import('../features/org/org-page')) },
];

/** The page for a path ("/nodes/" and "/nodes" alike); undefined for an unknown path. */
export function pageFor(pathname: string): PageDef | undefined {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  return PAGES.find((p) => p.path === path);
}
