import { NORMALIZED_LABELS } from './scheduling/well-known.js';
import { Requirement as SetRequirement } from './scheduling/requirements.js';

export { atoi } from './scheduling/requirements.js';

/**
 * NodePool requirements (spec.template.spec.requirements, Kubernetes NodeSelectorRequirements with Karpenter's
 * minValues) and how a label set meets them, the way Karpenter judges it. Pure, no I/O.
 *
 * What each operator means, and the set algebra on it (intersection, Karpenter's canonical form and wording), is
 * the scheduling engine's Requirement (./scheduling/requirements.ts, after kubernetes-sigs/karpenter v1.14.1
 * pkg/scheduling/requirement.go): one model. This module adds what an explanation needs on top of it:
 * - the requirement as written, and one that cannot be judged (an unknown operator, a bound that is not an
 *   integer) kept with the reason instead of refused, so a stored NodePool is still shown;
 * - a label set judged against it: an absent label meets only NotIn and DoesNotExist (Requirements.Compatible, as
 *   the drift check areRequirementsDrifted uses it: a NodeClaim's labels against its NodePool's requirements);
 * - keys normalized (beta.kubernetes.io/arch -> kubernetes.io/arch, ...) on requirements and labels alike;
 * - several requirements on one key intersected before an absent label is judged, as Requirements.Add does.
 */

/** One requirement as written in a NodePool (NodeSelectorRequirementWithMinValues). */
export interface NodeSelectorRequirement {
  key: string;
  /** In | NotIn | Exists | DoesNotExist | Gt | Lt | Gte | Lte (any other string is kept, and cannot be judged). */
  operator: string;
  /** [] for Exists and DoesNotExist; one integer for Gt, Lt, Gte, Lte. */
  values: string[];
  /** At least this many distinct values of the key among the instance types Karpenter may launch (v1.0+); absent when unset. */
  minValues?: number;
}

const normalizeLabelKey = (key: string): string => NORMALIZED_LABELS[key] ?? key;
const maxMinValues = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.max(a, b));

/** A label value as Karpenter reads a label set: under its normalized key, or a deprecated alias of it. */
export function labelValue(labels: Readonly<Record<string, string>>, key: string): string | undefined {
  const normalized = normalizeLabelKey(key);
  const direct = labels[normalized];
  if (direct !== undefined) return direct;
  for (const [alias, target] of Object.entries(NORMALIZED_LABELS)) {
    if (target === normalized && labels[alias] !== undefined) return labels[alias];
  }
  return undefined;
}

export class Requirement {
  /** The key as Karpenter reads it (normalized). */
  readonly key: string;
  readonly minValues: number | null;
  /** Why this requirement cannot be judged (an unknown operator, a bound that is not an integer); null when it can. */
  readonly problem: string | null;

  private constructor(
    key: string,
    /** As written in the NodePool; null for a requirement made by intersecting others. */
    readonly written: NodeSelectorRequirement | null,
    /** Karpenter's canonical form; null when the requirement cannot be judged. */
    private readonly canonical: SetRequirement | null,
    minValues: number | null,
    problem: string | null,
  ) {
    this.key = normalizeLabelKey(key);
    this.minValues = minValues;
    this.problem = problem;
  }

  static of(r: NodeSelectorRequirement): Requirement {
    const c = SetRequirement.tryOf(r.key, r.operator, r.values, r.minValues);
    return typeof c === 'string'
      ? new Requirement(r.key, r, null, r.minValues ?? null, c)
      : new Requirement(r.key, r, c, r.minValues ?? null, null);
  }

  /** Does a present label value meet this requirement? null when the requirement cannot be judged. */
  has(value: string): boolean | null {
    return this.canonical === null ? null : this.canonical.has(value);
  }

  /** Does a label set meet this requirement? An absent label meets only NotIn and DoesNotExist. */
  matches(labels: Readonly<Record<string, string>>): boolean | null {
    const c = this.canonical;
    if (c === null) return null;
    const value = labelValue(labels, this.key);
    if (value === undefined) {
      const op = c.operator();
      return op === 'NotIn' || op === 'DoesNotExist';
    }
    return c.has(value);
  }

  /** The operator of the canonical form (Gt, Lt, Gte, Lte read as Exists with bounds); null when it cannot be judged. */
  canonicalOperator(): 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | null {
    return this.canonical === null ? null : this.canonical.operator();
  }

  /** Both requirements at once (Requirement.Intersection); one that cannot be judged makes the result unjudgeable. */
  intersect(other: Requirement): Requirement {
    const minValues = maxMinValues(this.minValues, other.minValues);
    const a = this.canonical;
    const b = other.canonical;
    if (a === null || b === null) return new Requirement(this.key, null, null, minValues, this.problem ?? other.problem);
    return new Requirement(this.key, null, a.intersection(b), minValues, null);
  }

