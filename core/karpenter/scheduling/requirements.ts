import { NORMALIZED_LABELS, RESTRICTED_LABELS } from './well-known.js';

/**
 * Node selector requirements as a set algebra, after kubernetes-sigs/karpenter pkg/scheduling/requirement.go and
 * requirements.go (v1.14.1). A requirement is a set of allowed label values: either a finite set (In; empty means
 * DoesNotExist) or the complement of one (NotIn; empty means Exists), optionally bounded by integer bounds
 * (Gt/Lt/Gte/Lte, kept as inclusive gte/lte). Intersections narrow sets the way Karpenter's do, so pods,
 * NodePools, NodeClaims and instance types can be compared with Karpenter's own rules.
 */

export const OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt', 'Gte', 'Lte'] as const;
export type Operator = (typeof OPERATORS)[number];
export const isOperator = (s: string): s is Operator => (OPERATORS as readonly string[]).includes(s);

/** A NodeSelectorRequirement as Kubernetes and Karpenter write it (minValues only on NodePools). */
export interface SelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
  minValues?: number;
}

const INT = /^[+-]?\d+$/;
const MAX_LEN = Number.MAX_SAFE_INTEGER;
const EMPTY: ReadonlySet<string> = new Set();
const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

/** Go's strconv.Atoi on a 64-bit platform: optional sign, decimal digits, int64 range; null otherwise. */
export function atoi(text: string): bigint | null {
  if (!INT.test(text)) return null;
  const n = BigInt(text);
  return n > INT64_MAX || n < INT64_MIN ? null : n;
}

/**
 * A label value as the integer Karpenter's bounds compare (strconv.Atoi), null when it is not one. Bounds are kept
 * as safe integers (see Requirement.tryOf), so an int64 beyond them compares as ±Infinity, exactly; the common short
 * value skips BigInt.
 */
function intValue(value: string): number | null {
  if (!INT.test(value)) return null;
  const n = Number(value);
  if (Number.isSafeInteger(n)) return n;
  const big = atoi(value);
  return big === null ? null : big > 0n ? Infinity : -Infinity;
}

function withinBounds(value: string, gte: number | undefined, lte: number | undefined): boolean {
  if (gte === undefined && lte === undefined) return true;
  const n = intValue(value);
  if (n === null) return false;
  if (gte !== undefined && n < gte) return false;
  if (lte !== undefined && n > lte) return false;
  return true;
}

const maxOf = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.max(a, b));
const minOf = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.min(a, b));

export class RequirementError extends Error {}

export class Requirement {
  constructor(
    readonly key: string,
    /** true: every value except `values` (NotIn / Exists); false: exactly `values` (In / DoesNotExist). */
    readonly complement: boolean,
    readonly values: ReadonlySet<string>,
    readonly gte?: number,
    readonly lte?: number,
    readonly minValues?: number,
  ) {}

  /** Builds a requirement from a selector operator; Gt/Lt become inclusive bounds as Karpenter canonicalises them. */
  static of(key: string, operator: Operator, values: readonly string[] = [], minValues?: number): Requirement {
    const r = Requirement.tryOf(key, operator, values, minValues);
    if (typeof r === 'string') throw new RequirementError(`${key}: ${r}`);
    return r;
  }

