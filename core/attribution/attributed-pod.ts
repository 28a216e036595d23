import type { PodUsage, ResourceAmounts } from '../model.js';

/**
 * A pod as the attribution methods see it: what it requests and, once usage is collected, what it used. A
 * PodRecord is one; so is anything else carrying these two fields.
 */
export interface AttributedPod {
  requests: ResourceAmounts;
  usage?: PodUsage;
}

/** What a pod is charged for, per resource: cpu in millicores, memory in bytes, GPUs. */
export interface ChargedAmounts {
  cpuMillicores: number;
  memoryBytes: number;
  gpu: number;
  /** Whether usage was known (else the request alone stands for max(request, usage)). */
  usageFed: boolean;
}

/**
 * max(request, usage) per resource, as AWS ("allocated capacity: the maximum of used and reserved") and the OpenCost
 * specification ("the greater of requested and used") both define it; the request alone when usage is unknown
 * (AWS: "if memory or vCPU usage data is unavailable, reservation data will be used instead").
 */
export function chargedAmounts(p: AttributedPod): ChargedAmounts {
  const u = p.usage;
  if (u === undefined) {
    return { cpuMillicores: p.requests.cpuMillicores, memoryBytes: p.requests.memoryBytes, gpu: p.requests.gpu, usageFed: false };
  }
  return {
    cpuMillicores: Math.max(p.requests.cpuMillicores, u.cpuMillicores),
    memoryBytes: Math.max(p.requests.memoryBytes, u.memoryBytes),
    gpu: Math.max(p.requests.gpu, u.gpu ?? 0),
    usageFed: true,
  };
}
