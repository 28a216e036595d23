import { useQuery } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { Panel } from '../../../components/ui/panel';
import { ErrorState, LoadingState } from '../../../components/ui/state-message';
import { onCluster, ToolClusterChoice, useToolCluster } from '../../../components/ui/tool-cluster';
import { formatIsoUtc, formatUsdPerHour } from '../../../lib/format';
import { jsonQuery } from '../../../lib/json-query';
import { commandText } from '../utils/command-text';

/** A NodeOverlay price adjustment on every type: Karpenter's decision on the adjusted prices, the bill on the real ones. */
function OverlayTry({ at }: { at: string | undefined }) {
  const id = useId();
  const [change, setChange] = useState('-12%');
  const tool = useToolCluster();
  // What was asked, and of which cluster: another cluster chosen leaves the answer behind.
  const [tried, setTried] = useState<{ change: string; cluster: string | undefined } | null>(null);
  const asked = tried !== null && tried.cluster === tool.cluster ? tried.change : null;
  const r = useQuery({
    ...jsonQuery('/api/whatif/overlay', { priceAdjustment: asked ?? '', at, cluster: tool.cluster }),
    enabled: asked !== null,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTried({ change: change.trim(), cluster: tool.cluster });
  };
  return (
    <div className="karpenter-try" data-testid="overlay-try">
      <ToolClusterChoice tool={tool} testId="overlay-cluster" />
      <form className="inline-form" onSubmit={submit}>
        <fieldset className="whatif-fields" disabled={!tool.ready}>
          <label htmlFor={`${id}-change`}>NodeOverlay priceAdjustment on every type (an EDP discount, say)</label>
          <input id={`${id}-change`} value={change} onChange={(e) => setChange(e.target.value)} size={8} />
          <button type="submit" className="button">
            Try the overlay
          </button>
        </fieldset>
      </form>
      {asked === null ? null : r.isPending ? (
        <LoadingState label="Simulating with the overlay…" />
      ) : r.isError ? (
        <ErrorState title="Could not simulate the overlay." error={r.error} onRetry={() => void r.refetch()} />
      ) : (
        <dl className="try-answer" data-testid="overlay-answer" data-cluster={tool.cluster}>
          <dt>Real prices (the ledger’s estimate)</dt>
          <dd>{commandText(r.data.real)}</dd>
          <dt>Karpenter with {r.data.priceAdjustment}</dt>
          <dd>{commandText(r.data.overlaid)}</dd>
          {r.data.overlaidSavingsAtRealPricesUsdPerHour === null || r.data.overlaid === null ? null : (
            <>
              <dt>The difference</dt>
              <dd data-testid="overlay-difference">
                Karpenter estimates {formatUsdPerHour(r.data.overlaid.savingsUsdPerHour)}/h; at the prices billed the same command saves{' '}
                {formatUsdPerHour(r.data.overlaidSavingsAtRealPricesUsdPerHour)}/h (
                {formatUsdPerHour(r.data.overlaidSavingsAtRealPricesUsdPerHour - r.data.overlaid.savingsUsdPerHour)}/h difference).
              </dd>
            </>
          )}
          <dd className="sub">
            Simulation{onCluster(tool.cluster)} · snapshot {formatIsoUtc(r.data.snapshotAt)} · overlays change Karpenter’s decisions, not
            the bill.
          </dd>
        </dl>
      )}
    </div>
  );
}

/**
 * Try a Karpenter setting before applying it (Karpenter v1.14): a NodeOverlay here; consolidationPolicy Balanced is
 * in the NodePool edit form (headroom-panel.tsx), beside the other edits of a NodePool.
 */
export function KarpenterTryPanel({ at }: { at: string | undefined }) {
  return (
    <Panel
      title="Try a NodeOverlay (simulation)"
      subtitle="Price every type with a NodeOverlay and see Karpenter’s next round before you apply it. To switch a NodePool to Balanced consolidation, use “Try a NodePool edit” above."
    >
      <OverlayTry at={at} />
    </Panel>
  );
}
