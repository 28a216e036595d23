import type { StatusResponse } from '@schemas/status';

type Fill = NonNullable<StatusResponse['fill']>;

const STAGE_TEXT: Record<Fill['stage'], string> = {
  simulating: 'simulating the scenario',
  snapshots: 'collecting snapshots',
  bill: 'pulling the Cost Explorer bill',
  cur: 'writing and importing the Cost and Usage Report',
  retention: 'folding old snapshots',
  done: 'done',
  failed: 'stopped',
};

/**
 * How far the demo's fill behind the dashboard is, in one line for the banner; null when there is none, or once it
 * is done (the rest of the banner then says what the file holds).
 */
export function fillText(f: StatusResponse['fill']): string | null {
  if (f === null || f.stage === 'done') return null;
  if (f.stage === 'failed') return `The demo's fill stopped: ${f.error ?? 'unknown error'}. Showing what was written.`;
  const parts = [`Filling the demo: ${STAGE_TEXT[f.stage]}`];
  if (f.snapshotsTotal > 0) {
    const pct = Math.floor((100 * f.snapshotsDone) / f.snapshotsTotal);
    parts.push(`${f.snapshotsDone.toLocaleString('en-US')} of ${f.snapshotsTotal.toLocaleString('en-US')} snapshots (${pct} %)`);
  }
  parts.push('the pages show the days written so far, oldest first');
  return parts.join(' · ');
}
