import { useId, useState, type FormEvent } from 'react';
import type { RecommendationRow } from '@schemas/workloads';
import { ErrorState, LoadingState } from '../../../components/ui/state-message';
import { onCluster, ToolClusterChoice, useToolCluster } from '../../../components/ui/tool-cluster';
import { ApiError } from '../../../lib/api-client';
import { formatBytes, formatIsoUtc, formatMillicores, formatUsd, formatUsdPerHour } from '../../../lib/format';
import { useWorkloadWhatIf } from '../api/use-workloads';
import { nodePoolsParam, placementLines, type WorkloadWhatIfQuery } from '../utils/workload-whatif';

const vsNow = (v: number | null): string =>
  v === null ? '—' : Math.abs(v) < 0.005 ? formatUsd(0) : `${v > 0 ? '+' : '−'}${formatUsd(Math.abs(v))}`;

/**
 * "What if…": the workload's pods at the snapshot provisioned on fresh nodes of each NodePool (every one, or those
 * typed), priced by the scheduling engine beside the NodePool it runs on now. Under "All clusters" the row names its
 * cluster and the request names it; a row without one on a ledger of several asks for the cluster as the Savings tools do.
 */
export function WorkloadWhatIf({ row }: { row: RecommendationRow }) {
  const id = useId();
  const tool = useToolCluster();
  const cluster = row.cluster ?? tool.cluster;
  const ready = row.cluster !== undefined || tool.ready;
  const [typed, setTyped] = useState('');
  const [asked, setAsked] = useState<WorkloadWhatIfQuery | undefined>(undefined);
  const answer = useWorkloadWhatIf(asked);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setAsked({
      namespace: row.namespace,
      kind: row.workloadKind,
      name: row.workloadName,
      nodepools: nodePoolsParam(typed),
      ...(cluster === undefined ? {} : { cluster }),
    });
  };
  const error = answer.error;
  return (
    <div className="workload-whatif" data-testid="workload-whatif">
      {row.cluster === undefined ? <ToolClusterChoice tool={tool} testId="workload-whatif-cluster" /> : null}
      <form className="whatif-form" onSubmit={submit} aria-label="What if this workload ran on other NodePools">
        <fieldset className="whatif-fields" disabled={!ready}>
          <label htmlFor={`${id}-pools`}>NodePools</label>
          <input id={`${id}-pools`} value={typed} placeholder="every NodePool" size={24} onChange={(e) => setTyped(e.target.value)} />
          <button type="submit" className="button" disabled={answer.isFetching}>
            {answer.isFetching ? 'Simulating…' : 'What if…'}
          </button>
        </fieldset>
      </form>
      {asked === undefined ? null : answer.isError ? (
        error instanceof ApiError && (error.status === 400 || error.status === 404) ? (
          <div className="state state-error" role="alert" data-testid="workload-whatif-error">
            <strong>{error.status === 400 ? 'The what-if was refused.' : 'Nothing to simulate.'}</strong>
            <p>{error.message}</p>
          </div>
        ) : (
          <ErrorState title="Could not simulate the workload." error={error} onRetry={() => void answer.refetch()} />
        )
      ) : answer.data === undefined ? (
        <LoadingState label="Simulating the workload…" />
      ) : (
        <div data-testid="workload-whatif-answer" data-cluster={asked.cluster} aria-live="polite">
          <p className="simulation-note" data-testid="workload-whatif-note">
            Simulation{onCluster(asked.cluster)} · snapshot {formatIsoUtc(answer.data.snapshotAt)}
            {answer.data.workload === null
              ? ''
              : ` · ${answer.data.workload.replicas} pod(s) of ${formatMillicores(answer.data.workload.cpuMillicores)} / ${formatBytes(answer.data.workload.memoryBytes)}, on ${answer.data.workload.nodePool} now`}{' '}
            · each NodePool on fresh nodes of its own
          </p>
          <div className="table-scroll">
            <table className="data-table" data-testid="workload-whatif-table">
              <caption>The workload on each NodePool</caption>
              <thead>
                <tr>
                  <th scope="col">NodePool</th>
                  <th scope="col" className="num">
                    Nodes
                  </th>
                  <th scope="col">Instance types</th>
                  <th scope="col" className="num">
                    Per hour
                  </th>
                  <th scope="col" className="num">
                    Per month
                  </th>
                  <th scope="col" className="num">
                    vs. now / month
                  </th>
                  <th scope="col">Pods left out</th>
                </tr>
              </thead>
              <tbody>
                {placementLines(answer.data).map((l) => (
                  <tr key={l.nodePool} data-nodepool={l.nodePool} data-current={l.current ? 'true' : undefined}>
                    <th scope="row">
                      {l.nodePool}
                      {l.current ? <span className="sub">runs here now</span> : null}
                    </th>
                    <td className="num">{l.nodes}</td>
                    <td>{l.mix}</td>
                    <td className="num" data-usd={l.usdPerHour.toFixed(6)}>
                      {formatUsdPerHour(l.usdPerHour)}
                    </td>
                    <td className="num" data-usd={l.usdPerMonth.toFixed(2)}>
                      {formatUsd(l.usdPerMonth)}
                    </td>
                    <td className="num" data-usd={l.vsCurrentUsdPerMonth === null ? undefined : l.vsCurrentUsdPerMonth.toFixed(2)}>
                      {vsNow(l.vsCurrentUsdPerMonth)}
                    </td>
                    <td data-testid="workload-whatif-left-out">
                      {l.unschedulable === 0 ? 'none' : `${l.unschedulable}: ${l.reasons.join('; ')}`}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      )}
    </div>
  );
}
