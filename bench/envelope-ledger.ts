import { parseArgs } from 'node:util';
import { buildSnapshotRows } from '../core/rollup.js';
import { openDb } from '../db/open-db.js';
import { createKubeRepository } from '../db/repositories/kube-repository.js';
import { CLUSTER_REGION_SETTING, createRunsRepository } from '../db/repositories/runs-repository.js';
import { scaleScenario } from '../sandbox/scale/scale-scenario.js';
import { scaleHistory, scenarioPrices } from './scale-history.js';

/**
 * `tsx bench/envelope-ledger.ts --nodes 5000 --out FILE`: a ledger holding one snapshot of the scale scenario at the
 * envelope (nodes × 30 pods, three NodePools), written by the collector's repository, for the benches that serve it.
 * Its own process, not measured. Prints {"nodes","pods","ms"}.
 */
const { values } = parseArgs({ options: { nodes: { type: 'string' }, out: { type: 'string' } } });
const nodes = Number(values.nodes ?? 5000);
if (values.out === undefined) throw new Error('--out FILE');
const t0 = performance.now();
const sc = scaleScenario({ nodes, podsPerNode: 30, days: 1, meanNodeLifetimeDays: 0 });
const first = scaleHistory(sc, sc.end - sc.start).next();
if (first.done === true) throw new Error('the scale scenario has no snapshot');
const { snapshot } = first.value;
const db = openDb({ path: values.out });
const prices = scenarioPrices(sc);
createKubeRepository(db).writeSnapshot({ snapshot, ...buildSnapshotRows(snapshot, prices.price, prices.onDemand), runId: null });
createRunsRepository(db).setSetting(CLUSTER_REGION_SETTING, sc.region);
db.close();
console.log(
  JSON.stringify({ nodes: snapshot.nodes.length, pods: snapshot.pods.length, ms: performance.now() - t0, takenAt: snapshot.takenAt }),
);
