import { formatCount } from '../../lib/format';

interface PagerProps {
  /** 1-based. */
  page: number;
  pageCount: number;
  total: number;
  pageSize: number;
  pageSizes: readonly number[];
  onPage: (page: number) => void;
  onPageSize: (size: number) => void;
  /** What the rows are ("nodes"). */
  noun: string;
}

/** "Rows 101–200 of 5,894", previous / next, and rows per page. */
export function Pager({ page, pageCount, total, pageSize, pageSizes, onPage, onPageSize, noun }: PagerProps) {
  const first = total === 0 ? 0 : (page - 1) * pageSize + 1;
  const last = Math.min(total, page * pageSize);
  return (
    <nav className="pager" aria-label={`Pages of ${noun}`}>
      <span className="pager-range" aria-live="polite">
        {noun[0]?.toUpperCase()}
        {noun.slice(1)} {formatCount(first)}–{formatCount(last)} of {formatCount(total)}
      </span>
      <button type="button" className="button" onClick={() => onPage(page - 1)} disabled={page <= 1}>
        ← Previous
      </button>
      <span className="pager-page">
        Page {page} of {pageCount}
      </span>
      <button type="button" className="button" onClick={() => onPage(page + 1)} disabled={page >= pageCount}>
        Next →
      </button>
      <label className="pager-size">
        Rows per page{' '}
        <select value={pageSize} onChange={(e) => onPageSize(Number(e.target.value))}>
          {pageSizes.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
    </nav>
  );
}
