import { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS } from '../../core/time.js';
import type { UsageModel } from '../scenario/usage.js';
import type { EpochMs, Scenario, SimPod } from '../scenario/types.js';
import type { SandboxContext, SandboxHandler, SandboxRequest, SandboxResponse } from './context.js';
import { json } from './context.js';
import { podPhaseAt } from './kube-objects.js';

/**
 * A Prometheus-compatible HTTP API under /prometheus (as a route prefix: Prometheus' --web.route-prefix, or a hosted
 * workspace URL), answering the cAdvisor usage queries the collector sends from the same usage model as the
 * sandbox's metrics-server: `/api/v1/query_range` (resultType matrix, values [unixSeconds, "string"]) and
 * `/api/v1/query` (vector), GET or POST form-encoded, with Prometheus' errors (`{"status":"error","errorType":
 * "bad_data","error":…}`; the 11,000-points-per-series limit; injected faults as 503 `unavailable`).
 *
 * Understood: `sum by (namespace, pod, container) (rate(container_cpu_usage_seconds_total{…}[Nm]))` and
 * `sum by (namespace, pod, container) (container_memory_working_set_bytes{…})`, where the matchers may be
 * `container!=""`, `container!="POD"`, `namespace="…"`, `pod="…"`, `container="…"`. A well-formed query of another
 * metric returns no series, as Prometheus does; anything else is a parse error.
 *
 * `cadvisorJobs` (default none): the scrape jobs that read cAdvisor, each giving every container its own series
 * labelled `job` (a cluster whose kubelets two jobs scrape: the Prometheus Operator's `kubelet` beside a chart's
 * `kubernetes-cadvisor`). Then `/api/v1/label/job/values` lists them, a `job="…"` matcher selects one job's series,
 * and a query without one sums every job's, as Prometheus' `sum by` does (the same figure once per job). Without
 * it the label values endpoint answers 404, as some Prometheus-compatible stores do, and there is no `job` label.
 */

export const PROMETHEUS_PREFIX = '/prometheus';
const MAX_POINTS = 11_000;
const SERIES_RE =
  /^sum\s+by\s*\(\s*namespace\s*,\s*pod\s*,\s*container\s*\)\s*\(\s*(?:rate\(\s*([a-z_:][a-z0-9_:]*)\s*\{([^}]*)\}\s*\[(\d+)([smh])\]\s*\)|([a-z_:][a-z0-9_:]*)\s*\{([^}]*)\})\s*\)$/;
const MATCHER_RE = /^\s*([a-z_]+)\s*(=|!=)\s*"([^"]*)"\s*$/;

type Matcher = { label: string; op: '=' | '!='; value: string };
interface ParsedQuery {
  metric: string;
  rate: boolean;
  matchers: Matcher[];
}

const promError = (status: number, errorType: string, error: string): SandboxResponse =>
  json(status, { status: 'error', errorType, error });

/** The query, or a Prometheus parse error message. */
export function parseUsageQuery(query: string): ParsedQuery | string {
  const m = SERIES_RE.exec(query.trim());
  if (!m) return `1:1: parse error: the sandbox's Prometheus understands only the usage queries of the collector, got: ${query}`;
  const rate = m[1] !== undefined;
  const metric = rate ? m[1] : m[5];
  const matcherText = (rate ? m[2] : m[6]) ?? '';
  const matchers: Matcher[] = [];
  for (const part of matcherText.split(',').filter((x) => x.trim() !== '')) {
    const mm = MATCHER_RE.exec(part);
    if (!mm) return `1:1: parse error: unexpected matcher ${part.trim()}`;
    matchers.push({ label: mm[1], op: mm[2] as '=' | '!=', value: mm[3] });
  }
  return { metric, rate, matchers };
}

const SUPPORTED = new Set(['container_cpu_usage_seconds_total', 'container_memory_working_set_bytes']);

/** Prometheus' time parameter: unix seconds (fractions allowed) or RFC 3339; NaN when neither. */
function parseTime(text: string | null): number {
  if (text === null || text === '') return Number.NaN;
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  return Date.parse(text);
}

/** Prometheus' duration/step parameter: seconds as a float, or a duration like 5m; NaN when neither. */
function parseStep(text: string | null): number {
  if (text === null || text === '') return Number.NaN;
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(text);
  if (!m) return Number.NaN;
  return Number(m[1]) * { ms: 1, s: SECOND_MS, m: MINUTE_MS, h: HOUR_MS, d: DAY_MS }[m[2] as 'ms' | 's' | 'm' | 'h' | 'd'];
}

/** How Prometheus prints a sample value: shortest round-trip float. */
const value = (v: number): string => String(v);

