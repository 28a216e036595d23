import { useMemo } from 'react';
import type { RangeQuery } from '@schemas/common';
import type { CostMetric } from '@schemas/cost';
import { Panel } from '../../../components/ui/panel';
import { EmptyState, ErrorState, LoadingState } from '../../../components/ui/state-message';
import type { NodePoolColors } from '../../../lib/colors';
import { formatIsoUtc } from '../../../lib/format';
import { idleWeightingSentence } from '../../../lib/idle-weighting';
import { useCurDaily } from '../../cost/api/use-cur-daily';
import { useEfficiencySummary, useNodePoolBill, useNodePoolCompare, useNodePoolSpecs, useNodeMix } from '../api/use-nodepool-data';
import { buildCards } from '../utils/nodepool-cards';
import { NodePoolCards } from './nodepool-cards';

interface CardsPanelProps {
  query: RangeQuery | undefined;
  /** Only this NodePool's card. */
  nodePool: string | undefined;
  /** The bill's cost metric (the URL's); undefined = the server's default. */
  metric?: CostMetric;
  colors: NodePoolColors;
}

/** The NodePool cards, from the cluster's NodePools, the range's summary and comparison, and the nodes at the range's end. */
export function CardsPanel({ query, nodePool, metric, colors }: CardsPanelProps) {
  const unfiltered = query === undefined ? undefined : { from: query.from, to: query.to };
  // The bill as the cost panel asks for it (same cache entry): its NodePool filter narrows both alike.
  const bill = useNodePoolBill(query === undefined ? undefined : metric === undefined ? query : { ...query, metric });
  const cur = useCurDaily(query === undefined ? undefined : metric === undefined ? query : { ...query, metric });
  const pools = useNodePoolSpecs();
  const summary = useEfficiencySummary(unfiltered);
  const compare = useNodePoolCompare(unfiltered);
  const mix = useNodeMix(query?.to);
  const cards = useMemo(
    () =>
      buildCards(
        pools.data?.items ?? [],
        summary.data?.rows ?? [],
        compare.data?.rows ?? [],
        mix.data?.rows ?? [],
        bill.data?.rows ?? [],
        cur.data?.byNodePool ?? [],
      ).filter((c) => nodePool === undefined || c.name === nodePool),
    [pools.data, summary.data, compare.data, mix.data, bill.data, cur.data, nodePool],
  );
  const failed = [pools, summary, compare, mix].find((q) => q.isError);
  const body = (() => {
    if (query === undefined || pools.isPending || summary.isPending || compare.isPending || mix.isPending)
      return <LoadingState label="Loading NodePools…" />;
    if (failed !== undefined)
      return <ErrorState title="Could not load the NodePools." error={failed.error} onRetry={() => void failed.refetch()} />;
    if (cards.length === 0) {
      return (
        <EmptyState title="No NodePools.">
          The Kubernetes collector has not seen any karpenter.sh NodePool yet, or the filter names one that does not exist.
        </EmptyState>
      );
    }
    return <NodePoolCards cards={cards} colors={colors} />;
  })();
  const at = mix.data?.snapshotAt;
  return (
    <Panel
      title="NodePools"
      subtitle={`Policy as last collected; cost and packing over the range (time-weighted); instance mix at ${at == null ? 'the newest snapshot' : formatIsoUtc(at)}. ${idleWeightingSentence(summary.data?.rows.find((r) => r.scope === 'cluster')?.idleRates, 'over the cluster and range; each card its own')}`}
    >
      <div className="panel-body">{body}</div>
    </Panel>
  );
}
