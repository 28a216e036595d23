import type { CostExplorerClient } from '@aws-sdk/client-cost-explorer';
import { checkCostAllocationTags } from '../../collectors/cost-explorer/allocation-tags.js';
import { createCostExplorerClient } from '../../collectors/cost-explorer/client.js';
import { collectAccountCostExplorer } from '../../collectors/cost-explorer/collect-account.js';
import { TAG_CLUSTER_NAME, TAG_NODEPOOL } from '../../core/labels.js';
import type { Cluster } from '../../db/repositories/clusters-repository.js';
import { createApiRequestsRepository } from '../../db/repositories/api-requests-repository.js';
import { ALLOCATION_TAGS_SETTING, createRunsRepository } from '../../db/repositories/runs-repository.js';
import { type CollectContext, errorText } from './context.js';
import { CE_REFRESH_MS, costExplorerStage, OPT_IN_RETRY_MS } from './cost-explorer.js';
import { every, type Stage } from './stage.js';

/**
 * `collect --clusters`: Cost Explorer once per account, not once per cluster. Clusters read with the same AWS
 * credentials (the entry's profile, else --billing-profile, else the default chain; a role entry apart) see the
 * same bill: one stage per such group. A group of one cluster runs today's one-cluster stage; a group of several
 * runs collectAccountCostExplorer (filter cluster tag IN the group, grouped by [cluster tag, NodePool tag]; the
 * instance-type, hourly and per-instance lines per cluster). The HOURLY and per-instance opt-ins are remembered as
 * refused as for one cluster (one setting for the ledger: an account that refuses is asked again in 24 h).
 */

export interface ClusterMember {
  cluster: Cluster;
  ctx: CollectContext;
}

/** The credentials a cluster's bill is read with: clusters sharing them share one Cost Explorer. */
const accountKey = (run: CollectContext, c: Cluster): string =>
  c.roleArn !== null ? `role:${c.roleArn}` : `profile:${c.awsProfile ?? run.o.billingProfile ?? ''}`;

/**
 * What a cluster's bill is read with: the entry's profile, else --billing-profile, else the default chain; an entry's
 * role is assumed with the credentials of --billing-profile, else the default chain's (its entry has no profile).
 */
function credentialsOf(run: CollectContext, c: Cluster): { profile?: string; roleArn?: string } {
  const profile = c.awsProfile ?? run.o.billingProfile;
  return { ...(profile != null ? { profile } : {}), ...(c.roleArn !== null ? { roleArn: c.roleArn } : {}) };
}

/** The clusters grouped by account (first-seen order). */
export function accountsOf(run: CollectContext, members: readonly ClusterMember[]): ClusterMember[][] {
  const groups = new Map<string, ClusterMember[]>();
  for (const m of members) {
    const k = accountKey(run, m.cluster);
    const g = groups.get(k);
    if (g) g.push(m);
    else groups.set(k, [m]);
  }
  return [...groups.values()];
}

/**
 * One Cost Explorer stage per account: today's for an account of one cluster (read with the entry's profile, as the
 * account's key says), the account's query for several. The stages are independent (collect --clusters runs a few at
 * once: one account's failure is its own).
 */
export function costExplorerStages(run: CollectContext, members: readonly ClusterMember[]): Stage[] {
  const accounts = accountsOf(run, members);
  return accounts.map((group) => {
    if (group.length > 1) return accountStage(run, group);
    const { profile, roleArn } = credentialsOf(run, group[0].cluster);
    return costExplorerStage(group[0].ctx, {
      ...(profile !== undefined ? { profile } : {}),
      ...(roleArn !== undefined ? { roleArn } : {}),
      progress: accounts.length === 1,
    });
  });
}

function accountStage(run: CollectContext, group: readonly ClusterMember[]): Stage {
  const cadence = every(CE_REFRESH_MS);
  const names = group.map((m) => m.cluster.name);
  const label = `cost-explorer (${names.join(', ')})`;
  // The account's bill is read in its partition's Cost Explorer region; its clusters' first region tells which.
  const first = group[0].ctx;
  const { profile, roleArn } = credentialsOf(run, group[0].cluster);
  let client: CostExplorerClient | null = null;
  return {
    name: 'cost-explorer',
    due: cadence.due,
    async run(t) {
      cadence.ran(t);
      if (!run.stillHeld()) return;
      const runs = createRunsRepository(run.db);
      const requests = createApiRequestsRepository(run.db);
      const runId = runs.startRun('cost-explorer', run.source);
      const now = run.now();
      try {
        const facts = first.facts();
        if (facts) run.checkCurrency(facts);
        client ??= run.keep(
          run.counter.attach(
            createCostExplorerClient({
              region: facts?.costExplorer.region,
              ...(profile !== undefined ? { profile } : {}),
              ...(roleArn !== undefined ? { roleArn } : {}),
            }),
            'ce',
          ),
        );
        const tags = await checkCostAllocationTags(client, names[0], {
          onRequest: () => requests.recordApiRequest({ runId, at: now, service: 'ce', operation: 'ListCostAllocationTags' }),
        });
        runs.setSetting(ALLOCATION_TAGS_SETTING, JSON.stringify({ active: tags.active, inactive: tags.inactive, checkedAt: now }));
        if (!tags.active.includes(TAG_NODEPOOL))
          run.err(
            `! ${TAG_NODEPOOL} is not an active cost allocation tag: all cost shows as untagged until it is activated (run 'nodepool-ledger doctor')`,
          );
        if (!tags.active.includes(TAG_CLUSTER_NAME))
          run.err(
            `! ${TAG_CLUSTER_NAME} is not an active cost allocation tag: the bill of ${names.join(', ')} (grouped by it) will be empty (run 'nodepool-ledger doctor')`,
          );
        const refused = (key: string): boolean => {
          const at = runs.getSetting(key);
          return at !== null && now - Number(at) < OPT_IN_RETRY_MS;
        };
        const result = await collectAccountCostExplorer(
          {
            db: run.db,
            ce: client,
            currency: facts?.currency ?? 'USD',
            clusters: group.map((m) => ({ id: m.cluster.id, name: m.cluster.name })),
            now,
            runId,
            hourly: !refused('ce.hourly.refusedAt'),
            resources: !refused('ce.resources.refusedAt'),
          },
          { startMs: now - run.o.sinceMs, endMs: now },
        );
        for (const q of result.queries) {
          if (q.unavailable === undefined) continue;
          const what = q.granularity === 'HOURLY' ? 'hourly' : 'resources';
          runs.setSetting(`ce.${what}.refusedAt`, String(now));
          run.err(
            `! ${q.api} ${q.granularity} x ${q.groupBy} is not available to the account of ${names.join(', ')} (${q.unavailable}); DAILY lines are kept, asked again in 24 h`,
          );
        }
        run.summary.costRuns.push(result);
        run.summary.costLines += result.linesWritten;
        run.summary.finalPeriodsSkipped += result.queries.reduce((s, q) => s + q.finalSkipped, 0);
        runs.finishRun(runId, 'ok', result.linesWritten);
      } catch (err) {
        runs.finishRun(runId, 'failed', 0, errorText(err));
        run.fail('cost-explorer', label, err);
      }
    },
  };
}
