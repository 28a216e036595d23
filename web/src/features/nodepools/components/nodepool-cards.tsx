import { colorOf, type NodePoolColors } from '../../../lib/colors';
import { formatFraction, formatUsd, nodePoolLabel } from '../../../lib/format';
import { idleRatesText } from '../../../lib/idle-weighting';
import type { MixItem, NodePoolCard } from '../utils/nodepool-cards';
import { NodePoolLimits } from './nodepool-limits';

const pct = (v: number | null): string => (v === null ? '—' : formatFraction(v));
const usd = (v: number | null): string => (v === null ? '—' : formatUsd(v));

function Mix({ mix, total }: { mix: readonly MixItem[]; total: number }) {
  if (total === 0) return <p className="card-note">No nodes at this snapshot.</p>;
  return (
    <ul className="mix" aria-label="Instance types at the snapshot">
      {mix.map((m) => (
        <li key={m.instanceType}>
          <span className="mix-name">{m.instanceType}</span>
          <span className="mix-bar" aria-hidden="true">
            <span style={{ width: `${(m.count / total) * 100}%` }} />
          </span>
          <span className="mix-count">
            {m.count}
            {m.spot > 0 ? ` (${m.spot} spot)` : ''}
          </span>
        </li>
      ))}
    </ul>
  );
}

function Card({ card, color }: { card: NodePoolCard; color: string }) {
  const s = card.spec;
  return (
    <article className="card" aria-labelledby={`card-${card.name || 'none'}`} data-testid="nodepool-card">
      <header className="card-header" style={{ borderTopColor: color }}>
        <h3 id={`card-${card.name || 'none'}`}>{nodePoolLabel(card.name, 'nodes')}</h3>
        {s === null ? <span className="card-note">Nodes Karpenter did not launch (a managed node group)</span> : null}
      </header>
      {s === null ? null : (
        <dl className="spec">
          <div className="spec-wide">
            <dt>Consolidation</dt>
            <dd>
              {s.consolidationPolicy ?? '—'}
              {s.consolidateAfter === null ? '' : ` after ${s.consolidateAfter}`}
            </dd>
          </div>
          <div>
            <dt>Weight</dt>
            <dd>{s.weight ?? 'none'}</dd>
          </div>
          <div>
            <dt>Capacity types</dt>
            <dd>{s.capacityTypes.length === 0 ? 'any' : s.capacityTypes.join(', ')}</dd>
          </div>
          <div>
            <dt>NodeClass</dt>
            <dd>{s.nodeClass ?? '—'}</dd>
          </div>
          <div>
            <dt>Expire after</dt>
            <dd>{s.expireAfter ?? '—'}</dd>
          </div>
        </dl>
      )}
      {s === null ? null : <NodePoolLimits spec={s} />}
      <dl className="card-figures">
        <div>
          <dt>Cost (estimate)</dt>
          <dd>{usd(card.costUsd)}</dd>
        </div>
        <div>
          <dt>Bill</dt>
          <dd data-testid="card-bill">{usd(card.billUsd)}</dd>
        </div>
        <div>
          <dt>of which storage and network</dt>
          <dd>{usd(card.billStorageNetworkUsd)}</dd>
        </div>
        {card.cur === null ? null : (
          <div className="spec-wide" data-testid="card-cur">
            <dt>Bill from the CUR</dt>
            <dd>
              {usd(card.cur.totalUsd)}
              <span className="sub">
                instances {usd(card.cur.instancesUsd)} · volumes {usd(card.cur.volumesUsd)} · data transfer {usd(card.cur.dataTransferUsd)}
                {card.cur.otherUsd === 0 ? '' : ` · other ${usd(card.cur.otherUsd)}`}
              </span>
            </dd>
          </div>
        )}
        <div>
          <dt>Nodes (avg)</dt>
          <dd>{card.nodesAvg === null ? '—' : card.nodesAvg.toFixed(1)}</dd>
        </div>
        <div>
          <dt>CPU packed</dt>
          <dd>{pct(card.cpu)}</dd>
        </div>
        <div>
          <dt>Memory packed</dt>
          <dd>{pct(card.memory)}</dd>
        </div>
        <div>
          <dt>Idle per hour</dt>
          <dd>
            {usd(card.idleUsdPerHour)}
            {card.idleRates === null ? null : <span className="sub idle-rates">{idleRatesText(card.idleRates)}</span>}
          </dd>
        </div>
        <div>
          <dt>Spot savings</dt>
          <dd>{card.savingsUsd === null || card.savingsUsd === 0 ? '—' : usd(card.savingsUsd)}</dd>
        </div>
      </dl>
      <h4 className="card-subhead">
        Instance mix now · {card.nodesNow} node{card.nodesNow === 1 ? '' : 's'}
      </h4>
      <Mix mix={card.mix} total={card.nodesNow} />
    </article>
  );
}

/** One card per NodePool: its policy, money and packing over the range, and its instance types now. */
export function NodePoolCards({ cards, colors }: { cards: readonly NodePoolCard[]; colors: NodePoolColors }) {
  return (
    <div className="cards">
      {/* Under All clusters two clusters' NodePools can share a name: the place in the list tells them apart. */}
      {cards.map((c, i) => (
        <Card key={`${c.name}#${i}`} card={c} color={colorOf(c.name, colors)} />
      ))}
    </div>
  );
}
