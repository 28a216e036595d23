import { PageHeader } from '../components/ui/page-header';
import { AlertRulesPanel } from '../features/alerts/components/alert-rules-panel';
import { AlertsPanel } from '../features/alerts/components/alerts-panel';

/** Alerts: what fired and why, with the page that explains each; the rules behind them. Composes only. */
export default function AlertsPage() {
  return (
    <>
      <PageHeader title="Alerts" question="What went wrong, when, and why? Each alert links to the page and range that explain it." />
      <div className="panels">
        <AlertsPanel />
        <AlertRulesPanel />
      </div>
    </>
  );
}
