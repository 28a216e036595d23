import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from '../../db/open-db.js';
import { UsageError } from '../usage-error.js';
import { CollectContext } from './context.js';
import { every, runDueStages, type Stage } from './stage.js';

// The loop's contract, on stages written here (what each does is its own module's test: cli/collect*.test.ts).
const db = openDb({ path: ':memory:' });
afterAll(() => db.close());

function context(): { ctx: CollectContext; err: string[] } {
  const err: string[] = [];
  const ctx = new CollectContext({ cluster: 'c', sinceMs: 1, watch: false, intervalMs: 1, dbPath: ':memory:', quiet: true }, db, {
    err: (l) => err.push(l),
    out: () => {},
    env: {},
  });
  return { ctx, err };
}

const stage = (name: string, ran: string[], run: () => void = () => {}): Stage => ({
  name,
  due: () => true,
  run: async () => {
    ran.push(name);
    run();
  },
});

describe('runDueStages', () => {
  it('runs the next stages after one throws, and counts the failure against the stage that threw', async () => {
    const { ctx, err } = context();
    const ran: string[] = [];
    const stages = [
      stage('a', ran),
      stage('b', ran, () => {
        throw new Error('refused');
      }),
      stage('c', ran),
    ];
    await runDueStages(ctx, stages, 0);
    await runDueStages(ctx, stages, 1);
    expect(ran).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
    expect(ctx.summary.stages).toEqual({ a: { runs: 2, failures: 0 }, b: { runs: 2, failures: 2 }, c: { runs: 2, failures: 0 } });
    expect(ctx.summary.ok).toBe(false);
    expect(ctx.summary.failures).toEqual(['b: refused', 'b: refused']);
    expect(err).toEqual(['✗ b: refused', '✗ b: refused']);
  });

  it('lets a usage error (the user must fix the region or --db) end the run', async () => {
    const { ctx } = context();
    const ran: string[] = [];
    const stages = [
      stage('a', ran, () => {
        throw new UsageError('pass --region');
      }),
      stage('b', ran),
    ];
    await expect(runDueStages(ctx, stages, 0)).rejects.toThrow('pass --region');
    expect(ran).toEqual(['a']);
  });

  it('runs a stage only when its cadence is due: every(8 h) at 0, not at 8 h - 1 ms, again at 8 h', async () => {
    const { ctx } = context();
    const eightHoursMs = 8 * 3_600_000;
    const cadence = every(eightHoursMs);
    const at: number[] = [];
    const bill: Stage = {
      name: 'bill',
      due: cadence.due,
      run: async (t) => {
        cadence.ran(t);
        at.push(t);
      },
    };
    for (const t of [0, 5 * 60_000, eightHoursMs - 1, eightHoursMs, eightHoursMs + 5 * 60_000]) await runDueStages(ctx, [bill], t);
    expect(at).toEqual([0, eightHoursMs]);
    expect(ctx.summary.stages.bill).toEqual({ runs: 2, failures: 0 });
  });
});
