import { Fragment, type ReactNode } from 'react';
import type { BillLine } from '@schemas/bill';
import { currentCluster } from '../../../lib/cluster';
import { colorOf, type NodePoolColors } from '../../../lib/colors';
import { formatUsd, nodePoolLabel } from '../../../lib/format';

interface BillLinesTableProps {
  lines: readonly BillLine[];
  /** A stable key per line (its id, or its index for practice bills). */
  keyOf: (line: BillLine, index: number) => string;
  expanded: ReadonlySet<string>;
  onToggle: (line: BillLine, index: number) => void;
  /** What an expanded line shows. */
  detail: (line: BillLine, index: number) => ReactNode;
  colors: NodePoolColors;
  /** Lines to highlight (the practice question's line). */
  focus?: number;
  caption: string;
}

/** Bill lines, each expanding in place into its explanation (a disclosure button per line, keyboard reachable). */
export function BillLinesTable({ lines, keyOf, expanded, onToggle, detail, colors, focus, caption }: BillLinesTableProps) {
  // All clusters of a ledger holding several: each line's cluster (two clusters may both bill a NodePool default).
  const showCluster = currentCluster() === undefined && lines.some((l) => l.cluster !== undefined);
  return (
    <div className="table-scroll">
      <table className="data-table bill-lines" data-testid="bill-lines">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">
              <span className="visually-hidden">Expand</span>
            </th>
            {showCluster ? <th scope="col">Cluster</th> : null}
            <th scope="col">NodePool tag</th>
            <th scope="col">Line</th>
            <th scope="col" className="num">
              UnblendedCost
            </th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {lines.map((l, i) => {
            const key = keyOf(l, i);
            const open = expanded.has(key);
            const detailId = `bill-line-${key}`;
            return (
              <Fragment key={key}>
                <tr className={i === focus ? 'is-focus' : undefined}>
                  <td className="expand-cell">
                    <button
                      type="button"
                      className="expand-button"
                      aria-expanded={open}
                      aria-controls={open ? detailId : undefined}
                      aria-label={`${open ? 'Hide' : 'Explain'} ${nodePoolLabel(l.nodePool)} ${l.dimensionValue || 'line'}`}
                      onClick={() => onToggle(l, i)}
                    >
                      {open ? '▾' : '▸'}
                    </button>
                  </td>
                  {showCluster ? <td data-testid="bill-line-cluster">{l.cluster ?? ''}</td> : null}
                  <th scope="row">
                    <span className="swatch" style={{ background: colorOf(l.nodePool, colors) }} />
                    {nodePoolLabel(l.nodePool)}
                  </th>
                  <td>
                    {l.dimensionValue || 'all usage with this tag'}
                    {i === focus ? <span className="focus-tag">the question</span> : null}
                  </td>
                  <td className="num">{formatUsd(l.unblendedUsd)}</td>
                  <td>{l.estimated ? 'estimated (not final)' : 'final'}</td>
                </tr>
                {open ? (
                  <tr className="detail-row">
                    <td />
                    <td colSpan={showCluster ? 5 : 4} id={detailId}>
                      {detail(l, i)}
                    </td>
                  </tr>
                ) : null}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
