/** Pure: how numbers read in explanation sentences. */

const GIB = 2 ** 30;

export const iso = (ms: number): string => new Date(ms).toISOString();

/** 3920 -> "3.92 vCPU" */
export const vcpu = (cpuMillicores: number): string => `${Number((cpuMillicores / 1000).toFixed(2))} vCPU`;

/** 15032385536 -> "14 GiB" (one decimal where it matters) */
export const gib = (memoryBytes: number): string => `${Number((memoryBytes / GIB).toFixed(1))} GiB`;

/** Dollars to the cent; amounts under a cent keep four decimals so a remainder is never shown as $0.00. */
export function usd(amount: number): string {
  const sign = amount < 0 ? '-' : '';
  const abs = Math.abs(amount);
  if (abs < 0.00005) return '$0.00';
  if (abs < 0.01) return `${sign}$${abs.toFixed(4)}`;
  // Half a cent rounds up whatever float noise sits under it (2.2949999999 and 2.2950000001 both read $2.30).
  return `${sign}$${(Math.round(abs * 100 + 1e-6) / 100).toFixed(2)}`;
}

/** 4.5 -> "4.5 h" */
export const hoursText = (hours: number): string => `${Number(hours.toFixed(2))} h`;

export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** 'general', '' -> 'untagged (no karpenter.sh/nodepool tag)' */
export const nodePoolLabel = (nodePool: string): string => (nodePool === '' ? 'untagged' : nodePool);
