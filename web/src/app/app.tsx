import { Suspense, useEffect, useRef } from 'react';
import { ErrorBoundary } from '../components/ui/error-boundary';
import { LoadingState } from '../components/ui/state-message';
import { useStatus } from '../features/status/api/use-status';
import { DataSourceBanner } from '../features/status/components/data-source-banner';
import { setDisplayCurrency } from '../lib/format';
import { clusterOf } from '../lib/cluster';
import { Link, usePathname, useSearchParams } from '../lib/router';
import { useTheme } from '../lib/theme';
import { Nav } from './nav';
import { pageFor, PAGES } from './pages';

/** The shell: nav, data-source banner, and the page for the URL (loaded on demand). */
export function App() {
  const pathname = usePathname();
  const page = pageFor(pathname);
  // Another cluster is another page: its state (selections, paging) starts afresh, its queries ask for that cluster.
  const cluster = clusterOf(useSearchParams()[0].toString()) ?? '';
  const [theme, setTheme] = useTheme();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  // Every amount is in the data's one currency (CNY for a China cluster): the formatters print it, set before the
  // page renders; the page is keyed by it so a database in another currency redraws every figure.
  const currency = useStatus().data?.pricing.currency ?? 'USD';
  setDisplayCurrency(currency);

  useEffect(() => {
    document.title = page === undefined ? 'Not found · NodePool Ledger' : `${page.label} · NodePool Ledger`;
    // After a navigation, put keyboard and screen-reader focus on the new page, as a full load would.
    if (first.current) first.current = false;
    else main.current?.focus({ preventScroll: true });
  }, [page]);

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-header">
        <Nav pages={PAGES} current={page} theme={theme} onTheme={setTheme} />
        <DataSourceBanner />
      </header>
      <main id="main" ref={main} tabIndex={-1} className="page">
        <ErrorBoundary resetKey={pathname}>
          <Suspense fallback={<LoadingState label="Loading page…" />}>
            {page === undefined ? <NotFound pathname={pathname} /> : <page.Component key={`${currency}|${cluster}`} />}
          </Suspense>
        </ErrorBoundary>
      </main>
    </>
  );
}

function NotFound({ pathname }: { pathname: string }) {
  return (
    <div className="state state-empty" role="status">
      <h1>No page at {pathname}</h1>
      <p>
        The link may be from a newer or older version. <Link to="/">Go to the overview</Link>.
      </p>
    </div>
  );
}
