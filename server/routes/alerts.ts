import type { FastifyInstance } from 'fastify';
import type { AlertService } from '../services/alert-service.js';
import { apiRoutes } from './api-route.js';

/** Alerts: what fired, why (a sentence with its figures), where the dashboard explains it, and how delivery went. */
export async function alertRoutes(app: FastifyInstance, opts: { alerts: AlertService }): Promise<void> {
  const { alerts } = opts;
  const routes = apiRoutes(app, 'alerts');

  routes.get(
    '/api/alerts',
    {
      summary:
        'Alerts that fired, open and past (newest first), each with its sentence, figures, the page and range that explain it, and its deliveries',
      description:
        'Rules are evaluated by the collector after each snapshot and bill refresh; `state=open` gives the firing ones only, `rule` one rule. ' +
        'Webhook targets are shown by origin only (a Slack webhook keeps its secret in the path). Not a table: JSON only.',
    },
    (q, c) => alerts.list(q, c.clusterId),
  );

  routes.get(
    '/api/alerts/settings',
    {
      summary: 'Every alert rule with what it watches, its threshold and hold time (the stored settings over the defaults)',
      description:
        'Stored under the settings key alerts.settings (JSON); a field that does not apply is listed in `problems`. Not a table: JSON only.',
    },
    () => alerts.settings(),
  );
}
