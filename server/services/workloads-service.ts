import type { AnalyticsPackingRepository } from '../../db/repositories/analytics-packing-repository.js';
import type { UsageRepository, WorkloadPlacementRow } from '../../db/repositories/usage-repository.js';
import { DEFAULT_RIGHTSIZING, recommend, type RightsizingHour } from '../../core/rightsizing.js';
import {
  HALF_AND_HALF,
  monthlyRequestCostUsd,
  namespaceEfficiency,
  requestRates,
  workloadEfficiency,
  type EfficiencyHour,
  type RequestRates,
} from '../../core/usage-efficiency.js';
import { workloadKey } from '../../core/usage.js';
import { DAY_MS, HOUR_MS } from '../../core/time.js';
import { isoInstant, QueryParamError } from '../analytics/range.js';
import type { RecommendationRow, RecommendationsQuery, RecommendationsResponse } from '../schemas/workloads.js';
import { optionalInstant } from './analytics-range.js';

const DEFAULT_WINDOW = '14d';
const MAX_WINDOW_MS = 90 * DAY_MS;

export const DOLLAR_METHOD =
  'By request share: the change in requests times its NodePool’s node cost per requested unit at the newest snapshot (cost split 50/50 into CPU and memory, each over what the pods request), × replicas × 730 h. Nodes are not re-packed (the what-if engine’s re-pack is future work), so this is what request-share attribution would charge, not the bill after consolidation.';

/** `14d` / `36h` -> ms, 1 h to 90 days. */
export function parseUsageWindow(value: string): number {
  const m = /^([1-9][0-9]{0,3})(h|d)$/.exec(value);
  const ms = m === null ? Number.NaN : Number(m[1]) * (m[2] === 'd' ? DAY_MS : HOUR_MS);
  if (!(ms <= MAX_WINDOW_MS)) throw new QueryParamError('window', `"${value}" must be a duration from 1h to 90d, like 14d or 36h`);
  return ms;
}

type Hour = RightsizingHour & EfficiencyHour;

/** Per workload container: its pods at the newest snapshot with usage, and the NodePool most of them ran in. */
function placements(rows: readonly WorkloadPlacementRow[]): Map<string, { nodePool: string; replicas: number }> {
  const out = new Map<string, { nodePool: string; replicas: number; most: number }>();
  for (const r of rows) {
    const key = workloadKey(r);
    const p = out.get(key);
    if (p === undefined) out.set(key, { nodePool: r.nodePool, replicas: r.pods, most: r.pods });
    else {
      p.replicas += r.pods;
      // Ties go to the first by name (rows come sorted), so the answer does not depend on row order.
      if (r.pods > p.most) Object.assign(p, { nodePool: r.nodePool, most: r.pods });
    }
  }
  return out;
}

