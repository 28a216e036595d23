import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { RangeQuery } from '@schemas/common';
import type { DailyCostQuery } from '@schemas/cost';
import { jsonQuery } from '../../../lib/json-query';

/** Cost, node-hours, cost per vCPU-hour and spot savings per NodePool × capacity type over the range. */
export const useNodePoolCompare = (query: RangeQuery | undefined) =>
  useQuery({
    ...jsonQuery('/api/nodepools/compare', query),
    enabled: query !== undefined,
    placeholderData: keepPreviousData,
  });

/** The bill per day and NodePool in the chosen metric, storage and network included (the cost panel shares this cache entry). */
export const useNodePoolBill = (query: DailyCostQuery | undefined) =>
  useQuery({
    ...jsonQuery('/api/cost/nodepools/daily', query),
    enabled: query !== undefined,
    placeholderData: keepPreviousData,
  });

/** Packing and cost per NodePool and the cluster over the range (the overview shares this cache entry). */
export const useEfficiencySummary = (query: RangeQuery | undefined) =>
  useQuery({
    ...jsonQuery('/api/efficiency/summary', query),
    enabled: query !== undefined,
    placeholderData: keepPreviousData,
  });

/** Instance types per NodePool at the snapshot at or before `at` (default the newest), counted by the server. */
export const useNodeMix = (at: string | undefined) => useQuery(jsonQuery('/api/nodes/mix', { at }));

/** The cluster's NodePools as last collected (same cache entry as the NodePool filter's). */
export const useNodePoolSpecs = () =>
  useQuery({
    ...jsonQuery('/api/nodepools'),
    staleTime: 5 * 60_000,
  });

/**
 * Static pools, limits.nodes, NodeOverlay prices and capacity reservations at the newest snapshot of `cluster`
 * (undefined: the ledger's only one); nothing asked until `enabled` (a cluster chosen under "All clusters").
 */
export const useNodePoolKarpenter = (cluster: string | undefined, enabled: boolean) =>
  useQuery({ ...jsonQuery('/api/nodepools/karpenter', { cluster }), enabled });
