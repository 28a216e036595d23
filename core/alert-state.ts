import type { AlertObservation, AlertRule, AlertSettings, AlertState, AlertTransition, RuleVerdict } from './alert-model.js';

/**
 * One evaluation's step of every open alert (pending or firing), pure: the open states before, each rule's verdict
 * now, and the settings give the states after and the transitions to deliver.
 *
 * - A breach opens a pending state at `atMs`; it fires at the first evaluation at least the rule's hold time later
 *   (at once when the hold time is 0). A pending state whose condition clears before then is dropped: nothing was
 *   said, nothing is taken back.
 * - A firing state resolves at the first evaluation its rule judges and the condition no longer holds (or the subject
 *   is gone: a deleted NodePool's alert resolves).
 * - A rule that could not judge (verdict null) or is disabled keeps its states as they are: missing data is not a
 *   recovery.
 * Evaluating the same moment again (a restarted collector) changes nothing and delivers nothing: firing and resolving
 * each happen once per episode, because the state that says so is what is stored.
 */
export interface AlertStep {
  /** States to write: new or changed (pending, firing, resolved). */
  changed: AlertState[];
  /** Pending states to forget (their condition cleared before the hold time ended). */
  dropped: AlertState[];
  transitions: AlertTransition[];
}

const key = (rule: AlertRule, subject: string): string => `${rule}\u0000${subject}`;

export function stepAlerts(
  open: readonly AlertState[],
  verdicts: Partial<Record<AlertRule, RuleVerdict>>,
  atMs: number,
  settings: AlertSettings,
): AlertStep {
  const step: AlertStep = { changed: [], dropped: [], transitions: [] };
  const openByKey = new Map(open.map((s) => [key(s.rule, s.subject), s]));
  const seen = new Set<string>();

  for (const [rule, verdict] of Object.entries(verdicts) as [AlertRule, RuleVerdict | undefined][]) {
    const rs = settings.rules[rule];
    if (verdict == null || !rs.enabled) {
      for (const s of open) if (s.rule === rule) seen.add(key(s.rule, s.subject));
      continue;
    }
    for (const obs of verdict) {
      const k = key(obs.rule, obs.subject);
      if (seen.has(k)) continue; // one observation per subject: the first wins
      seen.add(k);
      const before = openByKey.get(k);
      if (obs.breaching) breach(step, before, obs, atMs, rs.holdMs);
      else if (before) clear(step, before, atMs);
    }
    // Open states of this rule about subjects it no longer reports: gone, so cleared.
    for (const s of open) {
      const k = key(s.rule, s.subject);
      if (s.rule === rule && !seen.has(k)) {
        seen.add(k);
        clear(step, s, atMs);
      }
    }
  }
  return step;
}

function breach(step: AlertStep, before: AlertState | undefined, obs: AlertObservation, atMs: number, holdMs: number): void {
  if (before?.phase === 'firing') return; // already said; said once
  const pendingSinceMs = before?.pendingSinceMs ?? atMs;
  const fires = atMs - pendingSinceMs >= holdMs;
  const state: AlertState = {
    ...(before?.id === undefined ? {} : { id: before.id }),
    rule: obs.rule,
    subject: obs.subject,
    phase: fires ? 'firing' : 'pending',
    pendingSinceMs,
    firingSinceMs: fires ? atMs : null,
    resolvedAtMs: null,
    figures: obs.figures,
    sentence: obs.sentence,
    link: obs.link,
  };
  step.changed.push(state);
  if (fires) step.transitions.push({ kind: 'firing', state, atMs });
}

function clear(step: AlertStep, before: AlertState, atMs: number): void {
  if (before.phase === 'pending') {
    step.dropped.push(before);
    return;
  }
  if (before.phase !== 'firing') return;
  const state: AlertState = { ...before, phase: 'resolved', resolvedAtMs: atMs };
  step.changed.push(state);
  step.transitions.push({ kind: 'resolved', state, atMs });
}
