import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ResourceAmounts } from './model.js';
import { QuantityError, parseBaseUnits, parseCpuMillicores } from './quantity.js';

/**
 * The instance-type reference shipped in data/instance-types.json (origin in data/README.md): per EC2 type, the
 * labels Karpenter puts on a node of that type and the allocatable it computes. Read once per path, when first
 * asked for (nothing is read at import time).
 */

/** The shipped file, beside the other data. */
export const DEFAULT_INSTANCE_TYPES_PATH = fileURLToPath(new URL('../data/instance-types.json', import.meta.url));

export interface InstanceTypeEntry {
  name: string;
  /** Well-known labels: karpenter.k8s.aws/instance-*, kubernetes.io/arch, kubernetes.io/os, node.kubernetes.io/instance-type. */
  labels: Readonly<Record<string, string>>;
  /** Allocatable as Karpenter computes it, parsed: cpu in millicores, memory in bytes, pods and GPUs as counts. */
  allocatable: ResourceAmounts;
  /** The same as the file writes it, Kubernetes quantities (cpu, memory, pods, ephemeral-storage, nvidia.com/gpu, ...). */
  allocatableQuantities: Readonly<Record<string, string>>;
  /** karpenter.k8s.aws/instance-cpu: the type's vCPUs (its capacity, not allocatable). */
  vcpu: number;
  /** karpenter.k8s.aws/instance-memory: the type's memory in MiB. */
  memoryMiB: number;
}

export interface InstanceCatalog {
  /** By instance type name, sorted by name. */
  types: ReadonlyMap<string, InstanceTypeEntry>;
  /** Every label key some type carries: the keys a requirement on the type itself can be judged by. */
  labelKeys: ReadonlySet<string>;
  /** Where the data comes from (the file's `_source.origin`). */
  origin: string;
}

export class InstanceCatalogError extends Error {}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const stringMap = (v: unknown): Record<string, string> | null =>
  isRecord(v) && Object.values(v).every((x) => typeof x === 'string') ? (v as Record<string, string>) : null;

/** The catalogue from the file's JSON; an entry that is malformed stops the load, naming the type and `where`. */
export function parseInstanceCatalog(json: unknown, where: string): InstanceCatalog {
  if (!isRecord(json) || !isRecord(json.instanceTypes)) throw new InstanceCatalogError(`${where}: no "instanceTypes" object`);
  const raw = json.instanceTypes;
  const source = isRecord(json._source) && typeof json._source.origin === 'string' ? json._source.origin : 'unknown';
  const types = new Map<string, InstanceTypeEntry>();
  const labelKeys = new Set<string>();
  for (const name of Object.keys(raw).sort()) {
    const entry = raw[name];
    const labels = isRecord(entry) ? stringMap(entry.labels) : null;
    const allocatable = isRecord(entry) ? stringMap(entry.allocatable) : null;
    if (labels === null || allocatable === null)
      throw new InstanceCatalogError(`${where}: instance type "${name}" needs "labels" and "allocatable" objects of strings`);
    // A type Karpenter cannot place pods on (no cpu, memory or pods figure) is left out, as Karpenter would.
    if (!allocatable.cpu || !allocatable.memory || !allocatable.pods) continue;
    let parsed: ResourceAmounts;
    try {
      parsed = {
        cpuMillicores: parseCpuMillicores(allocatable.cpu),
        memoryBytes: parseBaseUnits(allocatable.memory),
        pods: parseBaseUnits(allocatable.pods),
        gpu: allocatable['nvidia.com/gpu'] ? parseBaseUnits(allocatable['nvidia.com/gpu']) : 0,
      };
    } catch (err) {
      if (err instanceof QuantityError) throw new InstanceCatalogError(`${where}: instance type "${name}": ${err.message}`);
      throw err;
    }
    for (const key of Object.keys(labels)) labelKeys.add(key);
    types.set(name, {
      name,
      labels,
      allocatable: parsed,
      allocatableQuantities: allocatable,
      vcpu: Number(labels['karpenter.k8s.aws/instance-cpu']),
      memoryMiB: Number(labels['karpenter.k8s.aws/instance-memory']),
    });
  }
  return { types, labelKeys, origin: source };
}

const loaded = new Map<string, InstanceCatalog>();

/** The catalogue at `path` (default: the shipped one), read and parsed on the first call for that path. */
export function loadInstanceCatalog(path: string = DEFAULT_INSTANCE_TYPES_PATH): InstanceCatalog {
  const cached = loaded.get(path);
  if (cached) return cached;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new InstanceCatalogError(`cannot read the instance-type catalogue ${path}: ${(err as Error).message}`);
  }
  const catalog = parseInstanceCatalog(json, path);
  loaded.set(path, catalog);
  return catalog;
}
