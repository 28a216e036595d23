import { ENGINE_WARM_URLS } from '../server/engine-pool/engine-warm.js';

/** What one of the server's engine warm-up answers (server/engine-pool/engine-warm.ts) said when the bench asked for it. */
export interface WarmAnswer {
  path: string;
  status: number;
  /** How many times it was asked (a 503 is asked again after its Retry-After). */
  asked: number;
}

/**
 * Waits for the engine warm-up of the server at `base`, which starts once the server is ready: each of its answers
 * asked for in turn (the pool shares the running computation with the asker, or reads the answer it kept), a 503
 * past the engine's time bound asked again after Retry-After until `giveUpAt` (a performance.now() time).
 */
export async function engineWarmed(base: string, giveUpAt: number): Promise<WarmAnswer[]> {
  const answers: WarmAnswer[] = [];
  for (const path of ENGINE_WARM_URLS) {
    for (let asked = 1; ; asked++) {
      const res = await fetch(`${base}${path}`);
      await res.arrayBuffer();
      if (res.status !== 503 || performance.now() > giveUpAt) {
        answers.push({ path, status: res.status, asked });
        break;
      }
      const retryAfterS = Number(res.headers.get('retry-after') ?? '1');
      await new Promise((r) => setTimeout(r, 1000 * (Number.isFinite(retryAfterS) && retryAfterS > 0 ? retryAfterS : 1)));
    }
  }
  return answers;
}
