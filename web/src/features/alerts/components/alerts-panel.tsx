import type { AlertView } from '@schemas/alerts';
import { Panel } from '../../../components/ui/panel';
import { EmptyState, ErrorState, LoadingState } from '../../../components/ui/state-message';
import { currentCluster } from '../../../lib/cluster';
import { formatIsoUtc } from '../../../lib/format';
import { Link } from '../../../lib/router';
import { useAlerts } from '../api/use-alerts';

const deliveryText = (a: AlertView): string =>
  a.deliveries.length === 0
    ? 'not sent (no webhook set)'
    : a.deliveries
        .map(
          (d) =>
            `${d.transition} → ${d.target}: ${d.status}${d.attempts > 1 ? ` after ${d.attempts} attempts` : ''}${d.lastError === null ? '' : ` (${d.lastError})`}`,
        )
        .join('; ');

function AlertRows({ alerts, testId }: { alerts: readonly AlertView[]; testId: string }) {
  // All clusters of a ledger holding several: the cluster each alert is about (null: the whole ledger's rules).
  const showCluster = currentCluster() === undefined && alerts.some((a) => a.cluster !== undefined);
  return (
    <table className="data-table" data-testid={testId}>
      <thead>
        <tr>
          <th>Rule</th>
          {showCluster ? <th>Cluster</th> : null}
          <th>Subject</th>
          <th>Why</th>
          <th>Firing since</th>
          <th>Resolved</th>
          <th>Explained by</th>
          <th>Delivery</th>
        </tr>
      </thead>
      <tbody>
        {alerts.map((a) => (
          <tr key={a.id} data-rule={a.rule}>
            <td>{a.rule}</td>
            {showCluster ? <td>{a.cluster ?? 'whole ledger'}</td> : null}
            <td>{a.subject}</td>
            <td>{a.sentence}</td>
            <td>{formatIsoUtc(a.firingSince)}</td>
            <td>{a.resolvedAt === null ? '—' : formatIsoUtc(a.resolvedAt)}</td>
            <td>
              <Link to={a.link.href}>{a.link.label}</Link>
            </td>
            <td>{deliveryText(a)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Open alerts first, then the past ones, each with the sentence that says why and a link to the page that explains it. */
export function AlertsPanel() {
  const alerts = useAlerts();
  if (alerts.isPending) return <LoadingState label="Loading alerts…" />;
  if (alerts.isError) return <ErrorState title="Could not load the alerts." error={alerts.error} onRetry={() => void alerts.refetch()} />;
  const open = alerts.data.alerts.filter((a) => a.state === 'firing');
  const past = alerts.data.alerts.filter((a) => a.state === 'resolved');
  return (
    <>
      <Panel title={`Open (${open.length})`} subtitle="Firing now: the condition has held for the rule's hold time and not cleared since.">
        {open.length === 0 ? (
          <EmptyState title="Nothing is firing.">Rules are evaluated by the collector after each snapshot and bill refresh.</EmptyState>
        ) : (
          <AlertRows alerts={open} testId="alerts-open" />
        )}
      </Panel>
      <Panel title={`Past (${past.length})`} subtitle="Fired and resolved, newest first.">
        {past.length === 0 ? (
          <EmptyState title="No past alerts.">None has fired and resolved yet.</EmptyState>
        ) : (
          <AlertRows alerts={past} testId="alerts-past" />
        )}
      </Panel>
    </>
  );
}
