import type { RangeQuery } from '@schemas/common';
import { Pager } from '../../../components/ui/pager';
import { Panel } from '../../../components/ui/panel';
import { Segmented } from '../../../components/ui/segmented';
import { EmptyState, ErrorState, LoadingState } from '../../../components/ui/state-message';
import { formatCount, formatUtcDateTime, nodePoolLabel } from '../../../lib/format';
import { useEvents } from '../api/use-consolidation';
import { DISRUPTION_REASONS, type DisruptionReason } from '../utils/compare-state';
import { EVENT_PAGE_SIZES, eventPageCount, eventsPageQuery, type EventsPage } from '../utils/events-page';
import { reasonColor, reasonText } from '../utils/reasons';

interface EventsPanelProps {
  query: RangeQuery | undefined;
  reason: DisruptionReason | undefined;
  selected: string | undefined;
  page: EventsPage;
  onPage: (page: number) => void;
  onPageSize: (size: number) => void;
  onReason: (reason: DisruptionReason | undefined) => void;
  onPick: (id: string) => void;
}

type ReasonChoice = DisruptionReason | 'all';
const REASON_OPTIONS: { value: ReasonChoice; label: string }[] = [
  { value: 'all', label: 'All' },
  ...DISRUPTION_REASONS.map((r) => ({ value: r, label: r })),
];

/** The disruptions of the range, oldest first, a page at a time; pick one to compare before and after it. */
export function EventsPanel({ query, reason, selected, page, onPage, onPageSize, onReason, onPick }: EventsPanelProps) {
  const events = useEvents(query, reason, eventsPageQuery(page));
  const total = events.data?.total ?? 0;
  const pages = eventPageCount(total, page.pageSize);
  const body = (() => {
    if (query === undefined || events.isPending) return <LoadingState label="Loading disruptions…" />;
    if (events.isError)
      return <ErrorState title="Could not load the disruptions." error={events.error} onRetry={() => void events.refetch()} />;
    if (events.data.rows.length === 0 && total > 0) {
      return (
        <EmptyState title="No disruptions on this page.">
          <button type="button" className="button" onClick={() => onPage(1)}>
            Go to the first page
          </button>
        </EmptyState>
      );
    }
    if (events.data.rows.length === 0) {
      return (
        <EmptyState title="No disruptions in this range.">
          Karpenter removed no node{reason === undefined ? '' : ` for ${reason}`} here. Try a longer range
          {reason === undefined ? '' : ' or all reasons'}; or click the timeline to compare around any time.
        </EmptyState>
      );
    }
    // "All clusters" of a ledger of several: each row names its cluster.
    const byCluster = events.data.rows.some((e) => e.cluster !== undefined);
    return (
      <>
        <ul className="reason-legend" aria-label="Disruptions per reason, all pages" data-testid="events-counts">
          {events.data.counts.map((c) => (
            <li key={c.reason} title={reasonText(c.reason)}>
              <span className="swatch swatch-line" style={{ background: reasonColor(c.reason) }} />
              {c.reason || 'Other'}: {formatCount(c.count)}
            </li>
          ))}
        </ul>
        <div className="table-scroll events-scroll">
          <table className="data-table" data-testid="events-table">
            <caption className="visually-hidden">Disruptions, oldest first</caption>
            <thead>
              <tr>
                {byCluster ? <th scope="col">Cluster</th> : null}
                <th scope="col">Time (UTC)</th>
                <th scope="col">NodePool</th>
                <th scope="col">Reason</th>
                <th scope="col">Action</th>
                <th scope="col">Node</th>
                <th scope="col">Instance</th>
                <th scope="col">Replaced by</th>
                <th scope="col">
                  <span className="visually-hidden">Compare</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {events.data.rows.map((e) => (
                <tr key={`${e.cluster ?? ''}/${e.id}`} className={e.id === selected ? 'is-selected' : undefined}>
                  {byCluster ? <td data-testid="event-cluster">{e.cluster ?? '—'}</td> : null}
                  <td className="period">{formatUtcDateTime(e.atMs)}</td>
                  <td>{nodePoolLabel(e.nodePool, 'nodes')}</td>
                  <td title={reasonText(e.reason)}>
                    <span className="swatch swatch-line" style={{ background: reasonColor(e.reason) }} />
                    {e.reason}
                    {e.spotInterrupted ? ' (spot)' : ''}
                  </td>
                  <td>{e.action ?? '—'}</td>
                  <td className="node-name">
                    <span title={e.nodeName ?? undefined}>{e.nodeClaim ?? e.nodeName ?? '—'}</span>
                  </td>
                  <td>
                    {e.instanceType ?? '—'}
                    <span className="sub">{e.capacityType ?? ''}</span>
                  </td>
                  <td>{e.replacements.length === 0 ? '—' : e.replacements.join(', ')}</td>
                  <td>
                    <button type="button" className="button" aria-pressed={e.id === selected} onClick={() => onPick(e.id)}>
                      {e.id === selected ? 'Compared' : 'Compare'}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <Pager
          page={Math.min(page.page, pages)}
          pageCount={pages}
          total={total}
          pageSize={page.pageSize}
          pageSizes={EVENT_PAGE_SIZES}
          noun="disruptions"
          onPage={onPage}
          onPageSize={onPageSize}
        />
      </>
    );
  })();
  return (
    <Panel
      title={events.data === undefined ? 'Disruptions' : `Disruptions (${formatCount(total)})`}
      subtitle="Nodes Karpenter removed or replaced, from its events and the NodeClaims' lifetimes."
      actions={
        <Segmented<ReasonChoice>
          label="Reason"
          value={reason ?? 'all'}
          options={REASON_OPTIONS}
          onChange={(r) => onReason(r === 'all' ? undefined : r)}
        />
      }
    >
      <div className={events.isFetching && !events.isPending ? 'panel-body is-refreshing' : 'panel-body'}>{body}</div>
    </Panel>
  );
}
