import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clusterDeclaration } from '../../test/fixtures/cluster-declaration.js';
import { GiB, snapshotWrite } from '../../test/fixtures/snapshots.js';
import { openDb } from '../open-db.js';
import { createClusterSnapshotRepository } from './cluster-snapshot-repository.js';
import { createClustersRepository } from './clusters-repository.js';
import { createKubeRepository } from './kube-repository.js';
import { CLUSTER_REGION_SETTING, createRunsRepository } from './runs-repository.js';

/*
 * The region a what-if prices a stored snapshot in is its own cluster's: a ledger of three clusters, declared in
 * us-west-2, eu-west-1 and with no region, whose prices were last collected for us-east-1 (the ledger-wide setting).
 * Each cluster's snapshot reads its declared region; the one declared without a region reads the setting.
 */

const dir = mkdtempSync(join(tmpdir(), 'ledger-snapshot-region-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const T = Date.parse('2026-11-02T12:00:00Z');

describe('clusterObjectsAt: the region of the snapshot is its cluster’s', () => {
  it('us-west-2, eu-west-1, and the prices’ region for a cluster declared without one', () => {
    const db = openDb({ path: join(dir, 'three.db') });
    try {
      const ids = createClustersRepository(db)
        .declare(
          [
            clusterDeclaration('west', { region: 'us-west-2' }),
            clusterDeclaration('dublin', { region: 'eu-west-1' }),
            { ...clusterDeclaration('unsaid'), region: null },
          ],
          T,
        )
        .map((c) => c.id);
      createRunsRepository(db).setSetting(CLUSTER_REGION_SETTING, 'us-east-1');
      const kube = createKubeRepository(db);
      for (const clusterId of ids) {
        const node = {
          name: `n-${clusterId}`,
          nodePool: 'general',
          capacityType: 'on-demand' as const,
          cpuMillicores: 2000,
          memoryBytes: 8 * GiB,
          requestedCpuMillicores: 0,
          requestedMemoryBytes: 0,
          usdPerHour: 0.096,
        };
        kube.writeSnapshot({ ...snapshotWrite(T, [node]), clusterId });
      }
      const snapshots = createClusterSnapshotRepository(db);
      const regions = ids.map((clusterId) => snapshots.clusterObjectsAt(T, { clusterId })?.region);
      expect(regions).toEqual(['us-west-2', 'eu-west-1', 'us-east-1']);
    } finally {
      db.close();
    }
  });
});
