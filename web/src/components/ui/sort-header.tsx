import type { ReactNode } from 'react';

interface SortHeaderProps<K extends string> {
  column: K;
  sort: K;
  order: 'asc' | 'desc';
  onSort: (column: K) => void;
  children: ReactNode;
  className?: string;
}

/** A column header that sorts on click or Enter; aria-sort tells screen readers the current order. */
export function SortHeader<K extends string>({ column, sort, order, onSort, children, className }: SortHeaderProps<K>) {
  const active = column === sort;
  return (
    <th scope="col" className={className} aria-sort={active ? (order === 'asc' ? 'ascending' : 'descending') : 'none'}>
      <button type="button" className="sort-button" onClick={() => onSort(column)}>
        {children}
        <span className="sort-arrow" aria-hidden="true">
          {active ? (order === 'asc' ? '▲' : '▼') : '↕'}
        </span>
      </button>
    </th>
  );
}
