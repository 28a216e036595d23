import { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS, WEEK_MS } from './time.js';

/**
 * Durations as Karpenter writes them and as our CLI takes them, parsed in one place (pure; results in ms).
 *
 * Karpenter's fields (expireAfter, consolidateAfter, budget durations, terminationGracePeriod) are Go durations
 * (time.ParseDuration: "720h", "30m", "1h30m", "1.5h", "300ms"); expireAfter and consolidateAfter also take
 * "Never" (Karpenter's NillableDuration). Go has no day or week unit, so a NodePool never says "30d"; our CLI
 * (--since 90d) accepts d and w on top of Go's units.
 */

/** The word Karpenter's NillableDuration takes for "no limit" (expireAfter: Never, consolidateAfter: Never). */
export const NEVER = 'Never';

const GO_UNITS_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  '\u00b5s': 1e-3, // µ (micro sign), as Go accepts
  '\u03bcs': 1e-3, // μ (Greek mu), as Go accepts
  ms: 1,
  s: SECOND_MS,
  m: MINUTE_MS,
  h: HOUR_MS,
};
const CALENDAR_UNITS_MS: Readonly<Record<string, number>> = { ...GO_UNITS_MS, d: DAY_MS, w: WEEK_MS };

/** One element: digits with an optional fraction (at least one digit on either side of the dot), then a unit. */
const ELEMENT = /([0-9]*)(?:\.([0-9]*))?([^0-9.]+)/y;

function parseWithUnits(text: string, units: Readonly<Record<string, number>>): number | null {
  let s = text;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    sign = s.startsWith('-') ? -1 : 1;
    s = s.slice(1);
  }
  if (s === '0') return 0; // Go's one unit-less form
  if (s === '') return null;
  let totalMs = 0;
  ELEMENT.lastIndex = 0;
  while (ELEMENT.lastIndex < s.length) {
    const at = ELEMENT.lastIndex;
    const m = ELEMENT.exec(s);
    if (m === null || m.index !== at) return null;
    const [, whole, fraction, unit] = m;
    if (whole === '' && (fraction === undefined || fraction === '')) return null; // "h", ".h"
    const unitMs = units[unit];
    if (unitMs === undefined) return null;
    totalMs += Number(`${whole || '0'}.${fraction ?? ''}0`) * unitMs;
  }
  return Number.isFinite(totalMs) ? sign * totalMs : null;
}

/** Go's time.ParseDuration in ms: "720h", "1h30m", "1.5h", "-30s", "0"; null when the text is not one. */
export const parseGoDuration = (text: string): number | null => parseWithUnits(text, GO_UNITS_MS);

/**
 * A Karpenter NillableDuration (expireAfter, consolidateAfter): a Go duration in ms, or Infinity for "Never"
 * (a node that never expires, a consolidation that never comes); null when it is neither.
 */
export const parseKarpenterDuration = (text: string): number | null => (text === NEVER ? Number.POSITIVE_INFINITY : parseGoDuration(text));

/** Go's units plus d (24 h) and w (7 d), for spans people type: "90d", "2w", "12h", "1d12h". */
export const parseCalendarDuration = (text: string): number | null => parseWithUnits(text, CALENDAR_UNITS_MS);
