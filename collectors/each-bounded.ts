/**
 * Runs `work` on every item, at most `limit` at once, started in the items' order. Every item is run even when some
 * fail: it resolves once all have settled, then rejects with the first failure (in the items' order) if any, so no
 * work is left running behind a caller that has moved on. A caller that must go on past one item's failure (one
 * account of several) catches it inside `work`.
 */
export async function eachBounded<T>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  if (!Number.isInteger(limit) || limit < 1) throw new Error(`eachBounded: limit must be a whole number of 1 or more, got ${limit}`);
  const failures: { index: number; err: unknown }[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next;
      next += 1;
      try {
        await work(items[index], index);
      } catch (err) {
        failures.push({ index, err });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failures.length > 0) throw failures.sort((a, b) => a.index - b.index)[0].err;
}
