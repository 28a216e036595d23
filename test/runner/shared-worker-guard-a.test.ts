import { expect, it, vi } from 'vitest';

/*
 * shared-worker-guard.ts at work (integration project: files share a worker process). This file and its twin
 * (shared-worker-guard-b.test.ts) each check that nothing the other leaves behind reaches them, then leave the same behind:
 * whichever runs second in a worker fails without the guard (seen red: the env key set by hand came through).
 */
it('starts without what the other file left (env set by hand, vi.stubEnv, a signal listener), then leaves its own', () => {
  expect(process.env.LEDGER_GUARD_CHECK).toBeUndefined();
  expect(process.env.AWS_MAX_ATTEMPTS).not.toBe('ledger-guard-check');
  expect(process.listeners('SIGTERM').some((l) => l.name === 'guardCheckListener')).toBe(false);
  process.env.LEDGER_GUARD_CHECK = 'a';
  vi.stubEnv('AWS_MAX_ATTEMPTS', 'ledger-guard-check');
  process.once('SIGTERM', function guardCheckListener() {});
});
