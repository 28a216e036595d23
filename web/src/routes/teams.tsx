import { useMemo } from 'react';
import { PageHeader } from '../components/ui/page-header';
import { useNodePoolColors } from '../features/filters/api/use-nodepool-colors';
import { FilterBar } from '../features/filters/components/filter-bar';
import { useUrlFilters } from '../features/filters/hooks/use-url-filters';
import { rangeQuery, resolveRange } from '../features/filters/utils/url-filters';
import { useStatus } from '../features/status/api/use-status';
import { useTeamCost } from '../features/teams/api/use-team-cost';
import { TeamChartPanel } from '../features/teams/components/team-chart-panel';
import { TeamMethodNote } from '../features/teams/components/team-method-note';
import { TeamOptions } from '../features/teams/components/team-options';
import { TeamTablePanel } from '../features/teams/components/team-table-panel';
import { useTeamCur } from '../features/teams/api/use-team-cur';
import { TeamCurPanel } from '../features/teams/components/team-cur-panel';
import { parseCurBasis, teamCurParams } from '../features/teams/utils/team-cur';
import { parseTeams, teamCostParams, teamNames } from '../features/teams/utils/team-series';

/** Teams: cost per team or namespace over time, idle as its own band, and the table behind it. Composes only. */
export default function TeamsPage() {
  const status = useStatus();
  const { filters, params, update } = useUrlFilters();
  const colors = useNodePoolColors();
  const state = useMemo(() => parseTeams(params), [params]);
  const query = rangeQuery(filters, status);
  const resolved = resolveRange(filters.range, status.data?.defaultRange.to);
  const all = useTeamCost(query === undefined ? undefined : teamCostParams(query, state, undefined));
  const teamParams = query === undefined ? undefined : teamCostParams(query, state, filters.team);
  const basis = parseCurBasis(params);
  const curParams = teamCurParams(teamParams, filters.metric, basis);
  // The metric switch applies to AWS's split from the CUR (split cost or net split cost); the same cache entry as the panel.
  const metricInEffect = useTeamCur(curParams).data?.metric;
  return (
    <>
      <PageHeader
        title="Teams"
        question="What does each team (or namespace) cost, NodePool by NodePool, and how much is paid for capacity nobody requested?"
      >
        <FilterBar
          filters={filters}
          resolved={resolved}
          onChange={update}
          teams={teamNames(all.data)}
          teamLabel={state.groupBy === 'team' ? 'Team' : 'Namespace'}
          metric={{ inEffect: metricInEffect }}
        />
      </PageHeader>
      <div className="panels">
        <TeamOptions state={state} onChange={update} />
        <TeamMethodNote params={teamParams} />
        <TeamChartPanel params={teamParams} groupBy={state.groupBy} />
        <TeamTablePanel params={teamParams} state={state} onChange={update} colors={colors} />
        <TeamCurPanel
          params={curParams}
          method={state.method}
          groupBy={state.groupBy}
          basis={basis}
          onBasis={(b) => update({ basis: b === 'billed' ? undefined : b })}
        />
      </div>
    </>
  );
}
