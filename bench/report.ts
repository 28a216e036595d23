/**
 * One figure of `npm run bench`: ours beside a peer measured in the same run (kubectl, a bare SQLite loop, the
 * fewest possible requests) or a fixed bound (600 MB, 100 ms, 250 KB), their ratio and the target it must meet.
 */

export type Target =
  /** ours / peer at most `max`. */
  | { kind: 'at-most'; max: number }
  /** ours / peer at least `min`. */
  | { kind: 'at-least'; min: number }
  /** ours equal to peer (counts). */
  | { kind: 'equal' }
  /** Shown for context; no target. */
  | { kind: 'info' };

export type Verdict = 'pass' | 'FAIL' | 'info' | 'skipped' | 'error';

export interface BenchRow {
  /** Which bench made it: snapshot, store, ingest, cost-explorer, bundle. */
  bench: string;
  figure: string;
  unit: string;
  ours: number | null;
  /** What `peer` is: "kubectl get pods,nodes -o json", "bound", "bare better-sqlite3 loop", "fewest pages". */
  peerLabel: string;
  peer: number | null;
  ratio: number | null;
  target: Target;
  verdict: Verdict;
  note?: string;
}

export function targetText(t: Target): string {
  switch (t.kind) {
    case 'at-most':
      return `<= ${t.max}x`;
    case 'at-least':
      return `>= ${t.min}x`;
    case 'equal':
      return '= 1x';
    case 'info':
      return '-';
  }
}

/** A row with its ratio and verdict worked out; a missing figure is an error unless `skipped` says why. */
export function figure(r: Omit<BenchRow, 'ratio' | 'verdict'> & { skipped?: boolean }): BenchRow {
  const { skipped, ...row } = r;
  const ratio = row.ours !== null && row.peer !== null && row.peer !== 0 ? row.ours / row.peer : null;
  let verdict: Verdict;
  if (skipped) verdict = 'skipped';
  else if (row.ours === null || (row.target.kind !== 'info' && row.peer === null)) verdict = 'error';
  else if (row.target.kind === 'info') verdict = 'info';
  else if (row.target.kind === 'equal') verdict = row.ours === row.peer ? 'pass' : 'FAIL';
  else if (ratio === null) verdict = 'error';
  else if (row.target.kind === 'at-most') verdict = ratio <= row.target.max ? 'pass' : 'FAIL';
  else verdict = ratio >= row.target.min ? 'pass' : 'FAIL';
  return { ...row, ratio, verdict };
}

/** Three significant figures, thousands separated: 1,234 · 12.3 · 0.123; whole numbers as they are (78). */
export function formatNumber(v: number | null): string {
  if (v === null || !Number.isFinite(v)) return '-';
  const abs = Math.abs(v);
  if (abs >= 100 || Number.isInteger(v)) return Math.round(v).toLocaleString('en-US');
  if (abs >= 10) return v.toFixed(1);
  if (abs >= 1) return v.toFixed(2);
  return v === 0 ? '0' : v.toPrecision(3);
}

const formatRatio = (r: number | null): string => (r === null ? '-' : `${r >= 10 ? r.toFixed(1) : r.toFixed(2)}x`);

/** The table printed at the end of a run: one line per figure, columns padded to their widest cell. */
export function formatTable(rows: readonly BenchRow[]): string {
  const header = ['figure', 'ours', 'peer or bound', 'ratio', 'target', 'result'];
  const cells = rows.map((r) => [
    r.figure,
    `${formatNumber(r.ours)} ${r.unit}`,
    r.peer === null ? r.peerLabel : `${formatNumber(r.peer)} ${r.unit} (${r.peerLabel})`,
    formatRatio(r.ratio),
    targetText(r.target),
    r.verdict,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) =>
    c
      .map((x, i) => x.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  const notes = rows.filter((r) => r.note).map((r) => `  - ${r.figure}: ${r.note}`);
  return [
    line(header),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...cells.map(line),
    ...(notes.length ? ['', 'notes:', ...notes] : []),
  ].join('\n');
}
