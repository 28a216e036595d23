import { Panel } from '../../../components/ui/panel';
import { ErrorState, LoadingState } from '../../../components/ui/state-message';
import { useAlertSettings } from '../api/use-alerts';

/** Every rule, what it watches, its threshold and hold time. */
export function AlertRulesPanel() {
  const s = useAlertSettings();
  return (
    <Panel title="Rules" subtitle="Thresholds and hold times (the settings key alerts.settings over the defaults).">
      {s.isPending ? (
        <LoadingState label="Loading rules…" />
      ) : s.isError ? (
        <ErrorState title="Could not load the rules." error={s.error} />
      ) : (
        <table className="data-table" data-testid="alert-rules">
          <thead>
            <tr>
              <th>Rule</th>
              <th>Watches</th>
              <th>Threshold</th>
              <th>Hold</th>
              <th>On</th>
            </tr>
          </thead>
          <tbody>
            {s.data.rules.map((r) => (
              <tr key={r.rule}>
                <td>{r.rule}</td>
                <td>{r.description}</td>
                <td>{r.threshold}</td>
                <td>{r.holdMinutes} min</td>
                <td>{r.enabled ? 'yes' : 'no'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Panel>
  );
}
