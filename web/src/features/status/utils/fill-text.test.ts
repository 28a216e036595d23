import { describe, expect, it } from 'vitest';
import { fillText } from './fill-text';

const base = { startedAt: '2026-12-04T21:00:00.000Z', finishedAt: null, error: null };

describe('fillText', () => {
  it('says nothing without a fill, or once it is done', () => {
    expect(fillText(null)).toBeNull();
    expect(
      fillText({ ...base, stage: 'done', snapshotsDone: 4032, snapshotsTotal: 4032, finishedAt: '2026-12-04T21:10:00.000Z' }),
    ).toBeNull();
  });

  it('names the stage, and the snapshots written of how many (1,008 of 4,032 is 25 %)', () => {
    expect(fillText({ ...base, stage: 'simulating', snapshotsDone: 0, snapshotsTotal: 0 })).toBe(
      'Filling the demo: simulating the scenario · the pages show the days written so far, oldest first',
    );
    expect(fillText({ ...base, stage: 'snapshots', snapshotsDone: 1008, snapshotsTotal: 4032 })).toBe(
      'Filling the demo: collecting snapshots · 1,008 of 4,032 snapshots (25 %) · the pages show the days written so far, oldest first',
    );
  });

  it('says why it stopped', () => {
    expect(fillText({ ...base, stage: 'failed', snapshotsDone: 3, snapshotsTotal: 4032, error: 'lock taken over' })).toBe(
      "The demo's fill stopped: lock taken over. Showing what was written.",
    );
  });
});
