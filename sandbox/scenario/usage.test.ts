import { describe, expect, it } from 'vitest';
import { parseBaseUnits, parseCpuMillicores } from '../../core/quantity.js';
import { loadScenario, loadUsageModel } from '../index.js';
import { UsageModel } from './usage.js';
import type { SimPod } from './types.js';

/* The week4 usage profiles do what the scenario file says, deterministically per seed. */

const H = 3_600_000;
const scenario = loadScenario('week4', 42);
const model = loadUsageModel('week4', 42);
const podsOf = (app: string): SimPod[] => scenario.pods.filter((p) => p.labels.app === app);
const request = (p: SimPod) => ({
  cpu: parseCpuMillicores(p.containers[0].resources.requests.cpu ?? '0'),
  memory: parseBaseUnits(p.containers[0].resources.requests.memory ?? '0'),
});
/** Every 5 minutes of each pod's life (at most the first two days of it). */
function samples(app: string) {
  const out: { cpu: number; memory: number; reqCpu: number; reqMemory: number }[] = [];
  for (const p of podsOf(app)) {
    const end = Math.min(p.deletedAt ?? scenario.end, p.createdAt + 48 * H);
    for (let t = p.createdAt; t < end; t += 5 * 60_000) {
      const u = model.usageAt(p, p.containers[0], t);
      out.push({ cpu: u.cpuMillicores, memory: u.memoryBytes, reqCpu: request(p).cpu, reqMemory: request(p).memory });
    }
  }
  return out;
}
const max = (xs: number[]) => Math.max(...xs);

describe('week4 usage profiles', () => {
  it('is a pure function of seed, pod, container and time: the same answer whatever was asked before, another seed differs', () => {
    const p = podsOf('web-frontend')[0];
    const t = p.createdAt + 3 * H;
    const first = model.usageAt(p, p.containers[0], t);
    samples('catalog-api');
    expect(model.usageAt(p, p.containers[0], t)).toEqual(first);
    expect(new UsageModel(42, []).usageAt(p, p.containers[0], t)).not.toEqual(new UsageModel(43, []).usageAt(p, p.containers[0], t));
  });

  it('web-frontend follows its daily cycle well under its requests (CPU at most about half, memory under half)', () => {
    const s = samples('web-frontend');
    expect(s.length).toBeGreaterThan(1000);
    expect(max(s.map((x) => x.cpu / x.reqCpu))).toBeLessThan(0.5);
    expect(max(s.map((x) => x.memory / x.reqMemory))).toBeLessThan(0.5);
    // Peak hour (17:00 UTC) above the night.
    const p = podsOf('web-frontend').find((x) => x.deletedAt === null || x.deletedAt - x.createdAt > 24 * H) as SimPod;
    const day = Math.floor(p.createdAt / (24 * H)) * 24 * H + 24 * H;
    expect(model.usageAt(p, p.containers[0], day + 17 * H).cpuMillicores).toBeGreaterThan(
      model.usageAt(p, p.containers[0], day + 5 * H).cpuMillicores,
    );
  });

  it('the payments team requests at least four times the memory it uses', () => {
    for (const app of ['payments-api', 'ledger-db']) expect(max(samples(app).map((x) => x.memory / x.reqMemory))).toBeLessThanOrEqual(0.25);
  });

  it('catalog-api runs above its CPU request and is held at its 1500m limit (throttled)', () => {
    const s = samples('catalog-api');
    expect(s.filter((x) => x.cpu > x.reqCpu).length / s.length).toBeGreaterThan(0.9);
    expect(max(s.map((x) => x.cpu))).toBe(1500);
    expect(model.limitsOf(podsOf('catalog-api')[0])).toEqual({ cpu: '1500m' });
  });

  it('the nightly ETL is bursty: about 30 % of its steps at 1.6x its request, the rest near 0.35x', () => {
    const s = samples('nightly-etl').map((x) => x.cpu / x.reqCpu);
    const bursts = s.filter((r) => r > 1);
    expect(bursts.length / s.length).toBeGreaterThan(0.2);
    expect(bursts.length / s.length).toBeLessThan(0.4);
    expect(max(s)).toBeGreaterThan(1.6);
  });

  it('grafana leaks memory to its 768Mi limit and is OOM-killed, restarting from its base', () => {
    const p = podsOf('grafana').sort(
      (a, b) => (b.deletedAt ?? scenario.end) - b.createdAt - ((a.deletedAt ?? scenario.end) - a.createdAt),
    )[0];
    const c = p.containers[0];
    const kills = model.oomKillTimes(p, p.createdAt, p.deletedAt ?? scenario.end);
    expect(kills.length).toBeGreaterThan(0);
    const k = kills[0];
    expect(model.restartsAt(p, c, k - 1)).toEqual({ restartCount: 0, lastOomKillAt: null });
    expect(model.restartsAt(p, c, k)).toEqual({ restartCount: 1, lastOomKillAt: k });
    const limit = 768 * 2 ** 20;
    expect(model.usageAt(p, c, k - 60_000).memoryBytes).toBeGreaterThan(0.99 * limit);
    expect(model.usageAt(p, c, k - 60_000).memoryBytes).toBeLessThan(limit);
    expect(model.usageAt(p, c, k + 60_000).memoryBytes).toBeLessThan(0.75 * limit);
  });
});
