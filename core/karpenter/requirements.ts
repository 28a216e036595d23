/**
 * NodePool requirements (spec.template.spec.requirements, Kubernetes NodeSelectorRequirements with Karpenter's
 * minValues) and how a label set meets them, the way Karpenter judges it. Pure, no I/O.
 *
 * Semantics follow kubernetes-sigs/karpenter v1.14.1 pkg/scheduling/requirement.go and requirements.go:
 * - A requirement is held in Karpenter's canonical form: a value set that is either the allowed values (In) or
 *   the excluded ones (complement: NotIn, Exists), plus inclusive integer bounds. Gt N becomes >= N+1, Lt N
 *   becomes <= N-1, Gte and Lte (v1.10+) are the bounds themselves; Gt of the largest int64 matches nothing.
 * - A present label value meets a requirement when the requirement has it (Requirement.Has): in the set (or out
 *   of it for a complement) and, with bounds, an integer (Go's strconv.Atoi) within them.
 * - An absent label meets only NotIn and DoesNotExist (Requirements.Compatible, as the drift check
 *   areRequirementsDrifted uses it: a NodeClaim's labels against its NodePool's requirements).
 * - Keys are normalized (beta.kubernetes.io/arch -> kubernetes.io/arch, ...) on requirements and labels alike.
 * - Several requirements on one key are intersected before an absent label is judged, as Requirements.Add does.
 *
 * The canonical form and `intersect` are the set algebra a scheduling simulation builds on (pod node affinity
 * against NodePool requirements, minValues); this module stops at judging labels.
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

export const OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt', 'Gte', 'Lte'] as const;
export type Operator = (typeof OPERATORS)[number];
export const isOperator = (s: string): s is Operator => (OPERATORS as readonly string[]).includes(s);

/** Deprecated label keys and the keys Karpenter reads them as (pkg/apis/v1/labels.go NormalizedLabels). */
export const NORMALIZED_LABEL_KEYS: Readonly<Record<string, string>> = {
  'failure-domain.beta.kubernetes.io/zone': 'topology.kubernetes.io/zone',
  'beta.kubernetes.io/arch': 'kubernetes.io/arch',
  'beta.kubernetes.io/os': 'kubernetes.io/os',
  'beta.kubernetes.io/instance-type': 'node.kubernetes.io/instance-type',
  'failure-domain.beta.kubernetes.io/region': 'topology.kubernetes.io/region',
};
export const normalizeLabelKey = (key: string): string => NORMALIZED_LABEL_KEYS[key] ?? key;

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

/** Go's strconv.Atoi on a 64-bit platform: optional sign, decimal digits, int64 range; null otherwise. */
export function atoi(text: string): bigint | null {
  if (!/^[+-]?[0-9]+$/.test(text)) return null;
  const n = BigInt(text);
  return n > INT64_MAX || n < INT64_MIN ? null : n;
}

const maxOf = (a: bigint | null, b: bigint | null): bigint | null => (a === null ? b : b === null ? a : a > b ? a : b);
const minOf = (a: bigint | null, b: bigint | null): bigint | null => (a === null ? b : b === null ? a : a < b ? a : b);
const maxMinValues = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.max(a, b));

function withinBounds(value: string, gte: bigint | null, lte: bigint | null): boolean {
  if (gte === null && lte === null) return true;
  const n = atoi(value); // with bounds set, a value that is not an integer is out
  if (n === null) return false;
  return (gte === null || n >= gte) && (lte === null || n <= lte);
}

/** Karpenter's canonical requirement: values allowed (complement false) or excluded (true), and inclusive bounds. */
interface Canonical {
  complement: boolean;
  values: ReadonlySet<string>;
  gte: bigint | null;
  lte: bigint | null;
}

const DOES_NOT_EXIST: Canonical = { complement: false, values: new Set(), gte: null, lte: null };

/** The canonical form of a written requirement; a string saying why when it cannot be judged. */
function canonicalOf(r: NodeSelectorRequirement): Canonical | string {
  const bound = (): bigint | string => {
    if (r.values.length !== 1) return `${r.operator} takes one integer value, got ${r.values.length}`;
    const n = atoi(r.values[0]);
    return n === null ? `${r.operator} takes an integer, got "${r.values[0]}"` : n;
  };
  switch (r.operator) {
    case 'In':
      return { complement: false, values: new Set(r.values), gte: null, lte: null };
    case 'NotIn':
      return { complement: true, values: new Set(r.values), gte: null, lte: null };
    case 'Exists':
      return { complement: true, values: new Set(), gte: null, lte: null };
    case 'DoesNotExist':
      return DOES_NOT_EXIST;
    case 'Gt':
    case 'Lt':
    case 'Gte':
    case 'Lte': {
      const n = bound();
      if (typeof n === 'string') return n;
      if (r.operator === 'Gt' && n === INT64_MAX) return DOES_NOT_EXIST; // nothing is greater
      const gte = r.operator === 'Gt' ? n + 1n : r.operator === 'Gte' ? n : null;
      const lte = r.operator === 'Lt' ? n - 1n : r.operator === 'Lte' ? n : null;
      return { complement: true, values: new Set(), gte, lte };
    }
    default:
      return `operator "${r.operator}" is not one Karpenter knows (${OPERATORS.join(', ')})`;
  }
}