  /**
   * Each operator's meaning, the one place it is defined (Karpenter's NewRequirementWithFlexibility): the requirement,
   * or why it cannot be one (an unknown operator, a bound that is not one integer). The key is normalized.
   */
  static tryOf(key: string, operator: string, values: readonly string[] = [], minValues?: number): Requirement | string {
    const k = NORMALIZED_LABELS[key] ?? key;
    switch (operator) {
      case 'In':
        return new Requirement(k, false, new Set(values), undefined, undefined, minValues);
      case 'NotIn':
        return new Requirement(k, true, new Set(values), undefined, undefined, minValues);
      case 'Exists':
        return new Requirement(k, true, EMPTY, undefined, undefined, minValues);
      case 'DoesNotExist':
        return new Requirement(k, false, EMPTY, undefined, undefined, minValues);
      case 'Gt':
      case 'Lt':
      case 'Gte':
      case 'Lte': {
        if (values.length !== 1) return `${operator} takes one integer value, got ${values.length}`;
        const big = atoi(values[0]);
        if (big === null) return `${operator} takes an integer, got "${values[0]}"`;
        // nothing is greater than the largest int64 (Karpenter's requirement_test.go checks it)
        if (operator === 'Gt' && big === INT64_MAX) return new Requirement(k, false, EMPTY, undefined, undefined, minValues);
        // bounds are kept as numbers, exact to 2^53; no instance label comes near, so a larger bound is refused
        // rather than compared inexactly
        const bound = Number(big);
        if (!Number.isSafeInteger(bound)) return `${operator} takes an integer within ±${MAX_LEN}, got "${values[0]}"`;
        if (operator === 'Gt') return new Requirement(k, true, EMPTY, bound + 1, undefined, minValues);
        if (operator === 'Lt') return new Requirement(k, true, EMPTY, undefined, bound - 1, minValues);
        if (operator === 'Gte') return new Requirement(k, true, EMPTY, bound, undefined, minValues);
        return new Requirement(k, true, EMPTY, undefined, bound, minValues);
      }
      default:
        return `operator "${operator}" is not one Karpenter knows (${OPERATORS.join(', ')})`;
    }
  }

  /** From a selector requirement as written in YAML; an unknown operator is an error naming it. */
  static fromSelector(r: SelectorRequirement): Requirement {
    // the engine's own wording for a refused operator (its error messages name what was expected)
    if (!isOperator(r.operator))
      throw new RequirementError(`${r.key}: unknown operator "${r.operator}" (expected one of ${OPERATORS.join(', ')})`);
    const out = Requirement.tryOf(r.key, r.operator, (r.values ?? []).map(String), r.minValues);
    if (typeof out === 'string') throw new RequirementError(`${r.key}: ${out}`);
    return out;
  }

  withMinValues(minValues: number | undefined): Requirement {
    return new Requirement(this.key, this.complement, this.values, this.gte, this.lte, minValues);
  }

