/**
 * The engine's answers kept by key (the data version and what the call simulates, engine-call-key.ts), the least recently used out first once more than
 * `max` are kept: what makes a what-if computed once per snapshot and parameters, in the pool (pool.ts) and on the
 * API's own thread (engine-runner.ts) alike.
 */
export interface KeptAnswers<T> {
  /** The answer kept under `key` (now the most recently used), or undefined. */
  get(key: string): T | undefined;
  set(key: string, answer: T): void;
  delete(key: string): void;
  clear(): void;
  readonly size: number;
}

export function keptAnswers<T>(max: number): KeptAnswers<T> {
  const kept = new Map<string, T>();
  return {
    get(key) {
      const hit = kept.get(key);
      if (hit === undefined) return undefined;
      kept.delete(key);
      kept.set(key, hit);
      return hit;
    },
    set(key, answer) {
      kept.delete(key);
      kept.set(key, answer);
      if (kept.size > max) {
        const oldest = kept.keys().next();
        if (oldest.done !== true) kept.delete(oldest.value);
      }
    },
    delete: (key) => void kept.delete(key),
    clear: () => kept.clear(),
    get size() {
      return kept.size;
    },
  };
}
