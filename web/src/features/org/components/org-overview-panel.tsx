import { Panel } from '../../../components/ui/panel';
import { EmptyState, ErrorState, LoadingState } from '../../../components/ui/state-message';
import { formatCount, formatFraction, formatUsd } from '../../../lib/format';
import { Link } from '../../../lib/router';
import { useOrgOverview, type OrgRangeParams } from '../api/org-api';
import { drillDownHref } from '../utils/org-view';
import { QueryCost } from './query-cost';

/** Every cluster's estimated node cost and packing over the range, from Athena; each cluster links to its own ledger. */
export function OrgOverviewPanel({ range }: { range: OrgRangeParams }) {
  const overview = useOrgOverview(range);
  const body = (() => {
    if (overview.isPending) return <LoadingState label="Asking Athena for every cluster's cost…" />;
    if (overview.isError)
      return <ErrorState title="Athena did not answer the Overview." error={overview.error} onRetry={() => void overview.refetch()} />;
    const o = overview.data;
    if (o.clusters.length === 0)
      return <EmptyState title="No cluster exported these days.">Pick days the clusters' exports cover.</EmptyState>;
    return (
      <>
        <QueryCost query={o.query} testId="org-overview-query" />
        <div className="table-scroll">
          <table className="data-table" data-testid="org-overview-table">
            <thead>
              <tr>
                <th scope="col">Cluster</th>
                <th scope="col" className="num">
                  Estimated node cost
                </th>
                <th scope="col" className="num">
                  Node-hours
                </th>
                <th scope="col" className="num">
                  CPU requested
                </th>
                <th scope="col" className="num">
                  Memory requested
                </th>
              </tr>
            </thead>
            <tbody>
              {o.clusters.map((c) => (
                <tr key={c.cluster} data-cluster={c.cluster}>
                  <th scope="row">
                    <Link to={drillDownHref(c.cluster, o.from, o.to)} title={`Open ${c.cluster} in its ledger`}>
                      {c.cluster}
                    </Link>
                  </th>
                  <td className="num" data-testid="org-cluster-cost">
                    {formatUsd(c.estimateUsd)}
                  </td>
                  <td className="num">{formatCount(Math.round(c.nodeHours))}</td>
                  <td className="num">{c.cpu === null ? '–' : formatFraction(c.cpu)}</td>
                  <td className="num">{c.memory === null ? '–' : formatFraction(c.memory)}</td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row">All clusters</th>
                <td className="num" data-testid="org-total-cost">
                  {formatUsd(o.totals.estimateUsd)}
                </td>
                <td colSpan={3} />
              </tr>
            </tfoot>
          </table>
        </div>
      </>
    );
  })();
  return (
    <Panel
      title="Overview, all clusters"
      subtitle={
        overview.data === undefined
          ? 'Estimated node cost (price × hours) per cluster'
          : `Estimated node cost per cluster, ${overview.data.from} to ${overview.data.to} (exclusive), UTC`
      }
    >
      {body}
    </Panel>
  );
}
