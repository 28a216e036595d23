import type { ApiResponse } from '@schemas/api-routes';
import { formatUsdPerHour } from '../../../lib/format';

type Footprint = ApiResponse<'/api/whatif/headroom'>['rows'][number]['today'];

/** "2 nodes: 1 × c6a.4xlarge on-demand, 1 × c6a.2xlarge spot" */
export function mixText(f: Footprint): string {
  if (f.nodes === 0) return 'no nodes';
  return `${f.nodes} node${f.nodes === 1 ? '' : 's'}: ${f.mix.map((m) => `${m.nodes} × ${m.instanceType} ${m.capacityType}`).join(', ')}`;
}

export function FootprintCell({ f }: { f: Footprint }) {
  return (
    <td>
      <span className="num">{formatUsdPerHour(f.usdPerHour)}/h</span>
      <br />
      <small>{mixText(f)}</small>
    </td>
  );
}