/** How a canonical requirement reads as an operator (Requirement.Operator() in Karpenter). */
function operatorOf(c: Canonical): 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' {
  if (c.complement) return c.values.size > 0 ? 'NotIn' : 'Exists';
  return c.values.size > 0 ? 'In' : 'DoesNotExist';
}

/** A label value as Karpenter reads a label set: under its normalized key, or a deprecated alias of it. */
export function labelValue(labels: Readonly<Record<string, string>>, key: string): string | undefined {
  const normalized = normalizeLabelKey(key);
  const direct = labels[normalized];
  if (direct !== undefined) return direct;
  for (const [alias, target] of Object.entries(NORMALIZED_LABEL_KEYS)) {
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
    private readonly canonical: Canonical | null,
    minValues: number | null,
    problem: string | null,
  ) {
    this.key = normalizeLabelKey(key);
    this.minValues = minValues;
    this.problem = problem;
  }

  static of(r: NodeSelectorRequirement): Requirement {
    const c = canonicalOf(r);
    return typeof c === 'string'
      ? new Requirement(r.key, r, null, r.minValues ?? null, c)
      : new Requirement(r.key, r, c, r.minValues ?? null, null);
  }

  /** Does a present label value meet this requirement? null when the requirement cannot be judged. */
  has(value: string): boolean | null {
    const c = this.canonical;
    if (c === null) return null;
    return c.values.has(value) !== c.complement && withinBounds(value, c.gte, c.lte);
  }

  /** Does a label set meet this requirement? An absent label meets only NotIn and DoesNotExist. */
  matches(labels: Readonly<Record<string, string>>): boolean | null {
    const c = this.canonical;
    if (c === null) return null;
    const value = labelValue(labels, this.key);
    if (value === undefined) {
      const op = operatorOf(c);
      return op === 'NotIn' || op === 'DoesNotExist';
    }
    return this.has(value);
  }

  /** The operator of the canonical form (Gt, Lt, Gte, Lte read as Exists with bounds); null when it cannot be judged. */
  canonicalOperator(): 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | null {
    return this.canonical === null ? null : operatorOf(this.canonical);
  }

  /**
   * Both requirements at once (Requirement.Intersection): the same key, the values both allow, the tighter bounds,
   * the larger minValues. Empty bounds give DoesNotExist; bounds are dropped once the values are a concrete set.
   */
  intersect(other: Requirement): Requirement {
    const minValues = maxMinValues(this.minValues, other.minValues);
    const a = this.canonical;
    const b = other.canonical;
    if (a === null || b === null) return new Requirement(this.key, null, null, minValues, this.problem ?? other.problem);
    const gte = maxOf(a.gte, b.gte);
    const lte = minOf(a.lte, b.lte);
    if (gte !== null && lte !== null && gte > lte) return new Requirement(this.key, null, DOES_NOT_EXIST, minValues, null);
    const complement = a.complement && b.complement;
    let values: Set<string>;
    if (a.complement && b.complement) values = new Set([...a.values, ...b.values]);
    else if (a.complement) values = new Set([...b.values].filter((v) => !a.values.has(v)));
    else if (b.complement) values = new Set([...a.values].filter((v) => !b.values.has(v)));
    else values = new Set([...a.values].filter((v) => b.values.has(v)));
    for (const v of values) if (!withinBounds(v, gte, lte)) values.delete(v);
    const canonical: Canonical = complement ? { complement, values, gte, lte } : { complement, values, gte: null, lte: null };
    return new Requirement(this.key, null, canonical, minValues, null);
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
    const c = this.canonical;
    if (c === null) return `${this.key} (${this.problem ?? 'unknown'})`;
    const op = operatorOf(c);
    let s: string;
    if (op === 'Exists' || op === 'DoesNotExist') s = `${this.key} ${op}`;
    else {
      const values = [...c.values].sort();
      const shown = values.length > 5 ? [...values.slice(0, 5), `and ${values.length - 5} others`] : values;
      s = `${this.key} ${op} [${shown.join(' ')}]`;
    }
    if (c.gte !== null) s += ` >=${c.gte}`;
    if (c.lte !== null) s += ` <=${c.lte}`;
    if (this.minValues !== null) s += ` minValues ${this.minValues}`;
    return s;
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
