import { Type, type Static } from '@sinclair/typebox';
import { ClusterFreshnessSchema } from './status.js';

export { ClusterFreshnessSchema };

/** GET /api/clusters (and /api/status's `clusters`): the clusters of the ledger and how fresh each one's data is. */

export type ClusterFreshness = Static<typeof ClusterFreshnessSchema>;

export const ClustersResponseSchema = Type.Object({ clusters: Type.Array(ClusterFreshnessSchema) });
export type ClustersResponse = Static<typeof ClustersResponseSchema>;
