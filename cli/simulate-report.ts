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
  /** Built-in catalogue: types priced by a NodeOverlay for want of a price (aws v1.14.0). */
  overlayPricedTypes?: { instanceType: string; overlay: string }[];
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

/** The capacity type, with the reservation a reserved launch goes into. */
const capacity = (l: { capacityType: string; reservationId?: string }): string =>
  l.reservationId ? `${l.capacityType} ${l.reservationId}` : l.capacityType;

/** Karpenter's price, with the NodeOverlay that set it. */
const price = (l: { usdPerHour: number; priceOverlay?: string }): string =>
  l.priceOverlay ? `${usd(l.usdPerHour)} (${l.priceOverlay})` : usd(l.usdPerHour);

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
  const k = r.karpenter;
  const gates = Object.entries({
    SpotToSpotConsolidation: k.featureGates.spotToSpotConsolidation,
    NodeOverlay: k.featureGates.nodeOverlay,
    StaticCapacity: k.featureGates.staticCapacity,
    ReservedCapacity: k.featureGates.reservedCapacity,
  })
    .map(([name, on]) => `${name}=${on}`)
    .join(',');
  out.push(`  Karpenter v${k.version}'s rules; --feature-gates ${gates}; --min-values-policy ${k.minValuesPolicy}.`);
  for (const t of ctx.overlayPricedTypes ?? [])
    out.push(`  ${t.instanceType} has no price table entry: priced by NodeOverlay ${t.overlay}`);
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
          capacity(nc),
          nc.zone,
          price(nc),
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
      ? `replace ${d.candidates.join(', ')} with ${d.replacement.instanceType} ${capacity(d.replacement)} in ${d.replacement.zone} (${price(d.replacement)}/h; options ${options(d.replacement.instanceTypeOptions)})`
      : `delete ${d.candidates.join(', ')}`;
    out.push(`  ${what}: ${d.reason}, ${d.method}, saves ${usd(d.savingsUsdPerHour)}/h`);
    for (const sc of d.scores) out.push(`    ConsolidationApproved (NodePool ${sc.nodePool}): ${sc.message}`);
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
  for (const p of r.staticNodePools)
    out.push(
      `NodePool ${p.nodePool} is static (replicas ${p.replicas}, ${plural(p.nodes, 'node')}, ${usd(p.costUsdPerHour)}/h fixed): never consolidated, not used for pending pods`,
    );
  for (const o of r.overlays)
    out.push(
      o.applied
        ? `NodeOverlay ${o.name} (weight ${o.weight}): applied, ${plural(o.pricedOfferings, 'offering')} priced${o.capacityTypes ? `, capacity of ${plural(o.capacityTypes, 'type')}` : ''}`
        : `NodeOverlay ${o.name} (weight ${o.weight}): not applied (${o.reason}: ${o.message})`,
    );
  if (r.reservations.length) {
    out.push('Capacity reservations (AWS bills a reservation whether it is used or not; Karpenter prices it at on-demand ÷ 10,000,000):');
    for (const c of r.reservations)
      out.push(
        `  ${c.reservationId}: ${plural(c.nodes, 'node')} in it, ${c.launched} launched into it this round, ${c.instancesLeft === null ? 'instances left not known' : `${c.instancesLeft} left`}`,
      );
  }
  for (const w of r.warnings) out.push(`warning: ${w}`);
  return out.join('\n');
}
