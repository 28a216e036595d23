/**
 * Pure: NodePool requirements (Kubernetes NodeSelectorRequirements) checked one by one against a label set, so an
 * explanation can show which requirement admitted which label value.
 */

export interface Requirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface RequirementResult {
  key: string;
  operator: string;
  values: string[];
  nodeValue: string | null;
  satisfied: boolean;
}

/** Kubernetes semantics: Gt/Lt compare integers; an unknown operator is never satisfied. */
export function checkRequirement(labels: Readonly<Record<string, string>>, r: Requirement): RequirementResult {
  const values = r.values ?? [];
  const v = labels[r.key];
  const nodeValue = v ?? null;
  let satisfied: boolean;
  switch (r.operator) {
    case 'In':
      satisfied = v !== undefined && values.includes(v);
      break;
    case 'NotIn':
      satisfied = v === undefined || !values.includes(v);
      break;
    case 'Exists':
      satisfied = v !== undefined;
      break;
    case 'DoesNotExist':
      satisfied = v === undefined;
      break;
    case 'Gt':
      satisfied = v !== undefined && Number.isFinite(Number(v)) && Number(v) > Number(values[0]);
      break;
    case 'Lt':
      satisfied = v !== undefined && Number.isFinite(Number(v)) && Number(v) < Number(values[0]);
      break;
    default:
      satisfied = false;
  }
  return { key: r.key, operator: r.operator, values, nodeValue, satisfied };
}

export const checkRequirements = (labels: Readonly<Record<string, string>>, reqs: readonly Requirement[]): RequirementResult[] =>
  reqs.map((r) => checkRequirement(labels, r));

/** `karpenter.k8s.aws/instance-category In [c, m, r]` */
export function describeRequirement(r: RequirementResult): string {
  const values =
    r.operator === 'Exists' || r.operator === 'DoesNotExist'
      ? ''
      : r.operator === 'Gt' || r.operator === 'Lt'
        ? ` ${r.values[0] ?? ''}`
        : ` [${r.values.join(', ')}]`;
  return `${r.key} ${r.operator}${values}`;
}

/**
 * Whether an instance type (by its well-known labels) is admitted, judging only the requirements on keys that
 * describe the type: capacity type, zone and NodePool keys say nothing about the type itself.
 */
export function admitsInstanceType(typeLabels: Readonly<Record<string, string>>, reqs: readonly Requirement[]): boolean {
  return reqs.filter((r) => isInstanceTypeKey(r.key)).every((r) => checkRequirement(typeLabels, r).satisfied);
}

/** Label keys that describe the instance type rather than where or how it was bought. */
export function isInstanceTypeKey(key: string): boolean {
  return (
    key.startsWith('karpenter.k8s.aws/instance-') ||
    key === 'node.kubernetes.io/instance-type' ||
    key === 'kubernetes.io/arch' ||
    key === 'kubernetes.io/os'
  );
}
