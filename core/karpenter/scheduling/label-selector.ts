import type { KubeLabelSelector } from './kube-types.js';

/** A compiled Kubernetes LabelSelector (metav1.LabelSelectorAsSelector semantics). */
export interface LabelMatcher {
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  /** Canonical text, so equal selectors compare equal. */
  readonly signature: string;
}

const NOTHING: LabelMatcher = { matches: () => false, signature: '<nothing>' };

/** A missing (null) selector selects nothing; an empty one selects everything. An unknown operator selects nothing. */
export function compileSelector(selector: KubeLabelSelector | null | undefined): LabelMatcher {
  if (!selector) return NOTHING;
  const tests: ((labels: Readonly<Record<string, string>>) => boolean)[] = [];
  const parts: string[] = [];
  for (const [k, v] of Object.entries(selector.matchLabels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    tests.push((l) => l[k] === v);
    parts.push(`${k}=${v}`);
  }
  for (const e of selector.matchExpressions ?? []) {
    const values = new Set(e.values ?? []);
    switch (e.operator) {
      case 'In':
        tests.push((l) => l[e.key] !== undefined && values.has(l[e.key]));
        break;
      case 'NotIn':
        tests.push((l) => l[e.key] === undefined || !values.has(l[e.key]));
        break;
      case 'Exists':
        tests.push((l) => l[e.key] !== undefined);
        break;
      case 'DoesNotExist':
        tests.push((l) => l[e.key] === undefined);
        break;
      default:
        return NOTHING;
    }
    parts.push(`${e.key} ${e.operator} ${[...values].sort().join(',')}`);
  }
  parts.sort();
  return {
    matches: (labels) => {
      const l = labels ?? {};
      for (const t of tests) if (!t(l)) return false;
      return true;
    },
    signature: parts.join(';'),
  };
}
