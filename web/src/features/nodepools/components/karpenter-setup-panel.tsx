import { Panel } from '../../../components/ui/panel';
import { ErrorState, LoadingState } from '../../../components/ui/state-message';
import { ToolClusterChoice, useToolCluster } from '../../../components/ui/tool-cluster';
import { formatIsoUtc, formatUsdPerHour } from '../../../lib/format';
import { useNodePoolKarpenter } from '../api/use-nodepool-data';

/**
 * What the Karpenter releases since v1.7 add to each NodePool, at the newest snapshot: static NodePools (a fixed
 * number of nodes, never consolidated) with their fixed cost, limits.nodes, the NodeOverlay that prices each running
 * type as Karpenter sees it (the bill stays on the real price), and the reserved capacity the EC2NodeClasses list.
 */
export function KarpenterSetupPanel({ nodePool }: { nodePool: string | undefined }) {
  const tool = useToolCluster();
  const setup = useNodePoolKarpenter(tool.cluster, tool.ready);
  const body = (() => {
    if (!tool.ready) return null;
    if (setup.isPending) return <LoadingState label="Reading the NodePools’ Karpenter setup…" />;
    if (setup.isError)
      return <ErrorState title="Could not read the Karpenter setup." error={setup.error} onRetry={() => void setup.refetch()} />;
    const d = setup.data;
    const pools = d.nodePools.filter((p) => nodePool === undefined || p.name === nodePool);
    const prices = d.overlayPrices.filter((p) => nodePool === undefined || p.nodePool === nodePool);
    const reservations = d.reservations.filter((r) => nodePool === undefined || r.nodePools.includes(nodePool));
    return (
      <>
        <p className="simulation-note" data-testid="nodepool-karpenter-note" data-cluster={tool.cluster}>
          {tool.cluster === undefined ? '' : `${tool.cluster} · `}Snapshot {formatIsoUtc(d.snapshotAt)}
          {d.karpenterVersion === null ? '' : ` · Karpenter ${d.karpenterVersion}`}
        </p>
        <div className="table-scroll">
          <table className="data-table" data-testid="nodepool-karpenter-table">
            <caption className="visually-hidden">Static or dynamic, node limit and fixed cost per NodePool</caption>
            <thead>
              <tr>
                <th scope="col">NodePool</th>
                <th scope="col">Kind</th>
                <th scope="col" className="num">
                  Nodes
                </th>
                <th scope="col" className="num">
                  limits.nodes
                </th>
                <th scope="col" className="num">
                  Cost per hour
                </th>
              </tr>
            </thead>
            <tbody>
              {pools.map((p, i) => (
                <tr key={`${p.name}#${i}`} data-nodepool={p.name} data-static={p.replicas === null ? undefined : 'true'}>
                  <th scope="row">{p.name}</th>
                  <td>{p.replicas === null ? 'dynamic' : `static: ${p.replicas} replicas, never consolidated`}</td>
                  <td className="num">{p.nodes}</td>
                  <td className="num">{p.limitNodes ?? '—'}</td>
                  <td className="num" data-fixed-usd-per-hour={p.fixedUsdPerHour ?? ''}>
                    {p.fixedUsdPerHour !== null
                      ? `fixed ${formatUsdPerHour(p.fixedUsdPerHour)}/h (${p.replicas} × node price)`
                      : p.usdPerHour === null
                        ? '—'
                        : `${formatUsdPerHour(p.usdPerHour)}/h now`}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <h3 className="subhead">NodeOverlays</h3>
        {d.overlays.length === 0 ? (
          <p className="muted">No NodeOverlay in the cluster: Karpenter decides on the prices the ledger bills.</p>
        ) : (
          <>
            <ul className="overlay-list" data-testid="nodeoverlays">
              {d.overlays.map((o) => (
                <li key={o.name} data-applied={o.applied ? 'true' : 'false'}>
                  <strong>{o.name}</strong> (weight {o.weight}
                  {o.change === null ? ', capacity only' : `, price ${o.change}`}){o.applied ? '' : ` — not applied: ${o.reason ?? ''}`}
                </li>
              ))}
            </ul>
            {prices.length > 0 ? (
              <div className="table-scroll">
                <table className="data-table" data-testid="overlay-prices-table">
                  <caption>
                    Running types an overlay prices: Karpenter decides with its price (when its NodeOverlay gate is on); the ledger bills
                    the real one
                  </caption>
                  <thead>
                    <tr>
                      <th scope="col">NodePool</th>
                      <th scope="col">Instance</th>
                      <th scope="col" className="num">
                        Nodes
                      </th>
                      <th scope="col" className="num">
                        Billed
                      </th>
                      <th scope="col" className="num">
                        Karpenter’s price
                      </th>
                      <th scope="col">Priced by</th>
                    </tr>
                  </thead>
                  <tbody>
                    {prices.map((p) => (
                      <tr key={`${p.nodePool}|${p.instanceType}|${p.capacityType}|${p.zone}|${p.usdPerHour}`}>
                        <td>{p.nodePool}</td>
                        <td>
                          {p.instanceType} {p.capacityType} <span className="sub">{p.zone}</span>
                        </td>
                        <td className="num">{p.nodes}</td>
                        <td className="num">{formatUsdPerHour(p.usdPerHour)}/h</td>
                        <td className="num">{formatUsdPerHour(p.karpenterUsdPerHour)}/h</td>
                        <td>
                          {p.overlay} ({p.change})
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            ) : null}
          </>
        )}
        <h3 className="subhead">Reserved capacity</h3>
        {reservations.length === 0 ? (
          <p className="muted">No capacity reservation listed by the EC2NodeClasses.</p>
        ) : (
          <div className="table-scroll">
            <table className="data-table" data-testid="reservations-table">
              <caption className="visually-hidden">Capacity reservations from the EC2NodeClasses’ status</caption>
              <thead>
                <tr>
                  <th scope="col">Reservation</th>
                  <th scope="col">Type</th>
                  <th scope="col">Instance</th>
                  <th scope="col">State</th>
                  <th scope="col">Ends (UTC)</th>
                  <th scope="col" className="num">
                    Nodes in it
                  </th>
                  <th scope="col">NodePools</th>
                </tr>
              </thead>
              <tbody>
                {reservations.map((r) => (
                  <tr key={`${r.nodeClass}|${r.id}`} data-reservation={r.id}>
                    <th scope="row">{r.id}</th>
                    <td>
                      {r.reservationType}
                      {r.interruptible ? ' (interruptible)' : ''}
                    </td>
                    <td>
                      {r.instanceType} <span className="sub">{r.zone}</span>
                    </td>
                    <td>{r.state}</td>
                    <td>{r.endTime === null ? '—' : formatIsoUtc(r.endTime)}</td>
                    <td className="num">{r.nodes}</td>
                    <td>{r.nodePools.join(', ') || '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </>
    );
  })();
  return (
    <Panel
      title="Karpenter setup"
      subtitle="Static NodePools and their fixed cost, node limits, which NodeOverlay prices a type as Karpenter sees it, and the reserved capacity offerings."
    >
      <ToolClusterChoice
        tool={tool}
        testId="nodepool-karpenter-cluster"
        why="Pick a cluster: a Karpenter setup is one cluster’s NodePools, NodeOverlays and reservations."
      />
      {body}
    </Panel>
  );
}
