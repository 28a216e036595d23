import { describe, expect, it } from 'vitest';
import { parseGoDurationMs } from './duration.js';

/** The engine's contract over core/duration.ts: Never is null (no expiry), a bad string throws naming it. */
describe('parseGoDurationMs (the engine reads NodePool and PDB durations with it)', () => {
  it.each([
    ['720h', 720 * 3_600_000],
    ['1h30m', 5_400_000],
    ['1.5h', 5_400_000],
    [' 30s ', 30_000],
    ['0', 0],
    ['-5m', -300_000],
    ['Never', null],
  ])('"%s" = %s ms', (text, ms) => {
    expect(parseGoDurationMs(text)).toBe(ms);
  });
  it.each(['never', '30d', '', '+', '5', 'h'])('"%s" throws, naming it', (text) => {
    expect(() => parseGoDurationMs(text)).toThrow(`not a duration: "${text}"`);
  });
});
