import type { ExplainedNodeClaim, Explanation } from '@schemas/bill';
import { currencyCode, formatBytes, formatMillicores, formatUsd, formatUsdPerHour, formatUtcSpan } from '../../../lib/format';

const STATUS_TEXT: Record<Explanation['status'], string> = {
  explained: 'Explained',
  'partly-explained': 'Partly explained',
  'cannot-explain': 'Cannot be split',
};

function Reasons({ nc }: { nc: ExplainedNodeClaim }) {
  const r = nc.reasons;
  const pods = r.size.launchPods;
  return (
    <details className="reasons">
      <summary>Why this node</summary>
      <dl>
        <div>
          <dt>Instance type</dt>
          <dd>{r.instanceType.summary}</dd>
        </div>
        <div>
          <dt>Size</dt>
          <dd>
            {r.size.summary}
            {pods.length === 0 ? null : (
              <ul className="pods">
                {pods.slice(0, 12).map((p) => (
                  <li key={`${p.namespace}/${p.name}`}>
                    {p.namespace}/{p.name} · {formatMillicores(p.cpuMillicores)}, {formatBytes(p.memoryBytes)}
                  </li>
                ))}
                {pods.length > 12 ? <li>and {pods.length - 12} more pods</li> : null}
              </ul>
            )}
          </dd>
        </div>
        <div>
          <dt>Capacity type</dt>
          <dd>{r.capacityType.summary}</dd>
        </div>
        <div>
          <dt>Launched</dt>
          <dd>{r.created.summary}</dd>
        </div>
        <div>
          <dt>Removed</dt>
          <dd>{r.removed.summary}</dd>
        </div>
      </dl>
    </details>
  );
}

/** A bill line taken apart: the NodeClaims that make it up, why each exists, and what is left over. */
export function ExplanationView({ e }: { e: Explanation }) {
  return (
    <div className="explanation" data-testid="explanation">
      <p className="explanation-summary">
        <span className={`status status-${e.status}`}>{STATUS_TEXT[e.status]}</span> {e.summary}
      </p>
      <dl className="summary">
        <div>
          <dt>Bill line</dt>
          <dd>{formatUsd(e.lineUsd)}</dd>
        </div>
        <div>
          <dt>NodeClaims × prices</dt>
          <dd>{formatUsd(e.computedUsd)}</dd>
        </div>
        <div>
          <dt>Remainder</dt>
          <dd>{formatUsd(e.remainderUsd)}</dd>
        </div>
        <div>
          <dt>Tolerance</dt>
          <dd>{formatUsd(e.toleranceUsd)}</dd>
        </div>
      </dl>
      {e.remainderCauses.length === 0 ? null : (
        <ul className="causes" aria-label="Likely causes of the remainder">
          {e.remainderCauses.map((c) => (
            <li key={c.code}>
              {c.message}
              {c.usd === null ? '' : ` (${formatUsd(c.usd)})`}
            </li>
          ))}
        </ul>
      )}
      {e.nodeClaims.length === 0 ? null : (
        <div className="table-scroll">
          <table className="data-table nodeclaims">
            <caption className="visually-hidden">NodeClaims behind this line, largest cost first</caption>
            <thead>
              <tr>
                <th scope="col">Node / NodeClaim</th>
                <th scope="col">Instance</th>
                <th scope="col">Zone</th>
                <th scope="col">In the period (UTC)</th>
                <th scope="col" className="num">
                  Hours
                </th>
                <th scope="col" className="num">
                  {currencyCode()} / h
                </th>
                <th scope="col" className="num">
                  Cost
                </th>
                <th scope="col">Reasons</th>
              </tr>
            </thead>
            <tbody>
              {e.nodeClaims.map((nc) => (
                <tr key={nc.nodeName}>
                  <th scope="row">
                    <span className="nc-name">{nc.nodeClaim ?? nc.nodeName}</span>
                    <span className="sub">{nc.nodeClaim === null ? 'not launched by Karpenter' : nc.nodeName}</span>
                  </th>
                  <td>
                    {nc.instanceType}
                    <span className="sub">
                      {nc.capacityType}
                      {nc.instanceId === null ? '' : ` · ${nc.instanceId}`}
                    </span>
                  </td>
                  <td>{nc.zone}</td>
                  <td className="period">{formatUtcSpan(nc.from, nc.to)}</td>
                  <td className="num">{nc.hours.toFixed(2)}</td>
                  <td
                    className="num"
                    title={`${nc.priceSource}${nc.priceChanges > 0 ? `, ${nc.priceChanges} price changes (${formatUsdPerHour(nc.minUsdPerHour)}–${formatUsdPerHour(nc.maxUsdPerHour)})` : ''}`}
                  >
                    {formatUsdPerHour(nc.unitPriceUsdPerHour)}
                    <span className="sub price-source" data-testid="price-source">
                      {nc.priceSource}
                    </span>
                  </td>
                  <td className="num">{formatUsd(nc.computedUsd)}</td>
                  <td>
                    <Reasons nc={nc} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {e.notes.length === 0 ? null : (
        <ul className="notes" aria-label="Notes">
          {e.notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
