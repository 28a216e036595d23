import { useId, useState, type FormEvent } from 'react';
import { Panel } from '../../../components/ui/panel';
import { ErrorState } from '../../../components/ui/state-message';
import { onCluster, ToolClusterChoice, useToolCluster } from '../../../components/ui/tool-cluster';
import { ApiError } from '../../../lib/api-client';
import { formatIsoUtc, formatUsd, formatUsdPerHour } from '../../../lib/format';
import { usePredict } from '../api/use-whatif';

const EXAMPLE = `apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers:
        - name: api
          image: api:1
          resources: {requests: {cpu: "1", memory: 2Gi}}`;

/** Paste a Pod or Deployment: where Karpenter would put it on the cluster at the snapshot, and what it would add. */
export function PredictBox({ at }: { at: string | undefined }) {
  const id = useId();
  const [yaml, setYaml] = useState('');
  const tool = useToolCluster();
  const predict = usePredict(at, tool.cluster);
  // The cluster the shown answer was computed on (the request named it); another chosen since: the answer is left behind.
  const [askedOn, setAskedOn] = useState<string | undefined>(undefined);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setAskedOn(tool.cluster);
    predict.mutate(yaml === '' ? EXAMPLE : yaml);
  };
  const current = askedOn === tool.cluster;
  const r = current ? predict.data : undefined;
  return (
    <Panel
      title="Predict (simulation)"
      subtitle="Paste a Pod or a Deployment (with replicas) as YAML or JSON: the NodePool, instance type, capacity type, node count and cost per hour Karpenter would choose on the cluster at the snapshot. Empty: the example."
    >
      <ToolClusterChoice tool={tool} testId="predict-cluster" />
      <form onSubmit={submit} className="predict-form" aria-label="Predict">
        <label htmlFor={`${id}-yaml`}>Pod or Deployment YAML</label>
        <textarea
          id={`${id}-yaml`}
          rows={12}
          cols={70}
          value={yaml}
          placeholder={EXAMPLE}
          spellCheck={false}
          onChange={(e) => setYaml(e.target.value)}
        />
        <button type="submit" className="button" disabled={predict.isPending || !tool.ready}>
          {predict.isPending ? 'Predicting…' : 'Predict'}
        </button>
      </form>
      {predict.isError && current ? (
        predict.error instanceof ApiError && predict.error.status === 400 ? (
          <div className="state state-error" role="alert" data-testid="predict-error">
            <strong>The YAML was refused.</strong>
            <p>{predict.error.message}</p>
          </div>
        ) : (
          <ErrorState title="Could not predict." error={predict.error} />
        )
      ) : null}
      {r === undefined ? null : (
        <div data-testid="predict-answer" data-cluster={askedOn} aria-live="polite">
          <p className="simulation-note">
            Simulation{onCluster(askedOn)} · snapshot {formatIsoUtc(r.snapshotAt)} · {r.workloads.join('; ') || `${r.pods} pod(s)`} · adds{' '}
            {formatUsdPerHour(r.addedUsdPerHour)}/h ({formatUsd(r.addedUsdPerMonth)}/month)
          </p>
          <div className="table-scroll">
            <table className="data-table" data-testid="predict-table">
              <caption>New nodes per NodePool</caption>
              <thead>
                <tr>
                  <th scope="col">NodePool</th>
                  <th scope="col" className="num">
                    Nodes
                  </th>
                  <th scope="col">Instance types</th>
                  <th scope="col">Capacity</th>
                  <th scope="col" className="num">
                    Per hour
                  </th>
                </tr>
              </thead>
              <tbody>
                {/* All clusters of several: each cluster's rows, named by their cluster (two clusters' general are two rows). */}
                {r.byNodePool.map((p) => (
                  <tr key={`${p.cluster ?? ''}/${p.nodePool}`}>
                    <th scope="row">{p.cluster === undefined ? p.nodePool : `${p.cluster} / ${p.nodePool}`}</th>
                    <td className="num">{p.nodes}</td>
                    <td>{p.instanceTypes.join(', ')}</td>
                    <td>{p.capacityTypes.join(', ')}</td>
                    <td className="num">{formatUsdPerHour(p.usdPerHour)}</td>
                  </tr>
                ))}
                {r.existingNodes.length === 0 ? null : (
                  <tr>
                    <th scope="row">existing nodes</th>
                    <td className="num">{r.existingNodes.length}</td>
                    <td colSpan={2}>
                      {r.existingNodes
                        .map((n) => `${n.cluster === undefined ? '' : `${n.cluster}/`}${n.node} (${n.pods.length})`)
                        .join(', ')}
                    </td>
                    <td className="num">{formatUsdPerHour(0)}</td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
          {r.unschedulable.length === 0 ? null : (
            <ul className="unschedulable">
              {r.unschedulable.map((u) => (
                <li key={`${u.cluster ?? ''}/${u.pod}`}>
                  {u.cluster === undefined ? '' : `${u.cluster}: `}
                  {u.pod}: {u.reason}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </Panel>
  );
}
