import { useId, useState, type FormEvent } from 'react';
import type { JsonParams } from '../../../lib/api-client';

export type EditQuery = JsonParams<'/api/whatif/nodepool-edit'>;

/** What the user tried: the requirement edit (null when only the consolidation policy changed) and the policy. */
export interface TriedEdit {
  query: EditQuery | null;
  nodePool: string;
  /** The snapshot it was tried at (ISO). */
  at: string;
  label: string;
  /** consolidationPolicy switched to Balanced (Karpenter v1.14, k = 2). */
  balanced: boolean;
}

interface EditFormProps {
  nodePools: readonly string[];
  at: string;
  /** The cluster the edit is tried on (the request names it); undefined: the ledger's only cluster. */
  cluster: string | undefined;
  /** No cluster chosen yet under "All clusters": nothing to edit. */
  disabled: boolean;
  onTry: (tried: TriedEdit) => void;
}

const numberOrUndefined = (s: string): number | undefined => (s.trim() === '' ? undefined : Number(s));

/**
 * A small form for one NodePool edit: capacity types, families, generation, arch, vCPU bounds, a merge, or
 * consolidationPolicy Balanced (Karpenter v1.14).
 */
export function EditForm({ nodePools, at, cluster, disabled, onTry }: EditFormProps) {
  const id = useId();
  const [nodePool, setNodePool] = useState(nodePools[0] ?? '');
  const [capacity, setCapacity] = useState<'unchanged' | 'on-demand' | 'spot' | 'on-demand,spot'>('unchanged');
  const [arch, setArch] = useState<'unchanged' | 'amd64' | 'arm64'>('unchanged');
  const [families, setFamilies] = useState('');
  const [minGeneration, setMinGeneration] = useState('');
  const [minCpu, setMinCpu] = useState('');
  const [maxCpu, setMaxCpu] = useState('');
  const [mergeInto, setMergeInto] = useState('');
  const [policy, setPolicy] = useState<'unchanged' | 'Balanced'>('unchanged');

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const fams = families.replace(/\s+/g, '').toLowerCase();
    const q: EditQuery = {
      at,
      cluster,
      nodepool: nodePool,
      capacityTypes: capacity === 'unchanged' ? undefined : capacity,
      arch: arch === 'unchanged' ? undefined : arch,
      families: fams === '' ? undefined : fams,
      minGeneration: numberOrUndefined(minGeneration),
      minCpu: numberOrUndefined(minCpu),
      maxCpu: numberOrUndefined(maxCpu),
      mergeInto: mergeInto === '' ? undefined : mergeInto,
    };
    const parts = [
      mergeInto === '' ? null : `into ${mergeInto}`,
      capacity === 'unchanged' ? null : capacity,
      arch === 'unchanged' ? null : arch,
      fams === '' ? null : fams,
      minGeneration === '' ? null : `gen ≥ ${minGeneration}`,
      minCpu === '' ? null : `≥ ${minCpu} vCPU`,
      maxCpu === '' ? null : `≤ ${maxCpu} vCPU`,
    ].filter((p) => p !== null);
    const balanced = policy === 'Balanced';
    const all = balanced ? [...parts, 'consolidationPolicy Balanced'] : parts;
    onTry({
      // the policy alone changes no requirement: nothing to re-pack, only Karpenter's next round to score
      query: parts.length > 0 || !balanced ? q : null,
      nodePool,
      at,
      label: `${cluster === undefined ? '' : `${cluster}: `}${nodePool}${all.length > 0 ? ` ${all.join(', ')}` : ''}`,
      balanced,
    });
  };

  return (
    <form className="whatif-form" onSubmit={submit} aria-label="Try a NodePool edit" data-testid="edit-form">
      <fieldset className="whatif-fields" disabled={disabled}>
        <label htmlFor={`${id}-pool`}>NodePool</label>
        <select id={`${id}-pool`} value={nodePool} onChange={(e) => setNodePool(e.target.value)}>
          {nodePools.map((p) => (
            <option key={p}>{p}</option>
          ))}
        </select>
        <label htmlFor={`${id}-ct`}>Capacity types</label>
        <select id={`${id}-ct`} value={capacity} onChange={(e) => setCapacity(e.target.value as typeof capacity)}>
          <option value="unchanged">unchanged</option>
          <option value="on-demand">on-demand</option>
          <option value="spot">spot</option>
          <option value="on-demand,spot">on-demand + spot</option>
        </select>
        <label htmlFor={`${id}-arch`}>Arch</label>
        <select id={`${id}-arch`} value={arch} onChange={(e) => setArch(e.target.value as typeof arch)}>
          <option value="unchanged">unchanged</option>
          <option value="amd64">amd64</option>
          <option value="arm64">arm64 (Graviton)</option>
        </select>
        <label htmlFor={`${id}-fam`}>Families</label>
        <input id={`${id}-fam`} value={families} placeholder="m7g,c7g" onChange={(e) => setFamilies(e.target.value)} size={14} />
        <label htmlFor={`${id}-gen`}>Generation ≥</label>
        <input id={`${id}-gen`} type="number" min={1} max={20} value={minGeneration} onChange={(e) => setMinGeneration(e.target.value)} />
        <label htmlFor={`${id}-min`}>vCPU ≥</label>
        <input id={`${id}-min`} type="number" min={1} max={1024} value={minCpu} onChange={(e) => setMinCpu(e.target.value)} />
        <label htmlFor={`${id}-max`}>vCPU ≤</label>
        <input id={`${id}-max`} type="number" min={1} max={1024} value={maxCpu} onChange={(e) => setMaxCpu(e.target.value)} />
        <label htmlFor={`${id}-merge`}>Merge into</label>
        <select id={`${id}-merge`} value={mergeInto} onChange={(e) => setMergeInto(e.target.value)}>
          <option value="">(no merge)</option>
          {nodePools
            .filter((p) => p !== nodePool)
            .map((p) => (
              <option key={p}>{p}</option>
            ))}
        </select>
        <label htmlFor={`${id}-policy`}>Consolidation policy</label>
        <select id={`${id}-policy`} value={policy} onChange={(e) => setPolicy(e.target.value as typeof policy)}>
          <option value="unchanged">unchanged</option>
          <option value="Balanced">Balanced (k = 2)</option>
        </select>
        <button type="submit" className="button">
          Try this edit
        </button>
      </fieldset>
    </form>
  );
}
