import { Panel } from '../../../components/ui/panel';
import { Segmented } from '../../../components/ui/segmented';
import { EmptyState, ErrorState, LoadingState } from '../../../components/ui/state-message';
import { formatUsd } from '../../../lib/format';
import { useOrgTeams, type OrgRangeParams, type OrgTeamMethod } from '../api/org-api';
import { ORG_TEAM_METHODS, orgTeamRows } from '../utils/org-view';
import { QueryCost } from './query-cost';

interface OrgTeamsPanelProps {
  range: OrgRangeParams;
  method: OrgTeamMethod;
  onMethod: (m: OrgTeamMethod) => void;
}

/** Each team's cost over every cluster, from Athena: split in each cluster as its ledger splits it, then added. */
export function OrgTeamsPanel({ range, method, onMethod }: OrgTeamsPanelProps) {
  const teams = useOrgTeams(range, method);
  const body = (() => {
    if (teams.isPending) return <LoadingState label="Asking Athena for every cluster's teams…" />;
    if (teams.isError) return <ErrorState title="Athena did not answer Teams." error={teams.error} onRetry={() => void teams.refetch()} />;
    const t = teams.data;
    const rows = orgTeamRows(t);
    if (rows.length === 0) return <EmptyState title="No team cost these days.">Pick days the clusters' exports cover.</EmptyState>;
    const clusters = t.clusters.map((c) => c.cluster);
    return (
      <>
        <QueryCost query={t.query} testId="org-teams-query" />
        <dl className="summary">
          <div>
            <dt>Node cost</dt>
            <dd>{formatUsd(t.totals.nodeCostUsd)}</dd>
          </div>
          <div>
            <dt>Charged to teams</dt>
            <dd data-testid="org-teams-charged">{formatUsd(t.totals.teamsUsd)}</dd>
          </div>
          <div>
            <dt>Idle</dt>
            <dd>{formatUsd(t.totals.idleUsd)}</dd>
          </div>
        </dl>
        <div className="table-scroll">
          <table className="data-table" data-testid="org-teams-table">
            <thead>
              <tr>
                <th scope="col">Team</th>
                <th scope="col" className="num">
                  All clusters
                </th>
                {clusters.map((c) => (
                  <th key={c} scope="col" className="num">
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.key} data-team={r.team ?? ''} data-kind={r.kind}>
                  <th scope="row">{r.kind === 'idle' ? 'Idle (requested by nobody)' : (r.team ?? '(no team label)')}</th>
                  <td className="num">{formatUsd(r.totalUsd)}</td>
                  {clusters.map((c) => (
                    <td key={c} className="num">
                      {r.byCluster[c] === undefined ? '–' : formatUsd(r.byCluster[c])}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </>
    );
  })();
  return (
    <Panel
      title="Teams, all clusters"
      subtitle={teams.data === undefined ? 'Cost per team' : `Cost per team by ${teams.data.methodName}, split in each cluster, then added`}
      actions={<Segmented label="Attribution method" value={method} options={ORG_TEAM_METHODS} onChange={onMethod} />}
    >
      {body}
    </Panel>
  );
}
