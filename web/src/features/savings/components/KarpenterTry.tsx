import { useQuery } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { Panel } from '../../../components/ui/panel';
import { ErrorState, LoadingState } from '../../../components/ui/state-message';
import { formatIsoUtc, formatUsdPerHour } from '../../../lib/format';
import { jsonQuery } from '../../../lib/json-query';
import { commandText } from '../utils/command-text';

/** A NodeOverlay price adjustment on every type: Karpenter's decision on the adjusted prices, the bill on the real ones. */
function OverlayTry({ at }: { at: string | undefined }) {
  const id = useId();
  const [change, setChange] = useState('-12%');
  const [asked, setAsked] = useState<string | null>(null);
  const r = useQuery({ ...jsonQuery('/api/whatif/overlay', { priceAdjustment: asked ?? '', at }), enabled: asked !== null });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setAsked(change.trim());
  };
  return (
    <div className="karpenter-try" data-testid="overlay-try">
      <form className="inline-form" onSubmit={submit}>
        <label htmlFor={`${id}-change`}>NodeOverlay priceAdjustment on every type (an EDP discount, say)</label>
        <input id={`${id}-change`} value={change} onChange={(e) => setChange(e.target.value)} size={8} />
        <button type="submit" className="button">
          Try the overlay
        </button>
      </form>
      {asked === null ? null : r.isPending ? (
        <LoadingState label="Simulating with the overlay…" />
      ) : r.isError ? (
        <ErrorState title="Could not simulate the overlay." error={r.error} onRetry={() => void r.refetch()} />
      ) : (
        <dl className="try-answer" data-testid="overlay-answer">
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
            Simulation · snapshot {formatIsoUtc(r.data.snapshotAt)} · overlays change Karpenter’s decisions, not the bill.
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
