import { Suspense, useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { CompareRow } from '@schemas/consolidation';
import type { NodeChangeSide } from '@schemas/node-aggregates';
import { Panel } from '../../../components/ui/panel';
import { Segmented } from '../../../components/ui/segmented';
import { EmptyState, ErrorState, LoadingState } from '../../../components/ui/state-message';
import { currencyCode, formatFraction, formatIsoUtc, formatUsd, formatUsdPerHour, nodePoolLabel } from '../../../lib/format';
import { IDLE_WEIGHTING, idleRatesText } from '../../../lib/idle-weighting';
import { useCompare, useNodeChanges } from '../api/use-consolidation';
import { compareBars, focusRow, nodeChangesRange, WINDOWS, type CompareState, type WindowChoice } from '../utils/compare-state';
import { reasonText } from '../utils/reasons';
import { lazyNow } from '../../../lib/lazy-now';

// Recharts is loaded with the chart, not with the page.
const BeforeAfterChart = lazyNow(() => import('./before-after-chart'));

interface ComparePanelProps {
  state: CompareState;
  nodePool: string | undefined;
  onWindow: (w: WindowChoice) => void;
  /** A time typed in (the keyboard's way to do what a click on the timeline does), ISO 8601 UTC. */
  onAt: (iso: string) => void;
}

const WINDOW_OPTIONS = WINDOWS.map((w) => ({ value: w, label: w }));
const pct = (v: number | null): string => (v === null ? '—' : formatFraction(v));
const points = (v: number | null): string => (v === null ? '—' : `${v > 0 ? '+' : ''}${(v * 100).toFixed(1)} pts`);

function RowsTable({ rows }: { rows: readonly CompareRow[] }) {
  return (
    <div className="table-scroll">
      <table className="data-table" data-testid="compare-rows">
        <caption className="visually-hidden">Before and after, for the cluster and each NodePool</caption>
        <thead>
          <tr>
            <th scope="col">Scope</th>
            <th scope="col" className="num">
              Nodes
            </th>
            <th scope="col" className="num">
              {currencyCode()} / h
            </th>
            <th scope="col" className="num">
              CPU packed
            </th>
            <th scope="col" className="num">
              Memory packed
            </th>
            <th scope="col" className="num">
              Idle {currencyCode()} / h
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={`${r.cluster ?? ''}/${r.nodePool ?? '(cluster)'}`} className={r.consolidated ? 'is-selected' : undefined}>
              <th scope="row">
                {/* "All clusters" of several: each cluster's rows in turn, named. */}
                {r.cluster === undefined ? '' : `${r.cluster} · `}
                {r.scope === 'cluster' ? 'Cluster' : nodePoolLabel(r.nodePool ?? '', 'nodes')}
                {r.consolidated ? <span className="sub">the event's NodePool</span> : null}
              </th>
              <td className="num">
                {r.before.nodesAvg.toFixed(1)} → {r.after.nodesAvg.toFixed(1)}
              </td>
              <td className="num">
                {formatUsd(r.before.usdPerHourAvg)} → {formatUsd(r.after.usdPerHourAvg)}
              </td>
              <td className="num">
                {pct(r.before.cpu)} → {pct(r.after.cpu)} <span className="sub">{points(r.change.cpu)}</span>
              </td>
              <td className="num">
                {pct(r.before.memory)} → {pct(r.after.memory)} <span className="sub">{points(r.change.memory)}</span>
              </td>
              <td className="num">
                {formatUsd(r.before.idleUsdPerHourAvg)} → {formatUsd(r.after.idleUsdPerHourAvg)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function NodeList({ title, side, testId }: { title: string; side: NodeChangeSide; testId: string }) {
  const unlisted = side.count - side.nodes.length;
  return (
    <section className="node-list" aria-label={title} data-testid={testId}>
      <h3>
        {title} · {side.count} · {formatUsdPerHour(side.usdPerHour)} / h
      </h3>
      {side.count === 0 ? (
        <p className="hint">None.</p>
      ) : (
        <ul>
          {side.nodes.map((n) => (
            <li key={n.name}>
              <span className="mono">{n.nodeClaim ?? n.name}</span> {n.instanceType} · {n.capacityType} ·{' '}
              {nodePoolLabel(n.nodePool, 'nodes')}
              {n.usdPerHour === null ? '' : ` · ${formatUsdPerHour(n.usdPerHour)}/h`}
            </li>
          ))}
          {unlisted > 0 ? <li className="hint">and {unlisted} more (the Nodes page lists every node of a snapshot)</li> : null}
        </ul>
      )}
    </section>
  );
}

/** How the idle column was priced: the one weighting and, for the cluster, the rates before and after. */
function IdleNote({ rows }: { rows: readonly CompareRow[] }) {
  const cluster = rows.find((r) => r.scope === 'cluster');
  const before = idleRatesText(cluster?.before.idleRates);
  const after = idleRatesText(cluster?.after.idleRates);
  return (
    <p className="hint" data-testid="idle-weighting">
      {IDLE_WEIGHTING}
      {before === '' && after === '' ? '.' : `: before ${before === '' ? '—' : before}; after ${after === '' ? '—' : after}.`}
    </p>
  );
}

/** Compare around a typed UTC time. */
function AtPicker({ at, onAt }: { at: string | undefined; onAt: (iso: string) => void }) {
  const id = useId();
  const [value, setValue] = useState(at?.slice(0, 16) ?? '');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (value !== '') onAt(`${value}:00.000Z`);
  };
  return (
    <form className="snapshot-picker" onSubmit={submit}>
      <label htmlFor={id}>Around (UTC)</label>
      <input id={id} type="datetime-local" value={value} onChange={(e) => setValue(e.target.value)} required />
      <button type="submit" className="button">
        Compare
      </button>
    </form>
  );
}

/** Before against after, for an event or an instant: the figures, the NodePools, and the nodes that went and came. */
export function ComparePanel({ state, nodePool, onWindow, onAt }: ComparePanelProps) {
  const compare = useCompare({ event: state.event, at: state.at, window: state.window, nodepool: nodePool });
  const changes = useNodeChanges(compare.data === undefined ? undefined : nodeChangesRange(compare.data), nodePool);
  const change = changes.data;
  const row = compare.data === undefined ? undefined : focusRow(compare.data.rows, nodePool ?? compare.data.event?.nodePool);
  const top = useRef<HTMLDivElement>(null);
  const firstTarget = useRef(true);
  useEffect(() => {
    // A pick in the list below (or on the timeline above) brings the comparison into view; the first render does not scroll.
    if (firstTarget.current) firstTarget.current = false;
    else top.current?.scrollIntoView({ block: 'start' });
  }, [state.event, state.at]);

  const body = (() => {
    if (state.event === undefined && state.at === undefined) {
      return (
        <EmptyState title="Nothing chosen yet.">Pick a disruption in the list below, or click a time on the timeline above.</EmptyState>
      );
    }
    if (compare.isPending) return <LoadingState label="Comparing the windows…" />;
    if (compare.isError)
      return <ErrorState title="Could not compare before and after." error={compare.error} onRetry={() => void compare.refetch()} />;
    const c = compare.data;
    const e = c.event;
    return (
      <>
        <p className="compare-what" data-testid="compare-what">
          {e === null ? (
            <>
              Around <strong>{formatIsoUtc(c.at)}</strong>
            </>
          ) : (
            <>
              {e.action ?? 'Disruption'} of <strong>{e.nodeClaim ?? e.nodeName ?? 'a node'}</strong> ({e.instanceType ?? 'unknown type'},{' '}
              {nodePoolLabel(e.nodePool, 'nodes')}) at <strong>{formatIsoUtc(e.at)}</strong>: {e.reason}, {reasonText(e.reason)}.
            </>
          )}{' '}
          Before: {formatIsoUtc(c.before.from).slice(11)} – {formatIsoUtc(c.before.to).slice(11)}; after:{' '}
          {formatIsoUtc(c.after.from).slice(11)} – {formatIsoUtc(c.after.to).slice(11)}.
        </p>
        {row === undefined ? null : (
          <>
            <h3 className="chart-heading">
              {row.scope === 'cluster' ? 'Cluster' : nodePoolLabel(row.nodePool ?? '', 'nodes')}: before and after
            </h3>
            <Suspense fallback={<LoadingState label="Loading chart…" />}>
              <BeforeAfterChart bars={compareBars(row)} />
            </Suspense>
          </>
        )}
        <RowsTable rows={c.rows} />
        <IdleNote rows={c.rows} />
        {changes.isError ? (
          <ErrorState title="Could not list the nodes." error={changes.error} onRetry={() => void changes.refetch()} />
        ) : change === undefined ? (
          <LoadingState label="Listing the nodes…" />
        ) : (
          <div className="node-lists">
            <NodeList title="Removed" side={change.removed} testId="nodes-removed" />
            <NodeList title="Added" side={change.added} testId="nodes-added" />
          </div>
        )}
        <p className="hint">
          Removed and added: nodes in the last snapshot before the instant and not in the last snapshot of the after window, and the other
          way round.
        </p>
      </>
    );
  })();

  return (
    <div ref={top} className="scroll-target">
      <Panel
        title="Before and after"
        subtitle="Two windows of equal length either side of the instant; averages are time-weighted over the snapshots in each."
        actions={
          <div className="panel-tools">
            <AtPicker at={state.at} onAt={onAt} />
            <Segmented<WindowChoice> label="Window length" value={state.window} options={WINDOW_OPTIONS} onChange={onWindow} />
          </div>
        }
      >
        <div className={compare.isFetching && !compare.isPending ? 'panel-body is-refreshing' : 'panel-body'}>{body}</div>
      </Panel>
    </div>
  );
}
