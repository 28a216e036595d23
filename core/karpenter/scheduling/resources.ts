import { formatCpu, parseBaseUnits, parseCpuMillicores } from '../../quantity.js';

/**
 * Resource amounts. A `ResourceMap` is keyed by Kubernetes resource name; CPU is in millicores and every other
 * resource in its base unit (bytes, count), as integers. The scheduler's hot loops use `ResourceVector`s instead:
 * one Float64Array slot per resource name of a `ResourceSpace` fixed before scheduling starts.
 */
export type ResourceMap = Record<string, number>;
export type QuantityInput = string | number;

export const parseQuantity = (name: string, q: QuantityInput): number =>
  name === 'cpu' ? parseCpuMillicores(String(q)) : parseBaseUnits(String(q));

/** Parses a Kubernetes ResourceList (quantity strings, or numbers as YAML gives them). */
export function parseResourceList(list: Readonly<Record<string, QuantityInput>> | undefined): ResourceMap {
  const out: ResourceMap = {};
  if (!list) return out;
  for (const [name, q] of Object.entries(list)) out[name] = parseQuantity(name, q);
  return out;
}

export function formatQuantity(name: string, amount: number): string {
  if (name === 'cpu') return formatCpu(amount);
  if (amount !== 0 && Number.isInteger(amount)) {
    for (const [suffix, unit] of [
      ['Ti', 2 ** 40],
      ['Gi', 2 ** 30],
      ['Mi', 2 ** 20],
      ['Ki', 2 ** 10],
    ] as const) {
      if (amount % unit === 0) return `${amount / unit}${suffix}`;
    }
  }
  return String(amount);
}

/** Karpenter's resources.String: `{"cpu":"1","memory":"1Gi","pods":"1"}` with sorted keys. */
export function formatResources(map: Readonly<ResourceMap>): string {
  const keys = Object.keys(map).sort();
  if (keys.length === 0) return '{}';
  return `{${keys.map((k) => `"${k}":"${formatQuantity(k, map[k])}"`).join(',')}}`;
}

export function mergeResources(...maps: Readonly<ResourceMap>[]): ResourceMap {
  const out: ResourceMap = {};
  for (const m of maps) for (const [k, v] of Object.entries(m)) out[k] = (out[k] ?? 0) + v;
  return out;
}

export function subtractResources(a: Readonly<ResourceMap>, b: Readonly<ResourceMap>): ResourceMap {
  const out: ResourceMap = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) - v;
  return out;
}

/** The resource names a simulation uses, each with a slot in every vector. */
export class ResourceSpace {
  readonly names: string[] = [];
  private readonly slots = new Map<string, number>();

  constructor(names: Iterable<string> = []) {
    for (const n of ['cpu', 'memory', 'pods', ...names]) this.slot(n);
  }

  /** The slot of `name`, added if new (only before vectors are made). */
  slot(name: string): number {
    let i = this.slots.get(name);
    if (i === undefined) {
      i = this.names.length;
      this.names.push(name);
      this.slots.set(name, i);
    }
    return i;
  }

  indexOf(name: string): number | undefined {
    return this.slots.get(name);
  }

  get size(): number {
    return this.names.length;
  }

  vector(map?: Readonly<ResourceMap>): Float64Array {
    const v = new Float64Array(this.names.length);
    if (map) for (const [k, amount] of Object.entries(map)) v[this.slot(k)] = amount;
    return v;
  }

  toMap(v: Float64Array, keepZero = false): ResourceMap {
    const out: ResourceMap = {};
    for (let i = 0; i < v.length; i++) if (keepZero || v[i] !== 0) out[this.names[i]] = v[i];
    return out;
  }
}

export type ResourceVector = Float64Array;

/** Karpenter's resources.Fits: every request within the total, and no total negative. */
export function fits(requests: ResourceVector, total: ResourceVector): boolean {
  for (let i = 0; i < total.length; i++) {
    if (total[i] < 0 || requests[i] > total[i]) return false;
  }
  return true;
}

/** Whether requests + extra fit the total, without allocating the sum. */
export function fitsSum(requests: ResourceVector, extra: ResourceVector, total: ResourceVector): boolean {
  for (let i = 0; i < total.length; i++) {
    if (total[i] < 0 || requests[i] + extra[i] > total[i]) return false;
  }
  return true;
}

/** Whether a + b + c fit the total, without allocating the sum. */
export function fitsSum3(a: ResourceVector, b: ResourceVector, c: ResourceVector, total: ResourceVector): boolean {
  for (let i = 0; i < total.length; i++) {
    if (total[i] < 0 || a[i] + b[i] + c[i] > total[i]) return false;
  }
  return true;
}

export function addInto(target: ResourceVector, v: ResourceVector): ResourceVector {
  for (let i = 0; i < target.length; i++) target[i] += v[i];
  return target;
}

export function subtractInto(target: ResourceVector, v: ResourceVector): ResourceVector {
  for (let i = 0; i < target.length; i++) target[i] -= v[i];
  return target;
}

export const addVectors = (a: ResourceVector, b: ResourceVector): ResourceVector => addInto(Float64Array.from(a), b);

export function minVectors(a: ResourceVector, b: ResourceVector): ResourceVector {
  const out = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = Math.min(a[i], b[i]);
  return out;
}

export function maxVectors(a: ResourceVector, b: ResourceVector): ResourceVector {
  const out = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = Math.max(a[i], b[i]);
  return out;
}
