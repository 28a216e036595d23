import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, type CoreV1Event, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS } from '../../core/time.js';
import { startSandbox, type RunningSandbox } from '../index.js';
import type { SimNode } from '../scenario/types.js';

/**
 * Karpenter v1.14's ConsolidationApproved (kubernetes-sigs/karpenter v1.14.1 disruption/balanced.go ApproveCommand,
 * events.go ConsolidationApproved), served through @kubernetes/client-node: week4's first day with the general
 * NodePool switched to consolidationPolicy Balanced (in week4 itself only steady is Balanced, and its moves are all
 * Empty, which Karpenter does not score). The savings share in each message is worked by hand from the history's
 * prices: the node's price over the sum of the NodePool's node prices at that moment.
 */

const WEEK4 = join(dirname(fileURLToPath(import.meta.url)), '..', 'scenarios', 'week4.json');
const dir = mkdtempSync(join(tmpdir(), 'kube-balanced-'));
let sb: RunningSandbox;
let events: CoreV1Event[];

beforeAll(async () => {
  const raw = JSON.parse(readFileSync(WEEK4, 'utf8')) as { name: string; nodePools: { name: string; consolidationPolicy: string }[] };
  raw.name = 'week4-balanced';
  for (const p of raw.nodePools) if (p.name === 'general') p.consolidationPolicy = 'Balanced';
  const path = join(dir, 'week4-balanced.json');
  writeFileSync(path, JSON.stringify(raw));
  sb = await startSandbox({ scenario: path, days: 1, dir });
  const kc = new KubeConfig();
  kc.loadFromFile(sb.kubeconfigPath);
  const core = kc.makeApiClient(CoreV1Api);
  // Events live an hour in the API server: the day's, listed every 55 minutes, by uid.
  const seen = new Map<string, CoreV1Event>();
  for (let t = sb.scenario.start; t <= sb.scenario.end; t += DAY_MS / 26) {
    sb.ctx.clock.set(t);
    for (const e of (await core.listEventForAllNamespaces({})).items) seen.set(e.metadata.uid ?? '', e);
  }
  events = [...seen.values()];
}, 300_000);
afterAll(async () => {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

const MESSAGE = /^score (\d+\.\d\d) >= threshold 0\.50 \(k: 2, savings (\d+\.\d)%, disruption (\d+\.\d)%\)$/;

describe('a Balanced NodePool: ConsolidationApproved', () => {
  it('is served for each approved single-node move, on the Node and its NodeClaim, in events.go wording, score >= 1/k', () => {
    const approved = events.filter((e) => e.reason === 'ConsolidationApproved');
    const onNodes = approved.filter((e) => e.involvedObject.kind === 'Node');
    expect(onNodes.length).toBeGreaterThan(0);
    for (const e of onNodes) {
      const m = MESSAGE.exec(e.message ?? '');
      expect(m, e.message).not.toBeNull();
      const [score, savings, disruption] = [Number(m?.[1]), Number(m?.[2]), Number(m?.[3])];
      expect(score).toBeGreaterThanOrEqual(0.5);
      // score = savings share / disruption share, to the precision printed
      expect(Math.abs(score - savings / disruption)).toBeLessThan(0.06 * Math.max(1, score));
      const node = sb.scenario.nodes.find((n) => n.name === e.involvedObject.name) as SimNode;
      expect(node.nodePool).toBe('general');
      const claim = approved.find((x) => x.involvedObject.kind === 'NodeClaim' && x.involvedObject.name === node.nodeClaimName);
      expect(claim?.message).toBe(e.message);
      // Karpenter disrupts it in the same round
      expect(node.disruptedAt).toBe(Date.parse(String(e.firstTimestamp)));
      expect(
        events.some(
          (x) =>
            x.reason === 'DisruptionTerminating' &&
            x.involvedObject.name === node.name &&
            String(x.firstTimestamp) === String(e.firstTimestamp),
        ),
      ).toBe(true);
    }
  });

  it("a delete's savings share is the node's price over the NodePool's (worked from the history's prices)", () => {
    const sc = sb.scenario;
    const spotAt = (n: SimNode, t: number) =>
      sc.spotPrices.filter((p) => p.instanceType === n.instanceType && p.zone === n.zone && p.at <= t).at(-1)?.usdPerHour;
    const price = (n: SimNode, t: number) => (n.capacityType === 'spot' ? (spotAt(n, t) ?? NaN) : sc.onDemandUsdPerHour[n.instanceType]);
    let deletes = 0;
    for (const e of events.filter((x) => x.reason === 'ConsolidationApproved' && x.involvedObject.kind === 'Node')) {
      const t = Date.parse(String(e.firstTimestamp));
      const node = sc.nodes.find((n) => n.name === e.involvedObject.name) as SimNode;
      if (sc.nodes.some((n) => n.launchReason.kind === 'replacement' && n.launchReason.replaces.includes(node.nodeClaimName ?? '')))
        continue;
      // the NodePool's nodes as the round saw them: launched by t, not yet gone (a node disrupted the step before
      // is still terminating)
      const pool = sc.nodes.filter((n) => n.nodePool === 'general' && n.createdAt <= t && (n.deletedAt === null || n.deletedAt > t));
      const share = (100 * price(node, t)) / pool.reduce((s, n) => s + price(n, t), 0);
      expect(Number(MESSAGE.exec(e.message ?? '')?.[2])).toBeCloseTo(share, 1);
      deletes++;
    }
    expect(deletes).toBeGreaterThan(0);
  });
});
