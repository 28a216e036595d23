import type { CostExplorerClient } from '@aws-sdk/client-cost-explorer';
import { checkCostAllocationTags, chooseClusterTag } from '../../collectors/cost-explorer/allocation-tags.js';
import { createCostExplorerClient } from '../../collectors/cost-explorer/client.js';
import { collectCostExplorer } from '../../collectors/cost-explorer/collect.js';
import { TAG_NODEPOOL } from '../../core/labels.js';
import type { RegionFacts } from '../../core/partitions.js';
import { DAY_MS, HOUR_MS } from '../../core/time.js';
import { createApiRequestsRepository } from '../../db/repositories/api-requests-repository.js';
import { ALLOCATION_TAGS_SETTING, createRunsRepository } from '../../db/repositories/runs-repository.js';
import { ProgressBar } from '../progress.js';
import { type CollectContext, errorText } from './context.js';
import { every, type Stage } from './stage.js';

const NAME = 'cost-explorer';
/** Cost Explorer refreshes the bill a few times a day: asking more often only costs requests. */
export const CE_REFRESH_MS = 8 * HOUR_MS;
/** An account that refused HOURLY or per-instance data is asked again after this long (it may have opted in). */
export const OPT_IN_RETRY_MS = DAY_MS;

/**
 * The Cost Explorer stage, every 8 h: the cost allocation tags, then the bill of the last --since (days already
 * final are never asked again); HOURLY and per-instance data unless the account refused them lately.
 */
export function costExplorerStage(
  ctx: CollectContext,
  opts: {
    /**
     * The AWS profile the bill is read with: a clusters file entry's `profile` (its account's), else --billing-profile,
     * else the default chain.
     */
    profile?: string;
    /** A clusters file entry's `roleArn`: the bill is read as that role (AssumeRole, the source credentials `profile`'s). */
    roleArn?: string;
    /** A progress bar on stderr (off while other accounts' stages run beside this one: one line redrawn in place). */
    progress?: boolean;
  } = {},
): Stage {
  const cadence = every(CE_REFRESH_MS);
  let client: CostExplorerClient | null = null;
  const profile = opts.profile ?? ctx.o.billingProfile;
  const roleArn = opts.roleArn;

  /**
   * The Cost Explorer client where the partition keeps the bill: us-east-1 (aws), cn-northwest-1 (aws-cn), the
   * associated standard account's us-east-1 for GovCloud (its credentials from --billing-profile). The region the
   * SDK is given picks the endpoint; AWS_ENDPOINT_URL_COST_EXPLORER still overrides it.
   */
  const ce = (facts: RegionFacts | null): CostExplorerClient => {
    if (client) return client;
    const created = createCostExplorerClient({
      region: facts?.costExplorer.region,
      ...(profile !== undefined ? { profile } : {}),
      ...(roleArn !== undefined ? { roleArn } : {}),
    });
    client = ctx.keep(ctx.counter.attach(created, 'ce'));
    return client;
  };

  return {
    name: NAME,
    due: cadence.due,
    async run(t) {
      cadence.ran(t);
      if (!ctx.stillHeld()) return;
      const facts = ctx.facts();
      if (facts?.costExplorer.otherAccount === true && profile === undefined && roleArn === undefined) {
        // Not a failure: the bill is in another account, which these credentials cannot read. Estimates go on.
        ctx.note(
          `! no bill read for ${facts.region}: ${facts.costExplorer.note}; pass --billing-profile <profile of that account> to read it (estimates are collected meanwhile)`,
        );
        return;
      }
      if (facts) ctx.checkCurrency(facts);
      const api = ce(facts);
      const runs = createRunsRepository(ctx.db);
      const requests = createApiRequestsRepository(ctx.db);
      const runId = runs.startRun('cost-explorer', ctx.source);
      const now = ctx.now();
      try {
        const tags = await checkCostAllocationTags(api, ctx.o.cluster, {
          onRequest: () => requests.recordApiRequest({ runId, at: now, service: 'ce', operation: 'ListCostAllocationTags' }),
        });
        const choice = chooseClusterTag(ctx.o.cluster, tags);
        // Kept for "explain this bill": a line can only be split by NodePool while the tag is active.
        runs.setSetting(ALLOCATION_TAGS_SETTING, JSON.stringify({ active: tags.active, inactive: tags.inactive, checkedAt: now }));
        if (!tags.active.includes(TAG_NODEPOOL)) {
          ctx.err(
            `! ${TAG_NODEPOOL} is not an active cost allocation tag: all cost shows as untagged until it is activated (run 'nodepool-ledger doctor')`,
          );
        }
        if (!choice.active) {
          ctx.err(
            `! neither eks:eks-cluster-name nor kubernetes.io/cluster/${ctx.o.cluster} is an active cost allocation tag: the bill filtered by cluster will be empty (run 'nodepool-ledger doctor')`,
          );
        }
        const refused = (key: string): boolean => {
          const at = runs.getSetting(key);
          return at !== null && now - Number(at) < OPT_IN_RETRY_MS;
        };
        const queries = 2 + (refused('ce.hourly.refusedAt') ? 0 : 1) + (refused('ce.resources.refusedAt') ? 0 : 1);
        const bar = ctx.o.quiet || opts.progress === false ? null : new ProgressBar('cost explorer', queries);
        const labels: string[] = [];
        const result = await collectCostExplorer(
          {
            db: ctx.db,
            ce: api,
            currency: facts?.currency ?? 'USD',
            clusterName: ctx.o.cluster,
            clusterId: ctx.clusterId,
            now,
            runId,
            clusterTag: choice.tag,
            hourly: !refused('ce.hourly.refusedAt'),
            resources: !refused('ce.resources.refusedAt'),
            onRequest: ({ query, page }) => {
              if (!labels.includes(query)) labels.push(query);
              bar?.update(labels.length - 1, `${query} page ${page}`);
            },
          },
          { startMs: now - ctx.o.sinceMs, endMs: now },
        );
        bar?.update(queries, 'done');
        for (const q of result.queries) {
          if (q.unavailable === undefined) continue;
          const what = q.granularity === 'HOURLY' ? 'hourly' : 'resources';
          runs.setSetting(`ce.${what}.refusedAt`, String(now));
          ctx.err(
            `! ${q.api} ${q.granularity} x ${q.groupBy} is not available to this account (${q.unavailable}); DAILY lines are kept, asked again in 24 h`,
          );
        }
        ctx.summary.costRuns.push(result);
        ctx.summary.costLines += result.linesWritten;
        ctx.summary.finalPeriodsSkipped += result.queries.reduce((s, q) => s + q.finalSkipped, 0);
        runs.finishRun(runId, 'ok', result.linesWritten);
        ctx.alerts.evaluateAlerts(ctx.now());
      } catch (err) {
        runs.finishRun(runId, 'failed', 0, errorText(err));
        ctx.fail(NAME, 'cost explorer', err);
      }
    },
  };
}
