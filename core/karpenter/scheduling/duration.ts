import { NEVER, parseGoDuration } from '../../duration.js';

/**
 * Go duration strings as Karpenter's NodePool fields hold them ("30s", "1h30m", "720h", "Never"), in milliseconds;
 * `null` for "Never". An unparseable string throws, naming it. The parsing itself is core/duration.ts's (one parser
 * for the tree); this keeps the engine's contract: Never is null here, and a bad string is an error, not null.
 */
export function parseGoDurationMs(text: string): number | null {
  const s = text.trim();
  if (s === NEVER) return null;
  const ms = parseGoDuration(s);
  if (ms === null) throw new Error(`not a duration: "${text}" (expected e.g. 30s, 5m, 1h30m or Never)`);
  return ms;
}
