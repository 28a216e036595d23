import { useMemo } from 'react';
import { Panel } from '../../../components/ui/panel';
import { SortHeader } from '../../../components/ui/sort-header';
import { EmptyState, ErrorState, LoadingState } from '../../../components/ui/state-message';
import { apiUrl } from '../../../lib/api-client';
import { colorOf, type NodePoolColors } from '../../../lib/colors';
import { currencyCode, formatFraction, formatUsd, nodePoolLabel } from '../../../lib/format';
import type { ParamUpdates } from '../../../lib/url-params';
import { useTeamCost, type TeamCostParams } from '../api/use-team-cost';
import { idleRowLabel, sortTeamRows, teamSortUpdates, type TeamSort, type TeamsState } from '../utils/team-series';

interface TeamTablePanelProps {
  params: TeamCostParams | undefined;
  state: TeamsState;
  onChange: (updates: ParamUpdates) => void;
  colors: NodePoolColors;
}

/** Cost per team (or namespace) and NodePool over the range, with idle rows, sortable, downloadable as CSV. */
export function TeamTablePanel({ params, state, onChange, colors }: TeamTablePanelProps) {
  const cost = useTeamCost(params);
  const rows = useMemo(() => sortTeamRows(cost.data?.rows ?? [], state.sort, state.order), [cost.data, state.sort, state.order]);
  const who = state.groupBy === 'team' ? 'Team' : 'Namespace';
  const body = (() => {
    if (params === undefined || cost.isPending) return <LoadingState label="Loading the cost per team…" />;
    if (cost.isError)
      return <ErrorState title="Could not load the cost per team." error={cost.error} onRetry={() => void cost.refetch()} />;
    const { totals, notes } = cost.data;
    // Every cluster of several (no cluster picked): each row is one cluster's, and says which.
    const byCluster = rows.some((r) => r.cluster !== undefined);
    if (rows.length === 0)
      return <EmptyState title="No cost in this range.">Pick a range inside the data, or clear the team filter.</EmptyState>;
    const header = (column: TeamSort, label: string, className?: string) => (
      <SortHeader
        column={column}
        sort={state.sort}
        order={state.order}
        onSort={(c) => onChange(teamSortUpdates(state, c))}
        className={className}
      >
        {label}
      </SortHeader>
    );
    return (
      <>
        <dl className="summary">
          <div>
            <dt>Node cost</dt>
            <dd>{formatUsd(totals.nodeCostUsd)}</dd>
          </div>
          <div>
            <dt>Charged to {state.groupBy === 'team' ? 'teams' : 'namespaces'}</dt>
            <dd>{formatUsd(totals.teamsUsd)}</dd>
          </div>
          <div>
            <dt>Idle</dt>
            <dd>
              {formatUsd(totals.idleUsd)}
              {totals.nodeCostUsd > 0 ? <span className="sub-inline"> ({formatFraction(totals.idleUsd / totals.nodeCostUsd)})</span> : null}
            </dd>
          </div>
        </dl>
        <div className="table-scroll">
          <table className="data-table" data-testid="team-table">
            <caption className="visually-hidden">Cost per {state.groupBy} and NodePool; idle rows per NodePool</caption>
            <thead>
              <tr>
                {byCluster ? <th scope="col">Cluster</th> : null}
                {header('team', who)}
                {header('nodePool', 'NodePool')}
                {header('costUsd', 'Cost', 'num')}
                {header('share', 'Share of node cost', 'num')}
                <th scope="col" className="num">
                  Idle spread in
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr
                  key={`${r.cluster ?? ''}|${r.kind}|${r.team ?? ''}|${r.nodePool}`}
                  className={r.kind === 'idle' ? 'is-idle' : undefined}
                  data-cluster={r.cluster}
                >
                  {byCluster ? <td data-testid="team-row-cluster">{r.cluster}</td> : null}
                  <th scope="row">
                    {r.kind === 'idle'
                      ? idleRowLabel(cost.data.method)
                      : (r.team ?? `(no ${state.groupBy === 'team' ? 'team label' : 'namespace'})`)}
                  </th>
                  <td>
                    <span className="swatch" style={{ background: colorOf(r.nodePool, colors) }} />
                    {nodePoolLabel(r.nodePool, 'nodes')}
                  </td>
                  <td className="num">{formatUsd(r.costUsd)}</td>
                  <td className="num">{r.share === null ? '—' : formatFraction(r.share)}</td>
                  <td className="num">{r.idleSpreadUsd === 0 ? '—' : formatUsd(r.idleSpreadUsd)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {notes.length === 0 ? null : (
          <ul className="notes">
            {notes.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
        )}
      </>
    );
  })();
  return (
    <Panel
      title={`Cost per ${state.groupBy} and NodePool`}
      subtitle={`${currencyCode()} over the range; rows add up to the node cost to the cent.`}
      actions={
        params === undefined ? undefined : (
          <a className="button" href={apiUrl('/api/teams/cost', { ...params, format: 'csv' })} download>
            Download CSV
          </a>
        )
      }
    >
      <div className={cost.isFetching && !cost.isPending ? 'panel-body is-refreshing' : 'panel-body'}>{body}</div>
    </Panel>
  );
}
