import { Suspense, useMemo, useState } from 'react';
import { Panel } from '../../../components/ui/panel';
import { ErrorState, LoadingState } from '../../../components/ui/state-message';
import { onCluster, ToolClusterChoice, useToolCluster } from '../../../components/ui/tool-cluster';
import { formatIsoUtc, formatUsd } from '../../../lib/format';
import { useHeadroom, useNodePoolEdit } from '../api/use-whatif';
import { savingsWaterfall, type TriedEdit } from '../utils/waterfall';
import { BalancedResult } from './balanced-result';
import { EditForm, type TriedEdit as TriedNodePoolEdit } from './edit-form';
import { FootprintCell, mixText } from './footprint';
import { lazyNow } from '../../../lib/lazy-now';

const WaterfallChart = lazyNow(() => import('./waterfall-chart'));

type HeadroomRow = NonNullable<ReturnType<typeof useHeadroom>['data']>['rows'][number];

/** Per NodePool: today, the best known placement and with spot, and what each lever saves per month. */
function HeadroomTable({ rows, caption, testId }: { rows: readonly HeadroomRow[]; caption: string; testId: string }) {
  return (
    <div className="table-scroll">
      <table className="data-table" data-testid={testId}>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">NodePool</th>
            <th scope="col">Today</th>
            <th scope="col">Best (cheaper of today, re-pack)</th>
            <th scope="col">With spot</th>
            <th scope="col" className="num">
              Consolidation / month
            </th>
            <th scope="col" className="num">
              Spot / month
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.nodePool} data-nodepool={r.nodePool}>
              <th scope="row">{r.nodePool}</th>
              <FootprintCell f={r.today} />
              <FootprintCell f={r.best} />
              <FootprintCell f={r.spot} />
              <td className="num" data-usd={r.headroomUsdPerMonth.toFixed(2)}>
                {formatUsd(r.headroomUsdPerMonth)}
              </td>
              <td className="num" data-usd={r.spotUsdPerMonth.toFixed(2)}>
                {formatUsd(r.spotUsdPerMonth)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const signedUsd = (v: number): string => (Math.abs(v) < 0.005 ? formatUsd(0) : v >= 0 ? `−${formatUsd(v)}` : `+${formatUsd(-v)}`);

/** The waterfall of what each lever would save per month, per NodePool, and the NodePool edit the user tries. */
export function HeadroomPanel({ at }: { at: string | undefined }) {
  const headroom = useHeadroom(at === undefined ? {} : { at });
  const tool = useToolCluster();
  // The edit tried, with the cluster it was tried on: choosing another cluster leaves it behind.
  const [tried, setTried] = useState<{ edit: TriedNodePoolEdit; cluster: string | undefined } | null>(null);
  const edit = tried !== null && tried.cluster === tool.cluster ? tried.edit : null;
  const edited = useNodePoolEdit(edit?.query ?? null);
  const editLabel = edit?.query ? edit.label : null;
  const editSavings = edit?.query ? (edited.data?.savingsUsdPerMonth ?? null) : null;
  const steps = useMemo(() => {
    const tried: TriedEdit | null =
      editLabel !== null && editSavings !== null ? { label: editLabel, savingsUsdPerMonth: editSavings } : null;
    return headroom.data === undefined ? [] : savingsWaterfall(headroom.data, tried);
  }, [headroom.data, editLabel, editSavings]);

  if (headroom.isPending) return <LoadingState label="Simulating the re-pack…" />;
  if (headroom.isError)
    return <ErrorState title="Could not simulate the savings." error={headroom.error} onRetry={() => void headroom.refetch()} />;
  const h = headroom.data;
  const snapshot = formatIsoUtc(h.snapshotAt);
  return (
    <Panel
      title="What each lever would save (simulation)"
      subtitle={`Simulated by the scheduling engine at the snapshot of ${snapshot}, USD per month (per hour × 730). Consolidation: every pod re-packed from scratch in its NodePool and capacity type; spot: the same with spot allowed where no do-not-disrupt forbids it.`}
    >
      <p className="simulation-note" data-testid="simulation-note">
        Simulation · snapshot {snapshot} · {h.catalogueSource}
      </p>
      <Suspense fallback={<LoadingState label="Loading the chart…" />}>
        <WaterfallChart steps={steps} />
      </Suspense>
      <div className="table-scroll">
        <table className="data-table" data-testid="waterfall-steps">
          <caption>The waterfall’s figures, USD per month (simulation at {snapshot})</caption>
          <thead>
            <tr>
              <th scope="col">Step</th>
              <th scope="col" className="num">
                Per month
              </th>
            </tr>
          </thead>
          <tbody>
            {steps.map((s) => (
              <tr key={s.key} data-step={s.key}>
                <th scope="row">{s.label}</th>
                <td className="num" data-usd={s.valueUsd.toFixed(2)}>
                  {s.kind === 'total' ? formatUsd(s.valueUsd) : signedUsd(s.valueUsd)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {h.clusters === undefined ? (
        <HeadroomTable
          rows={h.rows}
          caption={`Per NodePool: today, the best known placement (the cheaper of today and the re-pack) and with spot (simulation at ${snapshot})`}
          testId="headroom-table"
        />
      ) : (
        <>
          <p className="summary-line" data-testid="headroom-total">
            All {h.clusters.length} clusters: consolidation{' '}
            <strong data-usd={h.totals.headroomUsdPerMonth.toFixed(2)}>{formatUsd(h.totals.headroomUsdPerMonth)}</strong> per month, spot{' '}
            <strong data-usd={h.totals.spotUsdPerMonth.toFixed(2)}>{formatUsd(h.totals.spotUsdPerMonth)}</strong> per month (each cluster
            simulated on its own newest snapshot, with its own Karpenter; the sums add, the packing does not).
          </p>
          {h.clusters.map((c) => (
            <section key={c.cluster} className="cluster-section" data-testid={`headroom-cluster-${c.cluster}`}>
              <h3>
                {c.cluster}: consolidation {formatUsd(c.totals.headroomUsdPerMonth)}/month, spot {formatUsd(c.totals.spotUsdPerMonth)}/month
              </h3>
              <p className="simulation-note">
                Simulation · snapshot {formatIsoUtc(c.snapshotAt)} · {c.catalogueSource}
              </p>
              <HeadroomTable
                rows={h.rows.filter((r) => r.cluster === c.cluster)}
                caption={`${c.cluster}, per NodePool: today, the best known placement and with spot (simulation at ${formatIsoUtc(c.snapshotAt)})`}
                testId={`headroom-table-${c.cluster}`}
              />
            </section>
          ))}
        </>
      )}
      <h3>Try a NodePool edit</h3>
      <ToolClusterChoice tool={tool} testId="edit-cluster" />
      {(() => {
        // Under "All clusters" the answer is each cluster's: the form offers the chosen cluster's NodePools, at its snapshot.
        const section = h.clusters?.find((c) => c.cluster === tool.cluster);
        const pools = h.clusters === undefined ? h.rows : h.rows.filter((r) => r.cluster === tool.cluster);
        const snapshotAt = section?.snapshotAt ?? h.snapshotAt;
        return (
          <EditForm
            key={tool.cluster ?? ''}
            nodePools={pools.map((r) => r.nodePool)}
            at={snapshotAt}
            cluster={tool.cluster}
            disabled={!tool.ready}
            onTry={(e) => setTried({ edit: e, cluster: tool.cluster })}
          />
        );
      })()}
      {edit?.balanced ? (
        <BalancedResult
          key={`${tool.cluster ?? ''}/${edit.nodePool}@${edit.at}`}
          nodePool={edit.nodePool}
          at={edit.at}
          cluster={tool.cluster}
        />
      ) : null}
      {edit === null || edit.query === null ? null : edited.isError ? (
        <ErrorState title="Could not simulate the edit." error={edited.error} />
      ) : edited.data === undefined ? (
        <LoadingState label="Simulating the edit…" />
      ) : (
        <div className="edit-result" data-testid="edit-result" data-cluster={tool.cluster} aria-live="polite">
          <p>
            <strong>{edit.label}</strong> (simulation{onCluster(tool.cluster)} at {formatIsoUtc(edited.data.snapshotAt)}): before{' '}
            {mixText(edited.data.before)}, {formatUsd(edited.data.before.usdPerHour * 730)}/month; after {mixText(edited.data.after)},{' '}
            {formatUsd(edited.data.after.usdPerHour * 730)}/month.{' '}
            {edited.data.savingsUsdPerMonth === null
              ? `${edited.data.unschedulable.length} pod(s) would not fit: ${edited.data.skippedNodePools[0]?.reason ?? edited.data.unschedulable[0]?.reason ?? ''}`
              : edited.data.savingsUsdPerMonth >= 0
                ? `Saves ${formatUsd(edited.data.savingsUsdPerMonth)} per month.`
                : `Costs ${formatUsd(-edited.data.savingsUsdPerMonth)} more per month.`}
          </p>
        </div>
      )}
    </Panel>
  );
}
