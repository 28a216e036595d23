import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { clusterOf } from '../../lib/cluster';
import { jsonQuery } from '../../lib/json-query';
import { useSearchParams } from '../../lib/router';

/**
 * The cluster an interactive what-if acts on (a NodePool edit, a placement, a Balanced or NodeOverlay try, a Karpenter
 * setup): one cluster's NodePools on its own snapshot, so under "All clusters" of a ledger holding several the tool
 * asks which one (none chosen at first: the tool stays disabled), and its request names it (`cluster=`; the server
 * refuses such a request without one). With a cluster picked for the page, or a one-cluster ledger, nothing to ask.
 */
export interface ToolCluster {
  /** The cluster the request names: the page's, the tool's own choice, or undefined (one cluster, or not chosen yet). */
  cluster: string | undefined;
  /** The ledger's clusters when the tool asks for one (several, none picked for the page); else empty. */
  choices: readonly string[];
  /** The tool can run: a cluster chosen, or none to choose. */
  ready: boolean;
  choose: (name: string | undefined) => void;
}

/** The line a tool shows until a cluster is chosen. */
export const PICK_A_CLUSTER = 'Pick a cluster: a what-if runs on one cluster’s NodePools.';

export function useToolCluster(): ToolCluster {
  const [params] = useSearchParams();
  const page = clusterOf(params.toString());
  // The picker's own request: one cache entry for both.
  const clusters = useQuery({ ...jsonQuery('/api/clusters'), staleTime: 60_000 });
  const [chosen, setChosen] = useState<string | undefined>(undefined);
  if (page !== undefined) return { cluster: page, choices: [], ready: true, choose: setChosen };
  const names = (clusters.data?.clusters ?? []).map((c) => c.name);
  if (clusters.data !== undefined && names.length < 2) return { cluster: undefined, choices: [], ready: true, choose: setChosen };
  const cluster = chosen !== undefined && names.includes(chosen) ? chosen : undefined;
  return { cluster, choices: names, ready: cluster !== undefined, choose: setChosen };
}

/** The tool's own cluster select under "All clusters" (nothing otherwise), and the line saying why until one is chosen. */
export function ToolClusterChoice({ tool, testId, why = PICK_A_CLUSTER }: { tool: ToolCluster; testId: string; why?: string }) {
  const id = useId();
  if (tool.choices.length === 0) return null;
  return (
    <div className="tool-cluster" data-testid={testId}>
      <label htmlFor={id}>Cluster</label>
      <select id={id} value={tool.cluster ?? ''} onChange={(e) => tool.choose(e.target.value === '' ? undefined : e.target.value)}>
        <option value="">(pick a cluster)</option>
        {tool.choices.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </select>
      {tool.ready ? null : (
        <span className="muted" role="note">
          {why}
        </span>
      )}
    </div>
  );
}

/** " on staging" when the tool named a cluster (its answer says which cluster it was computed on), else "". */
export const onCluster = (cluster: string | undefined): string => (cluster === undefined ? '' : ` on ${cluster}`);