  /** As written: `karpenter.k8s.aws/instance-generation Gte 3`, `karpenter.sh/capacity-type In [spot, on-demand] (minValues 2)`. */
  describe(): string {
    const w = this.written;
    if (w === null) return this.toString();
    let text: string;
    if (w.operator === 'Exists' || w.operator === 'DoesNotExist') text = `${w.key} ${w.operator}`;
    else if ((w.operator === 'Gt' || w.operator === 'Lt' || w.operator === 'Gte' || w.operator === 'Lte') && w.values.length === 1)
      text = `${w.key} ${w.operator} ${w.values[0]}`;
    else text = `${w.key} ${w.operator} [${w.values.join(', ')}]`;
    return this.minValues === null ? text : `${text} (minValues ${this.minValues})`;
  }

  /** Karpenter's own rendering of the canonical form (Requirement.String()): `key Exists >=3`, `key In [a b]`. */
  toString(): string {
    return this.canonical === null ? `${this.key} (${this.problem ?? 'unknown'})` : this.canonical.toString();
  }
}

/** One requirement judged against a label set. */
export interface RequirementCheck {
  key: string;
  operator: string;
  values: string[];
  minValues: number | null;
  /** The requirement as written (Requirement.describe()). */
  text: string;
  /** The label's value; null when the label set has no such label. */
  labelValue: string | null;
  /** null when the requirement cannot be judged (see `problem`). */
  satisfied: boolean | null;
  problem: string | null;
}

/** A NodePool's requirements, in the order written. */
export class Requirements {
  readonly items: readonly Requirement[];

  constructor(written: readonly NodeSelectorRequirement[]) {
    this.items = written.map((r) => Requirement.of(r));
  }

  /** Each requirement on its own against the labels (what an explanation lists). */
  check(labels: Readonly<Record<string, string>>): RequirementCheck[] {
    return this.items.map((r) => {
      const w = r.written ?? { key: r.key, operator: '', values: [] };
      return {
        key: w.key,
        operator: w.operator,
        values: [...w.values],
        minValues: r.minValues,
        text: r.describe(),
        labelValue: labelValue(labels, r.key) ?? null,
        satisfied: r.matches(labels),
        problem: r.problem,
      };
    });
  }

  /**
   * Does the label set meet them all, as Karpenter's drift check judges it? Requirements on one key are intersected
   * first. false as soon as one key fails; null when none fails but one cannot be judged.
   */
  matches(labels: Readonly<Record<string, string>>): boolean | null {
    let unknown = false;
    for (const r of this.byKey().values()) {
      const ok = r.matches(labels);
      if (ok === false) return false;
      if (ok === null) unknown = true;
    }
    return unknown ? null : true;
  }

  /**
   * Does an instance type, by the labels that describe it, fit these requirements? Only keys in `typeKeys` (the
   * labels an instance-type catalogue carries) are judged: capacity type, zone, NodePool and custom labels say
   * nothing about the type itself, and a catalogue without a label cannot judge it. Unjudgeable counts as not failing.
   */
  admitsInstanceType(typeLabels: Readonly<Record<string, string>>, typeKeys: ReadonlySet<string>): boolean {
    for (const r of this.byKey().values()) {
      if (!typeKeys.has(r.key)) continue;
      if (r.matches(typeLabels) === false) return false;
    }
    return true;
  }

  /** One requirement per key: several on a key intersected (Requirements.Add). */
  byKey(): Map<string, Requirement> {
    const out = new Map<string, Requirement>();
    for (const r of this.items) {
      const existing = out.get(r.key);
      out.set(r.key, existing === undefined ? r : existing.intersect(r));
    }
    return out;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * A requirement from JSON as the API server returns it (or as stored): key, operator, values as strings, minValues
 * as a positive integer. Values that are not strings are dropped; null when the entry is not an object.
 */
export function requirementFromJson(v: unknown): NodeSelectorRequirement | null {
  if (!isRecord(v)) return null;
  const values = Array.isArray(v.values) ? v.values.filter((x): x is string => typeof x === 'string') : [];
  const out: NodeSelectorRequirement = {
    key: typeof v.key === 'string' ? v.key : '',
    operator: typeof v.operator === 'string' ? v.operator : '',
    values,
  };
  if (typeof v.minValues === 'number' && Number.isInteger(v.minValues) && v.minValues > 0) out.minValues = v.minValues;
  return out;
}

/** A JSON array of requirements; entries that are not objects are dropped. */
export const requirementsFromJson = (v: unknown): NodeSelectorRequirement[] =>
  (Array.isArray(v) ? v : []).map(requirementFromJson).filter((r): r is NodeSelectorRequirement => r !== null);
