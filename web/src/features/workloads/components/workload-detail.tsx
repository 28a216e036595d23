import { useState } from 'react';
import type { RecommendationRow } from '@schemas/workloads';
import { Segmented } from '../../../components/ui/segmented';
import { EmptyState, ErrorState, LoadingState } from '../../../components/ui/state-message';
import { formatBytes, formatMillicores, formatUsd } from '../../../lib/format';
import { useWorkloadUsage } from '../api/use-workloads';
import { kubectlLine, resourcesBlock } from '../utils/resources-block';
import { WorkloadUsageChart } from './workload-usage-chart';
import { WorkloadWhatIf } from './workload-whatif';

/** Copies `text`, saying so for a moment; browsers without clipboard access leave the text to select by hand. */
function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="button"
      aria-label={label}
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(
          () => setCopied(true),
          () => setCopied(false),
        );
      }}
    >
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}

const effectText = (r: RecommendationRow): string => {
  if (r.monthlyEffectUsd === null) return 'no dollar figure (not running at the newest snapshot, or no price)';
  const money = `${r.monthlyEffectUsd < 0 ? 'saves' : 'costs'} ${formatUsd(Math.abs(r.monthlyEffectUsd))} a month`;
  if (r.dollarMethod === 'engine-repack') {
    const nodes = r.nodesDelta === null || r.nodesDelta === 0 ? 'no node change' : `${r.nodesDelta > 0 ? '+' : ''}${r.nodesDelta} node(s)`;
    return `${money}: its NodePool re-packed by the scheduling engine (${nodes}); by request share ${formatUsd(r.requestShareMonthlyUsd ?? 0)}`;
  }
  return `${money} by request share of its NodePool's node cost`;
};

/** The open row: its usage over time, what to paste, what it is worth, and what if it ran on another NodePool. */
export function WorkloadDetail({ row, window }: { row: RecommendationRow; window: string }) {
  const [resource, setResource] = useState<'cpu' | 'memory'>('cpu');
  const usage = useWorkloadUsage({
    namespace: row.namespace,
    kind: row.workloadKind,
    name: row.workloadName,
    container: row.container,
    window,
    // Under "All clusters" the row names its cluster: its chart is that cluster's hours.
    ...(row.cluster === undefined ? {} : { cluster: row.cluster }),
  });
  const block = resourcesBlock(row);
  const kubectl = kubectlLine(row);
  return (
    <div className="workload-detail" data-testid="workload-detail">
      <div className="workload-detail-chart">
        <Segmented
          label="Resource"
          value={resource}
          options={[
            { value: 'cpu', label: 'CPU' },
            { value: 'memory', label: 'Memory' },
          ]}
          onChange={setResource}
        />
        {usage.isPending ? (
          <LoadingState label="Loading usage…" />
        ) : usage.isError ? (
          <ErrorState title="Usage could not be loaded" error={usage.error} onRetry={() => void usage.refetch()} />
        ) : usage.data.points.length === 0 ? (
          <EmptyState title="No usage in the window">metrics-server reported nothing for this container in the window.</EmptyState>
        ) : (
          <WorkloadUsageChart points={usage.data.points} resource={resource} />
        )}
      </div>
      <div className="workload-detail-paste">
        <p>
          Requests {formatMillicores(row.currentCpuMillicores ?? 0)} / {formatBytes(row.currentMemoryBytes ?? 0)} →{' '}
          <strong>
            {formatMillicores(row.recommendedCpuMillicores)} / {formatBytes(row.recommendedMemoryBytes)}
          </strong>{' '}
          per replica × {row.replicas}: <span data-testid="workload-effect">{effectText(row)}</span>.
        </p>
        <div className="copy-block">
          <pre data-testid="resources-block">{block}</pre>
          <CopyButton text={block} label="Copy the resources block" />
        </div>
        {kubectl === null ? (
          <p className="sub">A bare Pod: change its manifest and recreate it.</p>
        ) : (
          <div className="copy-block">
            <pre data-testid="kubectl-line">{kubectl}</pre>
            <CopyButton text={kubectl} label="Copy the kubectl command" />
          </div>
        )}
      </div>
      <WorkloadWhatIf row={row} />
    </div>
  );
}
