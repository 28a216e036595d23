import { Fragment } from 'react';
import type { RecommendationRow, RecommendationsResponse } from '@schemas/workloads';
import { Panel } from '../../../components/ui/panel';
import { SortHeader } from '../../../components/ui/sort-header';
import { EmptyState, ErrorState, LoadingState } from '../../../components/ui/state-message';
import { apiUrl } from '../../../lib/api-client';
import { formatBytes, formatFraction, formatMillicores, formatUsd, formatUtcDateTime } from '../../../lib/format';
import { idleWeightingSentence } from '../../../lib/idle-weighting';
import type { ParamUpdates } from '../../../lib/url-params';
import { useRecommendations } from '../api/use-workloads';
import { rowKey, sortRows, sortUpdates, type WorkloadSort, type WorkloadTableState } from '../utils/workload-table';
import { WorkloadDetail } from './workload-detail';

type Column = { key: WorkloadSort | null; label: string; className?: string };
/** Under "All clusters" of several: the rows' cluster first. */
const CLUSTER_COLUMN: Column = { key: null, label: 'Cluster' };
const COLUMNS: readonly Column[] = [
  { key: 'workload', label: 'Workload / container' },
  { key: 'savings', label: 'Effect / month', className: 'num' },
  { key: null, label: 'CPU request → rec.', className: 'num' },
  { key: null, label: 'Memory request → rec.', className: 'num' },
  { key: 'cpu', label: 'CPU used ÷ req.', className: 'num' },
  { key: 'memory', label: 'Memory used ÷ req.', className: 'num' },
  { key: 'idle', label: 'Workload idle / month', className: 'num' },
];

const ratio = (v: number | null): string => (v === null ? '—' : formatFraction(v));
const signedUsd = (v: number | null): string => (v === null ? '—' : `${v > 0 ? '+' : v < 0 ? '−' : ''}${formatUsd(Math.abs(v))}`);

function Row({
  r,
  open,
  onToggle,
  window,
  columns,
}: {
  r: RecommendationRow;
  open: boolean;
  onToggle: () => void;
  window: string;
  columns: number;
}) {
  return (
    <Fragment>
      <tr className={open ? 'is-open' : undefined}>
        {r.cluster === undefined ? null : <td data-testid="workload-cluster">{r.cluster}</td>}
        <th scope="row">
          <button type="button" className="link-button" aria-expanded={open} onClick={onToggle}>
            {r.namespace}/{r.workloadName}
          </button>
          <span className="sub">
            {r.workloadKind} · {r.container} · {r.replicas} replica(s){r.nodePool === null || r.nodePool === '' ? '' : ` · ${r.nodePool}`}
          </span>
          {r.flags.length === 0 ? null : (
            <span className="sub flags">
              {r.flags.map((f) => (
                <span
                  key={f}
                  className={`flag flag-${f}`}
                  title={
                    f === 'throttled'
                      ? 'held at its CPU limit (p95 at or near it, or the peak at it)'
                      : f === 'above-request'
                        ? 'CPU p95 above the request: it borrows idle CPU, not throttled'
                        : undefined
                  }
                >
                  {f}
                </span>
              ))}
            </span>
          )}
        </th>
        <td className="num" data-testid="workload-savings" title={r.dollarMethod === 'engine-repack' ? 'engine re-pack' : 'request share'}>
          {signedUsd(r.monthlyEffectUsd)}
          <span className="sub">
            {r.dollarMethod === 'engine-repack' ? 're-pack' : r.dollarMethod === 'request-share' ? 'request share' : ''}
          </span>
        </td>
        <td className="num">
          {r.currentCpuMillicores === null ? '—' : formatMillicores(r.currentCpuMillicores)} →{' '}
          {formatMillicores(r.recommendedCpuMillicores)}
        </td>
        <td className="num">
          {r.currentMemoryBytes === null ? '—' : formatBytes(r.currentMemoryBytes)} → {formatBytes(r.recommendedMemoryBytes)}
        </td>
        <td className="num">{ratio(r.cpuUsageOverRequest)}</td>
        <td className="num">{ratio(r.memoryUsageOverRequest)}</td>
        <td className="num">{r.idleUsdPerMonth === null ? '—' : formatUsd(r.idleUsdPerMonth)}</td>
      </tr>
      {open ? (
        <tr className="detail-row">
          <td colSpan={columns}>
            <WorkloadDetail row={r} window={window} />
          </td>
        </tr>
      ) : null}
    </Fragment>
  );
}

function Figure({ label, value }: { label: string; value: string }) {
  return (
    <div className="figure">
      <dt>{label}</dt>
      <dd>
        <span className="figure-value">{value}</span>
      </dd>
    </div>
  );
}

