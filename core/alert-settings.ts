import { ALERT_RULES, DEFAULT_ALERT_SETTINGS, type AlertRuleSettings, type AlertSettings } from './alert-model.js';

/**
 * The alert settings from what is stored (a JSON object overriding some of the defaults): every field that is a
 * number of the right sign (or a boolean for `enabled`) replaces its default; anything else is reported and ignored,
 * so one bad field never turns every rule off. Returns the settings and the problems, each naming its field.
 */
export function alertSettingsFrom(stored: unknown): { settings: AlertSettings; problems: string[] } {
  const problems: string[] = [];
  const d = DEFAULT_ALERT_SETTINGS;
  const obj = (x: unknown): Record<string, unknown> =>
    typeof x === 'object' && x !== null && !Array.isArray(x) ? (x as Record<string, unknown>) : {};
  const s = obj(stored);
  const num = (path: string, value: unknown, fallback: number): number => {
    if (value === undefined) return fallback;
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
    problems.push(`${path}: ${JSON.stringify(value)} is not a number >= 0 (kept ${fallback})`);
    return fallback;
  };
  const rulesIn = obj(s.rules);
  for (const name of Object.keys(rulesIn))
    if (!(ALERT_RULES as readonly string[]).includes(name)) problems.push(`rules.${name}: no such rule`);
  const rules = Object.fromEntries(
    ALERT_RULES.map((rule) => {
      const r = obj(rulesIn[rule]);
      const base = d.rules[rule];
      let enabled = base.enabled;
      if (r.enabled !== undefined) {
        if (typeof r.enabled === 'boolean') enabled = r.enabled;
        else problems.push(`rules.${rule}.enabled: ${JSON.stringify(r.enabled)} is not true or false (kept ${base.enabled})`);
      }
      const out: AlertRuleSettings = {
        enabled,
        holdMs: num(`rules.${rule}.holdMs`, r.holdMs, base.holdMs),
        threshold: num(`rules.${rule}.threshold`, r.threshold, base.threshold),
      };
      return [rule, out];
    }),
  ) as AlertSettings['rules'];
  return {
    settings: {
      rules,
      spotBaselineMs: num('spotBaselineMs', s.spotBaselineMs, d.spotBaselineMs),
      unschedulableWindowMs: num('unschedulableWindowMs', s.unschedulableWindowMs, d.unschedulableWindowMs),
      packingWindowMs: num('packingWindowMs', s.packingWindowMs, d.packingWindowMs),
      billGapMinAmount: num('billGapMinAmount', s.billGapMinAmount, d.billGapMinAmount),
      snapshotIntervalMs: num('snapshotIntervalMs', s.snapshotIntervalMs, d.snapshotIntervalMs),
    },
    problems,
  };
}
