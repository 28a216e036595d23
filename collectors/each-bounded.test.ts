import { describe, expect, it } from 'vitest';
import { eachBounded } from './each-bounded.js';

/** A task of `ms` that records when it started and ended relative to the others (by event order, not by clock). */
function tracker() {
  const events: string[] = [];
  let running = 0;
  let most = 0;
  const task =
    (name: string, ms: number, fail = false) =>
    async (): Promise<void> => {
      running += 1;
      most = Math.max(most, running);
      events.push(`start ${name}`);
      await new Promise((r) => setTimeout(r, ms));
      running -= 1;
      events.push(`end ${name}`);
      if (fail) throw new Error(`${name} failed`);
    };
  return { events, task, most: () => most };
}

describe('eachBounded', () => {
  it.each([
    // items, limit, the most running at once
    [5, 2, 2],
    [5, 3, 3],
    [2, 4, 2],
    [3, 1, 1],
  ])('%i items at most %i at once: %i ran together', async (n, limit, most) => {
    const t = tracker();
    const names = Array.from({ length: n }, (_, i) => `t${i}`);
    await eachBounded(names, limit, (name) => t.task(name, 20)());
    expect(t.most()).toBe(most);
    // Started in the items' order, every one ended.
    expect(t.events.filter((e) => e.startsWith('start'))).toEqual(names.map((x) => `start ${x}`));
    expect(t.events.filter((e) => e.startsWith('end'))).toHaveLength(n);
  });

  it('runs every item when one fails, then rejects with the first failure in the items order', async () => {
    const t = tracker();
    const plan: [string, number, boolean][] = [
      ['a', 40, false],
      ['b', 10, true],
      ['c', 5, true],
      ['d', 10, false],
    ];
    await expect(eachBounded(plan, 2, ([name, ms, fail]) => t.task(name, ms, fail)())).rejects.toThrow('b failed');
    // b failing does not stop c and d from starting, nor a from ending.
    expect(t.events.filter((e) => e.startsWith('end')).sort()).toEqual(['end a', 'end b', 'end c', 'end d']);
  });

  it('refuses a limit below one, naming it', async () => {
    await expect(eachBounded([1], 0, async () => {})).rejects.toThrow('limit must be a whole number of 1 or more, got 0');
  });
});
