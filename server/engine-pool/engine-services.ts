import type { Db } from '../../db/open-db.js';
import { createAnalyticsPackingRepository } from '../../db/repositories/analytics-packing-repository.js';
import { createClusterSnapshotRepository } from '../../db/repositories/cluster-snapshot-repository.js';
import { createSnapshotPricesRepository } from '../../db/repositories/snapshot-prices-repository.js';
import { createUsageRepository } from '../../db/repositories/usage-repository.js';
import { createWhatIfService, type WhatIfService } from '../services/whatif-service.js';
import { createWhatIfWorlds } from '../services/whatif-world.js';
import { createClustersRepository } from '../../db/repositories/clusters-repository.js';
import { createWorkloadsService, type WorkloadsService } from '../services/workloads-service.js';
import { createKarpenterTryService, type KarpenterTryService } from '../services/karpenter-try-service.js';

/**
 * The services whose answers run the scheduling engine, over one database connection: the what-ifs and the Workloads
 * recommendations (their re-packs). Built once per thread that runs them: the API's own thread (inline) or each
 * worker of the engine pool, each with its own connection and its own prepared-world cache.
 */
export interface EngineServices {
  whatif: WhatIfService;
  workloads: WorkloadsService;
  /** Balanced and overlay tries (pages22): share the what-ifs' prepared worlds. */
  karpenterTry: KarpenterTryService;
}

export function createEngineServices(db: Db): EngineServices {
  // One reader, one catalogue, one prepared world per snapshot for both the what-ifs and the Workloads re-packs.
  const worlds = createWhatIfWorlds({
    snapshots: createClusterSnapshotRepository(db),
    prices: createSnapshotPricesRepository(db),
  });
  const clusters = createClustersRepository(db);
  return {
    whatif: createWhatIfService(worlds),
    karpenterTry: createKarpenterTryService(worlds),
    workloads: createWorkloadsService(createUsageRepository(db), createAnalyticsPackingRepository(db), { worlds }, () => clusters.list()),
  };
}

/**
 * The methods a request may run through the engine, by service and name: what crosses to a worker is a name and
 * plain JSON arguments, so what runs inside a method can change (one conversion path, issue 21) without the pool.
 */
export const ENGINE_METHODS = {
  whatif: ['headroom', 'nodePoolEdit', 'workload', 'whyNot', 'predict'],
  workloads: ['recommendations'],
  karpenterTry: ['balanced', 'overlay'],
} as const satisfies { [S in keyof EngineServices]: readonly (keyof EngineServices[S])[] };

export type EngineServiceName = keyof typeof ENGINE_METHODS;
export type EngineMethodName<S extends EngineServiceName> = (typeof ENGINE_METHODS)[S][number];
type Method<S extends EngineServiceName, M extends EngineMethodName<S>> = M extends keyof EngineServices[S]
  ? EngineServices[S][M] extends (...args: infer A) => infer R
    ? { args: A; result: R }
    : never
  : never;
export type EngineArgs<S extends EngineServiceName, M extends EngineMethodName<S>> = Method<S, M>['args'];
export type EngineResult<S extends EngineServiceName, M extends EngineMethodName<S>> = Method<S, M>['result'];

/** One call: a named method of a named service and its arguments (plain JSON). */
export interface EngineCall {
  service: string;
  method: string;
  args: unknown[];
}

/** Runs a call on these services; a name not in ENGINE_METHODS is refused. */
export function runEngineCall(services: EngineServices, call: EngineCall): unknown {
  const methods = (ENGINE_METHODS as Record<string, readonly string[]>)[call.service];
  if (methods === undefined || !methods.includes(call.method)) throw new Error(`no engine method ${call.service}.${call.method}`);
  const service = services[call.service as EngineServiceName] as unknown as Record<string, (...args: unknown[]) => unknown>;
  return service[call.method](...call.args);
}
