import type { FastifyInstance } from 'fastify';
import type { CurCostService } from '../services/cur-cost-service.js';
import type { NodePoolCostService } from '../services/nodepool-cost-service.js';
import type { ReportsService } from '../services/reports-service.js';
import { apiRoutes } from './api-route.js';

/** Cost: the bill and our estimate per day, and why they differ. */
export async function costRoutes(
  app: FastifyInstance,
  opts: { reports: ReportsService; nodePoolCost: NodePoolCostService; curCost: CurCostService },
): Promise<void> {
  const { reports, nodePoolCost, curCost } = opts;
  const routes = apiRoutes(app, 'cost');

  routes.get(
    '/api/cost/nodepools/daily',
    {
      summary:
        'Cost per UTC day x NodePool x purchase kind: the Cost Explorer bill (all four metrics; billUsd in `metric`) beside our estimate, volumes and data transfer as a storage-network band',
      description:
        'Whole UTC days (`from` rounded down, `to` up). Untagged bill lines are NodePool "". `metric` = unblended | amortized | net-unblended | net-amortized; default amortized when commitments apply in the range, else unblended.',
      csv: { fileName: 'cost-nodepools-daily', table: (b) => b.rows },
    },
    (q, c) => reports.dailyCost(q, c.clusterId),
  );

  routes.get(
    '/api/reconciliation/daily',
    {
      summary:
        'The bill (in `metric`) beside our estimate per day x NodePool x purchase kind, the difference and its likely cause, and the whole gap split by cause with amounts',
      csv: { fileName: 'reconciliation-daily', table: (b) => b.rows },
    },
    (q, c) => nodePoolCost.reconciliation(q, c.clusterId),
  );

  routes.get(
    '/api/cost/cur/daily',
    {
      summary:
        'The NodePool bill from the Cost and Usage Report per UTC day x NodePool x category (instances, volumes, data transfer, other) in `metric`, and per day the CUR beside Cost Explorer and our estimate',
      description:
        "Whole UTC days; each billing period read from the import made last. `metric` as /api/cost/nodepools/daily (default amortized when commitments apply). NodePool \"\" = lines with neither the tag nor a NodeClaim we know by instance id. `cluster` on a ledger of several clusters: the lines whose cluster tag (eks:eks-cluster-name) is its name, beside its own Cost Explorer lines and estimate (untagged lines are no one cluster's: a note says how much); without it, every line, each row and NodePool total naming its cluster tag ('' = none). CSV: the rows.",
      csv: { fileName: 'cost-cur-daily', table: (b) => b.rows },
    },
    (q, ctx) => curCost.daily(q, ctx.clusterId),
  );
}