/** Rows with a saving first (most negative), then the rest, rows without a figure last; ties by name. */
function byEffect(a: RecommendationRow, b: RecommendationRow): number {
  const x = a.monthlyEffectUsd;
  const y = b.monthlyEffectUsd;
  if (x !== y) {
    if (x === null) return 1;
    if (y === null) return -1;
    return x - y;
  }
  const ka = workloadKey(a);
  const kb = workloadKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** Right-sizing recommendations with usage efficiency and their dollar effect by request share. */
export function createWorkloadsService(usage: UsageRepository, packing: AnalyticsPackingRepository) {
  return {
    recommendations(q: RecommendationsQuery): RecommendationsResponse {
      const windowMs = parseUsageWindow(q.window ?? DEFAULT_WINDOW);
      const atMs = optionalInstant('at', q.at);
      const pricesAtMs = packing.snapshotAtOrBefore(atMs);
      const settings = {
        cpuQuantile: DEFAULT_RIGHTSIZING.cpuQuantile,
        memoryBuffer: DEFAULT_RIGHTSIZING.memoryBuffer,
        minCpuMillicores: DEFAULT_RIGHTSIZING.minCpuMillicores,
        minMemoryBytes: DEFAULT_RIGHTSIZING.minMemoryBytes,
        minHistoryHours: DEFAULT_RIGHTSIZING.minHistoryMs / HOUR_MS,
        cpuWeight: HALF_AND_HALF.cpu,
        memoryWeight: HALF_AND_HALF.memory,
      };
      const endMs = atMs ?? pricesAtMs;
      if (endMs === null || endMs === undefined) {
        return {
          windowFrom: null,
          windowTo: null,
          pricesAt: null,
          dollarMethod: DOLLAR_METHOD,
          settings,
          rows: [],
          namespaces: [],
          totals: { monthlyEffectUsd: 0, idleUsdPerMonth: 0 },
        };
      }
      // [end − window, end]: the hour holding `end` counts.
      const range = { fromMs: endMs - windowMs, toMs: endMs + 1, namespace: q.namespace };

      const rates =
        pricesAtMs === null
          ? new Map<string, RequestRates>()
          : requestRates(
              packing.nodeWindow({ fromMs: pricesAtMs - 1, toMs: pricesAtMs }).map((n) => ({
                nodePool: n.nodePool,
                usdPerHour: n.usdPerHour,
                requestCpuMillicores: n.reqCpuMillicores,
                requestMemoryBytes: n.reqMemoryBytes,
              })),
            );
      const placed = placements(usage.workloadPlacement(range.toMs));

      const hoursOf = new Map<
        string,
        { ref: Hour & { namespace: string; workloadKind: string; workloadName: string; container: string }; hours: Hour[] }
      >();
      for (const h of usage.workloadHours(range)) {
        const key = workloadKey(h);
        const g = hoursOf.get(key);
        if (g === undefined) hoursOf.set(key, { ref: h, hours: [h] });
        else g.hours.push(h);
      }
      const oomLimits = new Map<string, (number | null)[]>();
      for (const k of usage.oomKills(range)) {
        const key = workloadKey(k);
        oomLimits.set(key, [...(oomLimits.get(key) ?? []), k.memoryLimitBytes]);
      }

      const rows: RecommendationRow[] = [];
      for (const [key, { ref, hours }] of hoursOf) {
        const r = recommend({
          namespace: ref.namespace,
          workloadKind: ref.workloadKind,
          workloadName: ref.workloadName,
          container: ref.container,
          hours,
          oomKillLimitsBytes: oomLimits.get(key) ?? [],
          // Container CPU limits are not stored with the rollups; throttling is read from p95 over the request.
          cpuLimitMillicores: null,
        });
        if (r === null) continue;
        const place = placed.get(key);
        const replicas = place?.replicas ?? 0;
        const poolRates = place === undefined ? undefined : rates.get(place.nodePool);
        const eff = workloadEfficiency(
          hours,
          { cpuMillicores: r.currentCpuMillicores, memoryBytes: r.currentMemoryBytes },
          replicas,
          poolRates,
        );
        rows.push({
          namespace: r.namespace,
          workloadKind: r.workloadKind,
          workloadName: r.workloadName,
          container: r.container,
          nodePool: place?.nodePool ?? null,
          replicas,
          currentCpuMillicores: r.currentCpuMillicores,
          currentMemoryBytes: r.currentMemoryBytes,
          recommendedCpuMillicores: r.recommendedCpuMillicores,
          recommendedMemoryBytes: r.recommendedMemoryBytes,
          deltaCpuMillicores: r.deltaCpuMillicores,
          deltaMemoryBytes: r.deltaMemoryBytes,
          cpuQuantileMillicores: r.cpuQuantileMillicores,
          cpuMaxMillicores: r.cpuMaxMillicores,
          memoryMaxBytes: r.memoryMaxBytes,
          oomPeakBytes: r.oomPeakBytes,
          historyHours: r.historyMs / HOUR_MS,
          samples: r.samples,
          flags: r.flags,
          cpuUsageOverRequest: eff.cpuUsageOverRequest,
          memoryUsageOverRequest: eff.memoryUsageOverRequest,
          idleUsdPerMonth: eff.idleUsdPerMonth,
          monthlyEffectUsd: monthlyRequestCostUsd(r.deltaCpuMillicores, r.deltaMemoryBytes, replicas, poolRates),
        });
      }
      rows.sort(byEffect);
      const namespaces = namespaceEfficiency(usage.namespaceUsage(range), rows);
      return {
        windowFrom: isoInstant(range.fromMs),
        windowTo: isoInstant(endMs),
        pricesAt: pricesAtMs === null ? null : isoInstant(pricesAtMs),
        dollarMethod: DOLLAR_METHOD,
        settings,
        rows,
        namespaces,
        totals: {
          monthlyEffectUsd: rows.reduce((s, r) => s + (r.monthlyEffectUsd ?? 0), 0),
          idleUsdPerMonth: rows.reduce((s, r) => s + (r.idleUsdPerMonth ?? 0), 0),
        },
      };
    },
  };
}

export type WorkloadsService = ReturnType<typeof createWorkloadsService>;
