import { useQuery } from '@tanstack/react-query';
import { CLUSTER_PARAM, clusterOf } from '../lib/cluster';
import { jsonQuery } from '../lib/json-query';
import { useSearchParams } from '../lib/router';

/** The value of "All clusters" in the select (no ?cluster=). */
const ALL = '';

/**
 * Which cluster the pages show, kept in the URL (`?cluster=`; absent: "All clusters", the default). Shown only when
 * the ledger holds more than one cluster; a stale cluster says so in its option.
 */
export function ClusterPicker() {
  const clusters = useQuery({ ...jsonQuery('/api/clusters'), staleTime: 60_000 }).data?.clusters ?? [];
  const [params, setParams] = useSearchParams();
  const chosen = clusterOf(params.toString()) ?? ALL;
  if (clusters.length < 2) return null;
  return (
    <label className="cluster-picker">
      <span className="cluster-picker-label">Cluster</span>
      <select
        data-testid="cluster-picker"
        value={chosen}
        onChange={(e) => setParams({ [CLUSTER_PARAM]: e.target.value === ALL ? undefined : e.target.value })}
      >
        <option value={ALL}>All clusters</option>
        {clusters.map((c) => (
          <option key={c.name} value={c.name}>
            {c.name}
            {c.stale ? ' (stale)' : ''}
          </option>
        ))}
        {chosen !== ALL && !clusters.some((c) => c.name === chosen) ? <option value={chosen}>{chosen} (not in this ledger)</option> : null}
      </select>
    </label>
  );
}
