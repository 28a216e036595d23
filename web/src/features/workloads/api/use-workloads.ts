import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { JsonParams } from '../../../lib/api-client';
import { jsonQuery } from '../../../lib/json-query';

/** Right-sizing recommendations with their dollar effect and usage efficiency (GET /api/workloads/recommendations). */
export const useRecommendations = (params: JsonParams<'/api/workloads/recommendations'>) =>
  useQuery({ ...jsonQuery('/api/workloads/recommendations', params), placeholderData: keepPreviousData });

/** One workload container's hourly usage for its chart; not asked until a row is opened. */
export const useWorkloadUsage = (params: JsonParams<'/api/workloads/usage'> | undefined) =>
  useQuery({ ...jsonQuery('/api/workloads/usage', params), enabled: params !== undefined });

/** The what-if of one workload on fresh nodes of each NodePool (GET /api/whatif/workload); not asked until the user asks. */
export const useWorkloadWhatIf = (params: JsonParams<'/api/whatif/workload'> | undefined) =>
  useQuery({ ...jsonQuery('/api/whatif/workload', params), enabled: params !== undefined });
