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
        />
      </PageHeader>
      <div className="panels">
        <TeamOptions state={state} onChange={update} />
        <TeamMethodNote params={teamParams} />
        <TeamChartPanel params={teamParams} groupBy={state.groupBy} />
        <TeamTablePanel params={teamParams} state={state} onChange={update} colors={colors} />
      </div>
    </>
  );
}