  operator(): 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' {
    if (this.complement) return this.values.size > 0 ? 'NotIn' : 'Exists';
    return this.values.size > 0 ? 'In' : 'DoesNotExist';
  }

  /** Number of allowed values; a complement set counts as (practically) infinite. */
  len(): number {
    return this.complement ? MAX_LEN - this.values.size : this.values.size;
  }

  has(value: string): boolean {
    if (this.complement) return !this.values.has(value) && withinBounds(value, this.gte, this.lte);
    return this.values.has(value) && withinBounds(value, this.gte, this.lte);
  }

  /** Sorted values (the allowed ones for In, the excluded ones for NotIn). */
  sortedValues(): string[] {
    return [...this.values].sort();
  }

  /** One allowed value, deterministic: the smallest for In; "" otherwise. */
  any(): string {
    if (this.complement || this.values.size === 0) return '';
    let best: string | undefined;
    for (const v of this.values) if (best === undefined || v < best) best = v;
    return best ?? '';
  }

  intersection(other: Requirement): Requirement {
    const complement = this.complement && other.complement;
    let gte = maxOf(this.gte, other.gte);
    let lte = minOf(this.lte, other.lte);
    const minValues = maxOf(this.minValues, other.minValues);
    if (gte !== undefined && lte !== undefined && gte > lte)
      return new Requirement(this.key, false, EMPTY, undefined, undefined, minValues);
    const values = new Set<string>();
    if (this.complement && other.complement) {
      for (const v of this.values) values.add(v);
      for (const v of other.values) values.add(v);
    } else if (this.complement) {
      for (const v of other.values) if (!this.values.has(v)) values.add(v);
    } else if (other.complement) {
      for (const v of this.values) if (!other.values.has(v)) values.add(v);
    } else {
      const [small, large] = this.values.size <= other.values.size ? [this.values, other.values] : [other.values, this.values];
      for (const v of small) if (large.has(v)) values.add(v);
    }
    for (const v of values) if (!withinBounds(v, gte, lte)) values.delete(v);
    // a concrete set needs no bounds: its values were checked against them
    if (!complement) gte = lte = undefined;
    return new Requirement(this.key, complement, values, gte, lte, minValues);
  }

  /** Whether any value satisfies both, without building the intersection. */
  hasIntersection(other: Requirement): boolean {
    const gte = maxOf(this.gte, other.gte);
    const lte = minOf(this.lte, other.lte);
    if (gte !== undefined && lte !== undefined && gte > lte) return false;
    if (this.complement && other.complement) return true;
    if (this.complement) {
      for (const v of other.values) if (!this.values.has(v) && withinBounds(v, gte, lte)) return true;
      return false;
    }
    if (other.complement) {
      for (const v of this.values) if (!other.values.has(v) && withinBounds(v, gte, lte)) return true;
      return false;
    }
    const swap = this.values.size > other.values.size;
    const small = swap ? other.values : this.values;
    const large = swap ? this.values : other.values;
    for (const v of small) if (large.has(v) && withinBounds(v, gte, lte)) return true;
    return false;
  }

  /** Karpenter's wording: `key In [a b c d e and 3 others] >=4 minValues 2`. */
  toString(): string {
    const op = this.operator();
    let s: string;
    if (op === 'Exists' || op === 'DoesNotExist') s = `${this.key} ${op}`;
    else {
      const values = this.sortedValues();
      const shown = values.length > 5 ? [...values.slice(0, 5), `and ${values.length - 5} others`] : values;
      s = `${this.key} ${op} [${shown.join(' ')}]`;
    }
    if (this.gte !== undefined) s += ` >=${this.gte}`;
    if (this.lte !== undefined) s += ` <=${this.lte}`;
    if (this.minValues !== undefined) s += ` minValues ${this.minValues}`;
    return s;
  }

  /** Canonical form for cache keys (all values, no truncation). */
  signature(): string {
    return `${this.key}${this.complement ? '!' : '='}${this.sortedValues().join(',')}|${this.gte ?? ''}|${this.lte ?? ''}|${this.minValues ?? ''}`;
  }
}

/** Why two requirement sets do not fit together; the message is built only when asked for. */
export interface Incompatibility {
  message(): string;
}

const isNegative = (op: string) => op === 'NotIn' || op === 'DoesNotExist';

/** A set of requirements keyed by label, each key intersected as requirements are added (Karpenter's Requirements). */
export class Requirements {
  private readonly byKey: Map<string, Requirement>;

  constructor(requirements: Iterable<Requirement> = []) {
    this.byKey = new Map();
    for (const r of requirements) this.add(r);
  }

  static fromSelectors(selectors: readonly SelectorRequirement[]): Requirements {
    return new Requirements(selectors.map((s) => Requirement.fromSelector(s)));
  }

  /** Exactly these label values (a node's labels, a nodeSelector). */
  static fromLabels(labels: Readonly<Record<string, string>>): Requirements {
    const out = new Requirements();
    for (const [k, v] of Object.entries(labels)) out.add(Requirement.of(k, 'In', [v]));
    return out;
  }

  copy(): Requirements {
    const out = new Requirements();
    for (const [k, r] of this.byKey) out.byKey.set(k, r);
    return out;
  }

  add(...requirements: Requirement[]): this {
    for (const r of requirements) {
      const existing = this.byKey.get(r.key);
      this.byKey.set(r.key, existing ? r.intersection(existing) : r);
    }
    return this;
  }

  addAll(other: Requirements): this {
    for (const r of other.byKey.values()) this.add(r);
    return this;
  }

