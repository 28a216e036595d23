import { percentile, tail, type TailStat } from './tail.js';

/** Timing GET routes on loopback for the bench's route rows (store, retention): latency, in turns, with a named tail. */

export interface Latency {
  n: number;
  p50Ms: number;
  /** The tail the samples can support (tail()): p99 from 100 samples, p95 from 20, else their max. */
  tailMs: number;
  tail: TailStat;
  bytes: number;
  status: number;
}

/**
 * Sequential requests (latency, not throughput) to each of `urls`: a few to warm up, then in turns, one to each URL a
 * round, up to `n` rounds within `budgetMs` for all of them. Turns, not one URL after the other: a burst of load on the
 * machine weighs on every range alike, so the ratios between them hold.
 */
export async function timeEach(urls: readonly string[], n: number, budgetMs: number): Promise<Latency[]> {
  const status: number[] = [];
  const bytes: number[] = [];
  for (let i = 0; i < urls.length; i++) {
    for (let w = 0; w < 3; w++) {
      const res = await fetch(urls[i]);
      status[i] = res.status;
      bytes[i] = (await res.arrayBuffer()).byteLength;
    }
  }
  const ok = urls.map((_, i) => status[i] === 200);
  const samples: number[][] = urls.map(() => []);
  const until = performance.now() + budgetMs;
  for (let round = 0; round < n && performance.now() < until && ok.some(Boolean); round++) {
    for (let i = 0; i < urls.length; i++) {
      if (!ok[i]) continue;
      const t0 = performance.now();
      const res = await fetch(urls[i]);
      await res.arrayBuffer();
      samples[i].push(performance.now() - t0);
    }
  }
  return urls.map((_, i) => {
    const sorted = samples[i].sort((a, b) => a - b);
    const t = tail(sorted);
    return { n: sorted.length, p50Ms: percentile(sorted, 50), tailMs: t.ms, tail: t.stat, bytes: bytes[i], status: status[i] };
  });
}

/** What a row says about its tail: which statistic, of how many samples. */
export const tailNote = (l: Latency): string =>
  `${l.tail} of ${l.n} samples${l.tail === 'p99' ? '' : l.tail === 'p95' ? ' (too few for a p99)' : ' (too few for a p95: their max)'}`;
