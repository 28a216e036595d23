import { Segmented } from '../components/ui/segmented';
import { FILTER_KEYS } from '../features/filters/utils/url-filters';
import { Link, useSearchParams } from '../lib/router';
import type { ThemeChoice } from '../lib/theme';
import { pickParams } from '../lib/url-params';
import { ClusterPicker } from './cluster-picker';
import type { PageDef } from './pages';

const THEMES: readonly { value: ThemeChoice; label: string }[] = [
  { value: 'auto', label: 'Auto' },
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
];

interface NavProps {
  pages: readonly PageDef[];
  current: PageDef | undefined;
  theme: ThemeChoice;
  onTheme: (t: ThemeChoice) => void;
}

/** The page links carry the shared filters (range, NodePool, team, cluster) from page to page. */
export function Nav({ pages, current, theme, onTheme }: NavProps) {
  const [params] = useSearchParams();
  const carried = pickParams(params.toString(), FILTER_KEYS);
  return (
    <div className="topbar">
      <Link to={`/${carried}`} className="brand">
        NodePool Ledger
      </Link>
      <nav aria-label="Pages">
        <ul className="nav-list">
          {pages.map((p) => (
            <li key={p.path}>
              <Link to={`${p.path}${carried}`} className="nav-link" aria-current={p === current ? 'page' : undefined}>
                {p.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <ClusterPicker />
      <Segmented label="Colour theme" value={theme} options={THEMES} onChange={onTheme} />
    </div>
  );
}