  /** Replaces a key outright (used where Karpenter assigns rather than intersects). */
  set(requirement: Requirement): this {
    this.byKey.set(requirement.key, requirement);
    return this;
  }

  delete(key: string): this {
    this.byKey.delete(key);
    return this;
  }

  has(key: string): boolean {
    return this.byKey.has(key);
  }

  /** The requirement on `key`, or Exists when the key is not constrained. */
  get(key: string): Requirement {
    return this.byKey.get(key) ?? Requirement.of(key, 'Exists');
  }

  keys(): IterableIterator<string> {
    return this.byKey.keys();
  }

  values(): IterableIterator<Requirement> {
    return this.byKey.values();
  }

  get size(): number {
    return this.byKey.size;
  }

  hasMinValues(): boolean {
    for (const r of this.byKey.values()) if (r.minValues !== undefined) return true;
    return false;
  }

  /**
   * Whether `incoming` can loosely be met by these requirements: a key this set does not define is refused unless it
   * is in `allowUndefined` (the well-known labels) or only excludes values; defined keys must intersect.
   */
  isCompatible(incoming: Requirements, allowUndefined?: ReadonlySet<string>): boolean {
    return this.compatibility(incoming, allowUndefined) === null;
  }

  compatibility(incoming: Requirements, allowUndefined?: ReadonlySet<string>): Incompatibility | null {
    for (const [key, r] of incoming.byKey) {
      if (allowUndefined?.has(key)) continue;
      if (this.byKey.has(key) || isNegative(r.operator())) continue;
      return { message: () => `label "${key}" does not have known values${this.labelHint(key, allowUndefined)}` };
    }
    return this.intersection(incoming);
  }

  /** Whether the keys both sets define overlap (undefined keys allowed), per Karpenter's Intersects. */
  intersects(incoming: Requirements): boolean {
    return this.intersection(incoming) === null;
  }

  private intersection(incoming: Requirements): Incompatibility | null {
    const swap = this.byKey.size > incoming.byKey.size;
    const small = swap ? incoming.byKey : this.byKey;
    const large = swap ? this.byKey : incoming.byKey;
    let bad: string[] | null = null;
    for (const key of small.keys()) {
      if (!large.has(key)) continue;
      const existing = this.byKey.get(key) as Requirement;
      const inc = incoming.byKey.get(key) as Requirement;
      if (existing.hasIntersection(inc)) continue;
      if (isNegative(inc.operator()) && isNegative(existing.operator())) continue;
      (bad ??= []).push(key);
    }
    if (bad === null) return null;
    bad.sort();
    return {
      message: () => bad.map((key) => `key ${key}, ${incoming.get(key)} not in ${this.get(key)}`).join('; '),
    };
  }

  private labelHint(key: string, allowUndefined?: ReadonlySet<string>): string {
    const suffix = key.includes('/') ? key.slice(key.indexOf('/') + 1) : key;
    const candidates = [...[...(allowUndefined ?? [])].sort(), ...[...this.byKey.keys()].sort()];
    // Karpenter takes the first of its (unordered) set that ends with the key's name or contains the key; a name
    // match is preferred here so the hint does not depend on set order
    const hit = candidates.find((known) => known.endsWith(suffix)) ?? candidates.find((known) => known.includes(key));
    return hit === undefined ? '' : ` (typo of "${hit}"?)`;
  }

  /** Karpenter's wording: requirements sorted, hostname left out, joined by ", ". */
  toString(): string {
    return [...this.byKey.values()]
      .filter((r) => !RESTRICTED_LABELS.has(r.key))
      .map((r) => r.toString())
      .sort()
      .join(', ');
  }

  /** Canonical form for cache keys, optionally leaving some keys out. */
  signature(omit?: ReadonlySet<string>): string {
    const parts: string[] = [];
    for (const [k, r] of this.byKey) if (!omit?.has(k)) parts.push(r.signature());
    return parts.sort().join(';');
  }
}
