import { useMemo, useState } from 'react';
import { Panel } from '../../../components/ui/panel';
import { SortHeader } from '../../../components/ui/sort-header';
import { EmptyState, ErrorState, LoadingState } from '../../../components/ui/state-message';
import { apiUrl } from '../../../lib/api-client';
import { formatIsoUtc, formatUsd, formatUsdPerHour } from '../../../lib/format';
import { useWhyNot } from '../api/use-whatif';
import { sortDecisions, type DecisionSort } from '../utils/decision-sort';
import { KarpenterSaidCell, KarpenterSaidHeader, useKarpenterSaid } from './KarpenterSaid';

type Command = NonNullable<ReturnType<typeof useWhyNot>['data']>['command'];

/** What Karpenter's next round would run, in words. */
const commandText = (cmd: Command): string =>
  cmd === null
    ? 'Karpenter’s next round would do nothing.'
    : `Karpenter’s next round: ${cmd.action} ${cmd.candidates.join(', ')} (${cmd.reason}, ${cmd.method}), saving ${formatUsdPerHour(cmd.savingsUsdPerHour)}/h${cmd.replacement === null ? '' : `, replaced by ${cmd.replacement.instanceType} ${cmd.replacement.capacityType}`}.`;

const DECISION_TEXT = { delete: 'Delete', replace: 'Replace', keep: 'Keep' } as const;

/**
 * Rows drawn before "Show all": at the envelope the round decides 5,000 nodes, and drawing them all held the Savings
 * page's first render for seconds (npm run bench, first-render). The rows are sorted first, so the first ones are the
 * ones the sort asks for; the CSV has every node.
 */
export const WHY_NOT_ROWS_SHOWN = 200;

/** Per node: the next consolidation round's decision or why the node stays, and what keeping it costs. Sortable. */
export function WhyNotPanel({ at }: { at: string | undefined }) {
  const query = at === undefined ? {} : { at };
  const whyNot = useWhyNot(query);
  const sections = useMemo(
    () =>
      whyNot.data === undefined
        ? []
        : (whyNot.data.clusters ?? [{ cluster: undefined, snapshotAt: whyNot.data.snapshotAt }]).map((c) => ({
            cluster: c.cluster,
            snapshotAt: c.snapshotAt,
          })),
    [whyNot.data],
  );
  const said = useKarpenterSaid(sections);
  const [sort, setSort] = useState<DecisionSort>('usdPerHour');
  const [order, setOrder] = useState<'asc' | 'desc'>('desc');
  const [showAll, setShowAll] = useState(false);
  const rows = useMemo(() => (whyNot.data === undefined ? [] : sortDecisions(whyNot.data.nodes, sort, order)), [whyNot.data, sort, order]);
  const onSort = (c: DecisionSort) => {
    if (c === sort) setOrder(order === 'asc' ? 'desc' : 'asc');
    else {
      setSort(c);
      setOrder(c === 'usdPerHour' ? 'desc' : 'asc');
    }
  };

  const body = (() => {
    if (whyNot.isPending) return <LoadingState label="Simulating the consolidation round…" />;
    if (whyNot.isError)
      return <ErrorState title="Could not simulate consolidation." error={whyNot.error} onRetry={() => void whyNot.refetch()} />;
    if (rows.length === 0) return <EmptyState title="No nodes at this snapshot.">Collect first, or pick a later time.</EmptyState>;
    const sections = whyNot.data.clusters;
    const shown = showAll ? rows : rows.slice(0, WHY_NOT_ROWS_SHOWN);
    return (
      <>
        {sections === undefined ? (
          <p className="simulation-note">
            Simulation · snapshot {formatIsoUtc(whyNot.data.snapshotAt)} · {commandText(whyNot.data.command)}
          </p>
        ) : (
          // Every cluster of several: each cluster's own Karpenter decides its own round, on its own snapshot.
          sections.map((c) => (
            <p key={c.cluster} className="simulation-note" data-testid={`why-not-cluster-${c.cluster}`}>
              {c.cluster} · simulation · snapshot {formatIsoUtc(c.snapshotAt)} · {commandText(c.command)}
            </p>
          ))
        )}
        <div className="table-scroll">
          <table className="data-table" data-testid="why-not-table">
            <caption>
              Why not consolidated, per node (simulation at {formatIsoUtc(whyNot.data.snapshotAt)}), sorted by {sort}{' '}
              {order === 'asc' ? 'ascending' : 'descending'}
            </caption>
            <thead>
              <tr>
                {sections === undefined ? null : <th scope="col">Cluster</th>}
                <SortHeader column="node" sort={sort} order={order} onSort={onSort}>
                  Node
                </SortHeader>
                <SortHeader column="nodePool" sort={sort} order={order} onSort={onSort}>
                  NodePool
                </SortHeader>
                <th scope="col">Instance</th>
                <th scope="col" className="num">
                  Pods
                </th>
                <SortHeader column="usdPerHour" sort={sort} order={order} onSort={onSort} className="num">
                  Cost to keep
                </SortHeader>
                <SortHeader column="decision" sort={sort} order={order} onSort={onSort}>
                  Decision
                </SortHeader>
                <SortHeader column="reason" sort={sort} order={order} onSort={onSort}>
                  Reason
                </SortHeader>
                <KarpenterSaidHeader />
              </tr>
            </thead>
            <tbody>
              {shown.map((n) => (
                <tr key={`${n.cluster ?? ''}/${n.node}`} data-node={n.node} data-cluster={n.cluster}>
                  {sections === undefined ? null : <td>{n.cluster}</td>}
                  <th scope="row">{n.node}</th>
                  <td>{n.nodePool ?? '(not Karpenter’s)'}</td>
                  <td>
                    {n.instanceType ?? '?'} {n.capacityType ?? ''}
                  </td>
                  <td className="num">{n.pods}</td>
                  <td className="num" data-usd-per-hour={n.usdPerHour ?? ''}>
                    {n.usdPerHour === null ? 'unpriced' : `${formatUsdPerHour(n.usdPerHour)}/h · ${formatUsd(n.usdPerMonth ?? 0)}/mo`}
                  </td>
                  <td>{DECISION_TEXT[n.decision]}</td>
                  <td>
                    {n.reason}
                    {n.wording === 'ledger' ? <small title="Karpenter says nothing here: the ledger’s words"> (ledger)</small> : null}
                  </td>
                  <KarpenterSaidCell said={said(n.cluster, n.node)} engine={n.decision} />
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {shown.length < rows.length ? (
          <p className="table-more">
            {shown.length.toLocaleString('en-US')} of {rows.length.toLocaleString('en-US')} nodes shown, by the sort above.{' '}
            <button type="button" className="button" onClick={() => setShowAll(true)}>
              Show all {rows.length.toLocaleString('en-US')}
            </button>
          </p>
        ) : null}
      </>
    );
  })();

  return (
    <Panel
      title="Why not consolidated (simulation)"
      subtitle="Each node: the decision of Karpenter’s next consolidation round, or the reason it stays — in Karpenter’s own words where it has them — and what keeping it costs."
      actions={
        <a className="button" href={apiUrl('/api/whatif/why-not', { ...query, format: 'csv' })} download>
          CSV
        </a>
      }
    >
      {body}
    </Panel>
  );
}