/** The page's totals: right-sizing through the engine, and the two idles as Kubecost names them, at the newest snapshot. */
function Summary({ data }: { data: RecommendationsResponse }) {
  const c = data.capacity;
  return (
    <>
      <dl className="figures" data-testid="workloads-summary">
        <Figure label="Right-sizing, NodePools re-packed, per month" value={signedUsd(data.totals.monthlyEffectUsd)} />
        {/* "All clusters" of several: each cluster's idles at its own newest snapshot (packing is not summed). */}
        {(data.clusters ?? []).map((k) =>
          k.capacity === null ? null : (
            <Fragment key={k.cluster}>
              <Figure label={`${k.cluster}: workload idle, per month`} value={formatUsd(k.capacity.cluster.workloadIdleUsdPerMonth)} />
              <Figure
                label={`${k.cluster}: infrastructure idle, per month`}
                value={formatUsd(k.capacity.cluster.infrastructureIdleUsdPerMonth)}
              />
            </Fragment>
          ),
        )}
        {c === null ? null : (
          <>
            <Figure label="Workload idle (requested, unused), per month" value={formatUsd(c.cluster.workloadIdleUsdPerMonth)} />
            <Figure
              label="Infrastructure idle (allocatable, unrequested), per month"
              value={formatUsd(c.cluster.infrastructureIdleUsdPerMonth)}
            />
            <Figure
              label="CPU used ÷ requested · ÷ allocatable"
              value={`${ratio(c.cluster.cpuUsageOverRequest)} · ${ratio(c.cluster.cpuUsageOverAllocatable)}`}
            />
            <Figure
              label="Memory used ÷ requested · ÷ allocatable"
              value={`${ratio(c.cluster.memoryUsageOverRequest)} · ${ratio(c.cluster.memoryUsageOverAllocatable)}`}
            />
          </>
        )}
      </dl>
      {c === null ? null : (
        <p className="hint" data-testid="idle-weighting">
          {idleWeightingSentence(c.cluster.idleRates, 'at this snapshot')} The two idles and the request-share dollars split it alike.
        </p>
      )}
    </>
  );
}

/** Requests beside usage per workload container, the recommendation and its dollar effect, sortable; a row opens its chart. */
export function WorkloadsPanel({
  state,
  window,
  onChange,
}: {
  state: WorkloadTableState;
  window: string;
  onChange: (u: ParamUpdates) => void;
}) {
  const rec = useRecommendations({ window });
  const csv = apiUrl('/api/workloads/recommendations', { window, format: 'csv' });
  const columns = rec.data?.rows.some((r) => r.cluster !== undefined) === true ? [CLUSTER_COLUMN, ...COLUMNS] : COLUMNS;
  return (
    <Panel
      title="Workloads"
      subtitle={
        rec.data?.windowFrom == null || rec.data.windowTo === null
          ? 'Requests beside usage, per workload container.'
          : `Requests beside usage, ${formatUtcDateTime(Date.parse(rec.data.windowFrom))} – ${formatUtcDateTime(Date.parse(rec.data.windowTo))} UTC. CPU at the p95 of usage, memory at the peak + 15 %; the effect re-packs the NodePool with the scheduling engine.`
      }
      actions={
        <a className="button" href={csv} download>
          CSV
        </a>
      }
    >
      {rec.isPending ? (
        <LoadingState label="Loading workloads…" />
      ) : rec.isError ? (
        <ErrorState title="Workloads could not be loaded" error={rec.error} onRetry={() => void rec.refetch()} />
      ) : rec.data.rows.length === 0 ? (
        <EmptyState title="No usage collected">
          Recommendations need usage from metrics-server (collected with every snapshot) or a Prometheus backfill (collect --prometheus
          URL).
        </EmptyState>
      ) : (
        <>
          <Summary data={rec.data} />
          <details className="method-details">
            <summary>How the dollar effect is worked out</summary>
            <p>{rec.data.dollarMethod}</p>
          </details>
          <div className="table-scroll">
            <table className="data-table workloads-table" data-testid="workloads-table">
              <caption className="visually-hidden">Workload containers, requests beside usage and the recommended requests</caption>
              <thead>
                <tr>
                  {columns.map((c) =>
                    c.key === null ? (
                      <th key={c.label} scope="col" className={c.className}>
                        {c.label}
                      </th>
                    ) : (
                      <SortHeader
                        key={c.key}
                        column={c.key}
                        sort={state.sort}
                        order={state.order}
                        onSort={(k) => onChange(sortUpdates(state, k))}
                        className={c.className}
                      >
                        {c.label}
                      </SortHeader>
                    ),
                  )}
                </tr>
              </thead>
              <tbody>
                {sortRows(rec.data.rows, state).map((r) => {
                  const key = rowKey(r);
                  return (
                    <Row
                      key={key}
                      r={r}
                      window={window}
                      columns={columns.length}
                      open={state.open === key}
                      onToggle={() => onChange({ w: state.open === key ? undefined : key })}
                    />
                  );
                })}
              </tbody>
            </table>
          </div>
        </>
      )}
    </Panel>
  );
}
