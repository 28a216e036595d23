import { useQuery } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import type { BalancedTryResponse } from '@schemas/karpenter-try';
import { Panel } from '../../../components/ui/panel';
import { ErrorState, LoadingState } from '../../../components/ui/state-message';
import { formatIsoUtc, formatUsd, formatUsdPerHour } from '../../../lib/format';
import { jsonQuery } from '../../../lib/json-query';

type Command = BalancedTryResponse['balanced'];

const HOURS_PER_MONTH = 730;

function commandText(c: Command): string {
  if (c === null) return 'nothing to consolidate';
  const nodes = c.candidates.map((x) => x.node).join(', ');
  const repl = c.replacement === null ? '' : ` → ${c.replacement.instanceType} ${c.replacement.capacityType}`;
  return `${c.action} ${nodes}${repl}: saves ${formatUsdPerHour(c.savingsUsdPerHour)}/h (${formatUsd(c.savingsUsdPerHour * HOURS_PER_MONTH)}/mo), disrupts ${c.candidates.length} node(s), ${c.podsDisrupted} pod(s)`;
}

/** A NodePool switched to consolidationPolicy Balanced: Karpenter's next round then, its score, beside today's. */
function BalancedTry({ at, nodePools }: { at: string | undefined; nodePools: readonly string[] }) {
  const id = useId();
  const [pool, setPool] = useState('');
  const [asked, setAsked] = useState<string | null>(null);
  const chosen = pool || nodePools[0] || '';
  const r = useQuery({ ...jsonQuery('/api/whatif/balanced', { nodepool: asked ?? '', at }), enabled: asked !== null });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setAsked(chosen);
  };
  return (
    <div className="karpenter-try" data-testid="balanced-try">
      <form className="inline-form" onSubmit={submit}>
        <label htmlFor={`${id}-pool`}>consolidationPolicy: Balanced on</label>
        <select id={`${id}-pool`} value={chosen} onChange={(e) => setPool(e.target.value)}>
          {nodePools.map((n) => (
            <option key={n}>{n}</option>
          ))}
        </select>
        <button type="submit" className="button">
          Try Balanced
        </button>
      </form>
      {asked === null ? null : r.isPending ? (
        <LoadingState label="Simulating Balanced consolidation…" />
      ) : r.isError ? (
        <ErrorState title="Could not simulate Balanced." error={r.error} onRetry={() => void r.refetch()} />
      ) : (
        <dl className="try-answer" data-testid="balanced-answer">
          <dt>Today ({r.data.policyToday})</dt>
          <dd>{commandText(r.data.today)}</dd>
          <dt>Balanced (k = 2)</dt>
          <dd>
            {commandText(r.data.balanced)}
            {(r.data.balanced?.scores ?? []).map((s) => (
              <span key={s.nodePool} className="sub" data-testid="balanced-score">
                {s.nodePool}: {s.message}
              </span>
            ))}
          </dd>
          {r.data.keptByScore.length === 0 ? null : (
            <>
              <dt>Kept by the score</dt>
              <dd>{r.data.keptByScore.map((k) => `${k.node}: ${k.reason}`).join('; ')}</dd>
            </>
          )}
        </dl>
      )}
    </div>
  );
}

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

/** Try a Karpenter setting before applying it (Karpenter v1.14). */
export function KarpenterTryPanel({ at }: { at: string | undefined }) {
  const pools = useQuery(jsonQuery('/api/nodepools', {}));
  const names = (pools.data?.items ?? []).map((p) => p.name);
  return (
    <Panel
      title="Try a Karpenter setting (simulation)"
      subtitle="Switch a NodePool to Balanced consolidation, or price every type with a NodeOverlay, and see Karpenter’s next round before you apply it."
    >
      {names.length === 0 ? <LoadingState label="Loading NodePools…" /> : <BalancedTry at={at} nodePools={names} />}
      <OverlayTry at={at} />
    </Panel>
  );
}