export function createPrometheusHandler(
  scenario: Scenario,
  model: UsageModel,
  { cadvisorJobs = [] }: { cadvisorJobs?: readonly string[] } = {},
): SandboxHandler {
  const pods = [...scenario.pods].sort((a, b) => a.createdAt - b.createdAt);

  /** How many jobs' series of a container the matchers select (1 without jobs: there is no job label to match). */
  const jobsSelected = (ms: Matcher[]): number => {
    const jobMatchers = ms.filter((m) => m.label === 'job');
    if (cadvisorJobs.length === 0) return jobMatchers.every((m) => (m.op === '=' ? m.value === '' : m.value !== '')) ? 1 : 0;
    return cadvisorJobs.filter((j) => jobMatchers.every((m) => (m.op === '=' ? j === m.value : j !== m.value))).length;
  };

  const matches = (p: SimPod, container: string, ms: Matcher[]): boolean =>
    ms.every((m) => {
      if (m.label === 'job') return true;
      const v = m.label === 'namespace' ? p.namespace : m.label === 'pod' ? p.name : m.label === 'container' ? container : '';
      return m.op === '=' ? v === m.value : v !== m.value;
    });

  /** Each (pod, container) series at the given times: [seconds, value] where the pod ran then. */
  const evaluate = (q: ParsedQuery, times: EpochMs[]) => {
    const out: { metric: Record<string, string>; values: [number, string][] }[] = [];
    // Prometheus' sum over the jobs' series: each job read the same counters, so n jobs give n times the figure.
    const jobs = jobsSelected(q.matchers);
    if (!SUPPORTED.has(q.metric) || times.length === 0 || jobs === 0) return out;
    const first = times[0];
    const last = times[times.length - 1];
    for (const p of pods) {
      if (p.createdAt > last) break;
      if (p.deletedAt !== null && p.deletedAt <= first) continue;
      for (const c of p.containers) {
        if (!matches(p, c.name, q.matchers)) continue;
        const values: [number, string][] = [];
        for (const t of times) {
          if (podPhaseAt(p, t) !== 'Running') continue;
          const u = model.usageAt(p, c, t);
          const one = q.metric === 'container_memory_working_set_bytes' ? u.memoryBytes : u.cpuMillicores / 1000;
          values.push([t / 1000, value(jobs * one)]);
        }
        if (values.length > 0) out.push({ metric: { namespace: p.namespace, pod: p.name, container: c.name }, values });
      }
    }
    return out;
  };

  const params = (req: SandboxRequest): URLSearchParams => {
    const q = new URLSearchParams(req.url.search);
    if (req.method === 'POST' && String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded'))
      for (const [k, v] of new URLSearchParams(req.body.toString('utf8'))) q.set(k, v);
    return q;
  };

  return (req: SandboxRequest, ctx: SandboxContext): SandboxResponse | null => {
    const path = req.url.pathname;
    if (!path.startsWith(`${PROMETHEUS_PREFIX}/`)) return null;
    const endpoint = path.slice(PROMETHEUS_PREFIX.length);
    ctx.requestLog.push({ at: ctx.clock.now(), operation: `prometheus:${endpoint}` });
    const fault = ctx.faults.find((f) => f.remaining > 0 && path.startsWith(f.match));
    if (fault) {
      fault.remaining -= 1;
      return promError(fault.status, fault.status === 503 ? 'unavailable' : 'internal', `injected fault ${fault.status}`);
    }
    if (req.method !== 'GET' && req.method !== 'POST') return promError(405, 'bad_data', `method ${req.method} not allowed`);
    const q = params(req);
    if (req.method === 'GET' && endpoint === '/api/v1/label/job/values' && cadvisorJobs.length > 0) {
      // The jobs whose series the match[] selectors name (cAdvisor's metrics: every job; another metric: none).
      const selected = q.getAll('match[]').some((m) => [...SUPPORTED].some((metric) => m.trim().startsWith(metric)));
      return json(200, { status: 'success', data: selected ? [...cadvisorJobs].sort() : [] });
    }
    if (endpoint !== '/api/v1/query_range' && endpoint !== '/api/v1/query')
      return json(404, { status: 'error', errorType: 'not_found', error: `no ${endpoint}` });
    const query = q.get('query');
    if (!query) return promError(400, 'bad_data', 'invalid parameter "query": query must not be empty');
    const parsed = parseUsageQuery(query);
    if (typeof parsed === 'string') return promError(400, 'bad_data', `invalid parameter "query": ${parsed}`);
    const now = ctx.clock.now();
    if (endpoint === '/api/v1/query') {
      const at = q.get('time') === null ? now : parseTime(q.get('time'));
      if (Number.isNaN(at))
        return promError(400, 'bad_data', `invalid parameter "time": cannot parse "${q.get('time')}" to a valid timestamp`);
      const result = evaluate(parsed, [at]).map((s) => ({ metric: s.metric, value: s.values[0] }));
      return json(200, { status: 'success', data: { resultType: 'vector', result } });
    }
    const start = parseTime(q.get('start'));
    const end = parseTime(q.get('end'));
    const step = parseStep(q.get('step'));
    if (Number.isNaN(start))
      return promError(400, 'bad_data', `invalid parameter "start": cannot parse "${q.get('start')}" to a valid timestamp`);
    if (Number.isNaN(end))
      return promError(400, 'bad_data', `invalid parameter "end": cannot parse "${q.get('end')}" to a valid timestamp`);
    if (end < start) return promError(400, 'bad_data', 'invalid parameter "end": end timestamp must not be before start time');
    if (!(step > 0))
      return promError(
        400,
        'bad_data',
        'invalid parameter "step": zero or negative query resolution step widths are not accepted. Try a positive integer',
      );
    if ((end - start) / step > MAX_POINTS)
      return promError(
        400,
        'bad_data',
        'exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)',
      );
    const times: EpochMs[] = [];
    // Prometheus evaluates at start, start + step, ... up to end, and never past the data it has (now).
    for (let t = start; t <= end && t <= now; t += step) times.push(t);
    return json(200, { status: 'success', data: { resultType: 'matrix', result: evaluate(parsed, times) } });
  };
}
