import type { FastifyInstance } from 'fastify';
import type { ReportsService } from '../services/reports-service.js';
import { apiRoutes } from './api-route.js';

/** Status: where the data comes from and how fresh it is. */
export async function statusRoutes(app: FastifyInstance, opts: { reports: ReportsService }): Promise<void> {
  const { reports } = opts;
  const routes = apiRoutes(app, 'status');

  routes.get(
    '/api/status',
    {
      summary: 'Where the data comes from (sandbox or an AWS account), the range it covers, and the last collection of each kind',
      description:
        'Also the default range the range routes use when `from`/`to` are left out, row counts, and the database file: its size, ' +
        'how long 5-minute and hourly snapshots are kept, what is folded so far and the last retention pass. Not a table: JSON only.',
    },
    () => reports.status(),
  );

  routes.get(
    '/api/clusters',
    {
      summary: 'The clusters of the ledger: name, account, region, and how fresh each one is (last snapshot, cadence, stale)',
      description:
        'A cluster is stale when its newest snapshot is more than three of its own cadences (at least 15 minutes) older than the newest snapshot of any cluster. ' +
        'The names are what `?cluster=` takes on every route. Not a table: JSON only.',
    },
    () => reports.clusters(),
  );
}
