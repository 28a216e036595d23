import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubeClients } from '../../collectors/kubernetes/client.js';
import { collectKubeSnapshot } from '../../collectors/kubernetes/collect.js';
import type { Disruption } from '../../core/karpenter/disruptions.js';
import { buildSnapshotRows } from '../../core/rollup.js';
import { openDb } from '../../db/open-db.js';
import { createDisruptionsRepository } from '../../db/repositories/disruptions-repository.js';
import { createKubeRepository } from '../../db/repositories/kube-repository.js';
import { writeKubeconfig } from '../../sandbox/kubeconfig.js';
import { json, type SandboxHandler } from '../../sandbox/serve/context.js';
import { AFTER, BEFORE, NODEPOOL, recordedCluster, type Listing, type Wording } from '../fixtures/karpenter-objects.js';
import { newContext, serveHandlers, type ServedHandlers } from '../fixtures/serve-handlers.js';
import { tinyScenario } from '../fixtures/tiny-scenario.js';

/*
 * Karpenter's own objects (test/fixtures/karpenter-objects.ts: the NodeClaim of the AWS provider's docs, the events
 * as Karpenter's recorder builds them) served by a tiny Kubernetes endpoint, read by the real collector
 * (@kubernetes/client-node lists), written as two snapshots into SQLite, and the disruptions the writer keeps read
 * back. Once with v1.5.0's words, once with v1.14.1's: the same disruptions.
 */

const dir = mkdtempSync(join(tmpdir(), 'ledger-recorded-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A Kubernetes API listing what `now()` says, one page each. */
function listingApi(now: () => Listing): SandboxHandler {
  const list = (kind: string, apiVersion: string, items: unknown[]) =>
    json(200, { kind, apiVersion, metadata: { resourceVersion: '19600700' }, items });
  return (req) => {
    const l = now();
    switch (req.url.pathname) {
      case '/api/v1/namespaces':
        return list('NamespaceList', 'v1', [{ metadata: { name: 'default', uid: 'ns-default', resourceVersion: '1' } }]);
      case '/api/v1/nodes':
        return list('NodeList', 'v1', l.nodes);
      case '/api/v1/pods':
        return list('PodList', 'v1', []);
      case '/api/v1/events':
        return list('EventList', 'v1', l.events);
      case '/apis/karpenter.sh/v1/nodepools':
        return list('NodePoolList', 'karpenter.sh/v1', [NODEPOOL]);
      case '/apis/karpenter.sh/v1/nodeclaims':
        return list('NodeClaimList', 'karpenter.sh/v1', l.nodeClaims);
      default:
        return null;
    }
  };
}

async function collectRecorded(wording: Wording): Promise<Disruption[]> {
  const cluster = recordedCluster(wording);
  let current: Listing = cluster.before;
  const served: ServedHandlers = await serveHandlers([listingApi(() => current)], newContext(tinyScenario(), Date.parse(BEFORE)));
  const kubeconfig = join(dir, `kubeconfig-${wording}`);
  writeKubeconfig(kubeconfig, served.url, 'recorded-token', 'recorded');
  const db = openDb({ path: join(dir, `ledger-${wording}.db`) });
  try {
    const k = createKubeClients({ kubeconfig });
    const kube = createKubeRepository(db);
    for (const [listing, at] of [
      [cluster.before, BEFORE],
      [cluster.after, AFTER],
    ] as const) {
      current = listing;
      const snapshot = await collectKubeSnapshot(k, Date.parse(at), { withEvents: true });
      kube.writeSnapshot({
        snapshot,
        ...buildSnapshotRows(snapshot, () => ({ pricePerHour: 0.1, currency: 'USD', source: 'pricing-api' })),
        runId: null,
      });
    }
    return createDisruptionsRepository(db).inRange({ fromMs: Date.parse(BEFORE), toMs: Date.parse(AFTER) });
  } finally {
    db.close();
    await served.close();
  }
}

describe('Karpenter’s own objects through the collector', () => {
  const got = new Map<Wording, Disruption[]>();
  beforeAll(async () => {
    for (const w of ['v1.5.0', 'v1.14.1'] as const) got.set(w, await collectRecorded(w));
  }, 60_000);

  const at = (iso: string) => Date.parse(iso);
  it.each(['v1.5.0', 'v1.14.1'] as const)('%s: the replacement, the emptied node, the interruption and the blocked attempt', (w) => {
    expect(
      (got.get(w) ?? []).map((d) => [d.atMs, d.nodeClaim, d.nodeName, d.nodePool, d.reason, d.action, d.replacements, d.spotInterrupted]),
    ).toEqual([
      [at('2024-08-07T06:01:45Z'), 'default-r7tqz', 'ip-10-0-71-99.us-west-2.compute.internal', 'default', '', 'Blocked', [], false],
      [
        at('2024-08-07T06:02:05Z'),
        'default-x9wxq',
        'ip-10-0-71-87.us-west-2.compute.internal',
        'default',
        'Underutilized',
        'Replace',
        ['default-r7tqz'],
        false,
      ],
      [at('2024-08-07T06:02:31Z'), 'default-k2p9m', 'ip-10-0-71-90.us-west-2.compute.internal', 'default', 'Empty', 'Delete', [], false],
      [
        at('2024-08-07T06:03:00Z'),
        'default-s4ptx',
        'ip-10-0-71-93.us-west-2.compute.internal',
        'default',
        'Interrupted',
        'Delete',
        [],
        true,
      ],
    ]);
  });

  it('the two releases’ words give the same disruptions, and the messages as each wrote them', () => {
    const strip = (ds: Disruption[]) => ds.map(({ message: _m, ...rest }) => rest);
    expect(strip(got.get('v1.14.1') ?? [])).toEqual(strip(got.get('v1.5.0') ?? []));
    expect(got.get('v1.5.0')?.[1].message).toBe('Disrupting Node: Underutilized/Replace');
    expect(got.get('v1.14.1')?.[1].message).toBe('Disrupting Node: Underutilized');
    // Where the NodeClaims went is the first snapshot without them.
    expect(got.get('v1.14.1')?.[1].nodeDeletedAtMs).toBe(at(AFTER));
  });
});
