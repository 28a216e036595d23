import type { SimulationResult } from '../core/karpenter/scheduling/index.js';
import type { ExpandedWorkload, IgnoredObject } from '../core/karpenter/scheduling/object-stream.js';

/** `simulate`'s readable answer (without --json): what it read, then tables of what Karpenter would do. */

export interface ReportContext {
  now: number;
  catalogue: string;
  catalogueTypes: number;
  spotPrices: number;
  counts: { nodePools: number; nodes: number; pods: number };
  ignored: IgnoredObject[];
  expanded: ExpandedWorkload[];
}

const HOURS_PER_MONTH = 730;

const usd = (v: number): string => `$${v.toFixed(4)}`;
const usdSigned = (v: number): string => `${v < 0 ? '−' : '+'}$${Math.abs(v).toFixed(4)}`;

/** Columns padded to their widest cell; the last column is left ragged. */
export function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].map((l) => `  ${l}`);
}

/** The first few options, then how many more. */
const options = (names: string[], shown = 3): string =>
  names.length <= shown ? names.join(', ') : `${names.slice(0, shown).join(', ')} (+${names.length - shown} more)`;

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

export function formatReport(r: SimulationResult, ctx: ReportContext): string {
  const out: string[] = [];
  const spot = ctx.spotPrices > 0 ? `, ${plural(ctx.spotPrices, 'spot price')} from --db` : '';
  out.push(
    `Simulated at ${new Date(ctx.now).toISOString()} on ${plural(ctx.counts.nodePools, 'NodePool')}, ${plural(ctx.counts.nodes, 'node')}, ${plural(ctx.counts.pods, 'pod')}; catalogue ${ctx.catalogue} (${plural(ctx.catalogueTypes, 'instance type')}${spot}).`,
  );
  for (const w of ctx.expanded) {
    const already = w.existing > 0 ? `, ${w.existing} already running` : '';
    out.push(`  ${w.workload}: ${plural(w.replicas, 'replica')}${already}, ${plural(w.pods.length, 'pending pod')} added`);
  }
  if (ctx.ignored.length > 0) {
    out.push(
      `  Ignored (not read by the simulator): ${options(
        ctx.ignored.map((i) => `${i.kind} ${i.name}`),
        6,
      )}`,
    );
  }

  const { nodeClaims, unschedulable } = r.provisioning;
  const pending = nodeClaims.reduce((s, nc) => s + nc.pods.length, 0);
  out.push('', `Provisioning: ${plural(nodeClaims.length, 'NodeClaim')} to launch for ${plural(pending, 'pod')}`);
  if (nodeClaims.length > 0) {
    out.push(
      ...table(
        ['NODEPOOL', 'INSTANCE TYPE', 'CAPACITY', 'ZONE', 'USD/H', 'PODS', 'OPTIONS (CHEAPEST FIRST)'],
        nodeClaims.map((nc) => [
          nc.nodePool,
          nc.instanceType,
          nc.capacityType,
          nc.zone,
          usd(nc.usdPerHour),
          String(nc.pods.length),
          options(nc.instanceTypeOptions),
        ]),
      ),
    );
  }
  if (unschedulable.length > 0) {
    out.push('', `Unschedulable: ${plural(unschedulable.length, 'pod')}`);
    out.push(
      ...table(
        ['POD', 'REASON'],
        unschedulable.map((u) => [u.pod, u.reason]),
      ),
    );
  }

  const { decisions, unconsolidatable } = r.consolidation;
  out.push('', 'Consolidation (the next disruption round):');
  if (decisions.length === 0) out.push('  no action');
  for (const d of decisions) {
    const what = d.replacement
      ? `replace ${d.candidates.join(', ')} with ${d.replacement.instanceType} ${d.replacement.capacityType} in ${d.replacement.zone} (${usd(d.replacement.usdPerHour)}/h; options ${options(d.replacement.instanceTypeOptions)})`
      : `delete ${d.candidates.join(', ')}`;
    out.push(`  ${what}: ${d.reason}, ${d.method}, saves ${usd(d.savingsUsdPerHour)}/h`);
  }
  if (unconsolidatable.length > 0) {
    out.push('', `Nodes that stay: ${unconsolidatable.length}`);
    out.push(
      ...table(
        ['NODE', 'NODEPOOL', 'USD/H', 'REASON'],
        unconsolidatable.map((u) => [
          u.node,
          u.nodePool ?? '(not Karpenter)',
          u.usdPerHour === null ? 'unpriced' : usd(u.usdPerHour),
          u.wording === 'karpenter' ? u.reason : `${u.reason} [ledger's words]`,
        ]),
      ),
    );
  }

  const { before, after } = r.costUsdPerHour;
  const delta = after - before;
  out.push(
    '',
    `Cost per hour: before ${usd(before)}, after ${usd(after)} (${usdSigned(delta)}/h, ${usdSigned(delta * HOURS_PER_MONTH).replace(/(\.\d{2})\d+$/, '$1')}/month)`,
  );
  if (r.unpricedNodes.length > 0) out.push(`  Left out of both (not priced by the catalogue): ${options(r.unpricedNodes, 6)}`);
  for (const s of r.skippedNodePools) out.push(`NodePool ${s.nodePool} launches nothing: ${s.reason}`);
  for (const w of r.warnings) out.push(`warning: ${w}`);
  return out.join('\n');
}
