import { useCallback, useMemo, useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent, type ReactNode } from 'react';
import { clusterOf, keepCluster } from './cluster';
import { withParams, type ParamUpdates } from './url-params';

/**
 * A small client-side router over the History API: the location is external state read with
 * useSyncExternalStore, so back/forward and our own navigations re-render the same way.
 */

const NAVIGATE_EVENT = 'ledger:navigate';

function subscribe(onChange: () => void): () => void {
  window.addEventListener('popstate', onChange);
  window.addEventListener(NAVIGATE_EVENT, onChange);
  return () => {
    window.removeEventListener('popstate', onChange);
    window.removeEventListener(NAVIGATE_EVENT, onChange);
  };
}

const currentPath = (): string => window.location.pathname;
const currentSearch = (): string => window.location.search;

/** Goes to `to` (a path with an optional ?query). `replace` rewrites the current history entry instead of adding one. */
export function navigate(to: string, { replace = false }: { replace?: boolean } = {}): void {
  if (to === window.location.pathname + window.location.search) return;
  if (replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  window.dispatchEvent(new Event(NAVIGATE_EVENT));
}

export function usePathname(): string {
  return useSyncExternalStore(subscribe, currentPath);
}

/**
 * The query string as URLSearchParams, and a setter that merges updates into it (undefined removes a key).
 * Filters push a history entry so back undoes them; `replace` is for changes not worth a step back.
 */
export function useSearchParams(): [URLSearchParams, (updates: ParamUpdates, options?: { replace?: boolean }) => void] {
  const search = useSyncExternalStore(subscribe, currentSearch);
  const params = useMemo(() => new URLSearchParams(search), [search]);
  const set = useCallback((updates: ParamUpdates, options?: { replace?: boolean }) => {
    navigate(window.location.pathname + withParams(window.location.search, updates), options);
  }, []);
  return [params, set];
}

interface LinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> {
  to: string;
  children: ReactNode;
}

const isPlainLeftClick = (e: MouseEvent): boolean => e.button === 0 && !e.metaKey && !e.ctrlKey && !e.shiftKey && !e.altKey;

/** An ordinary link (open in a new tab works) that navigates in place on a plain click; it keeps the page's cluster. */
export function Link({ to: asked, children, onClick, ...rest }: LinkProps) {
  const to = keepCluster(asked, clusterOf(useSyncExternalStore(subscribe, currentSearch)));
  return (
    <a
      {...rest}
      href={to}
      onClick={(e) => {
        onClick?.(e);
        if (e.defaultPrevented || !isPlainLeftClick(e) || rest.target === '_blank') return;
        e.preventDefault();
        navigate(to);
        window.scrollTo(0, 0);
      }}
    >
      {children}
    </a>
  );
}
