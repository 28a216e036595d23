/**
 * Alerts as every layer sees them (issue 23): the rules, what a rule observes at one evaluation, the persisted state of
 * one (rule, subject) and the settings with their defaults. Times: epoch ms UTC; shares as fractions (0.8 = 80 %).
 */

export const ALERT_RULES = [
  'budget-threshold',
  'spot-fallback',
  'idle-share',
  'packing-drop',
  'nodepool-near-limit',
  'pods-unschedulable-limits',
  'bill-estimate-gap',
  'nodepool-tag-inactive',
  'collector-stale',
] as const;
export type AlertRule = (typeof ALERT_RULES)[number];

/** The dashboard page and range that explain an alert (a path of the dashboard with its query). */
export interface AlertLink {
  /** e.g. `/efficiency?nodepool=general&from=...&to=...` */
  href: string;
  label: string;
}

/** What one rule says about one subject at one evaluation. */
export interface AlertObservation {
  rule: AlertRule;
  /** What the alert is about, stable across evaluations: `general`, `budget/general-monthly/spent/0.8`, `cluster`. */
  subject: string;
  /** True while the condition holds. */
  breaching: boolean;
  /** The figures the sentence is made of (and that tripped it), by name with the unit in the name. */
  figures: Record<string, number | string>;
  /** One sentence with those figures, said to the reader. */
  sentence: string;
  link: AlertLink;
}

/** One rule's verdict over the subjects it judged this time; null when it could not judge (no data): states kept. */
export type RuleVerdict = AlertObservation[] | null;

export type AlertPhase = 'pending' | 'firing' | 'resolved';

/** The persisted state of one (rule, subject) episode. A resolved episode is history; the next breach opens another. */
export interface AlertState {
  id?: number;
  rule: AlertRule;
  subject: string;
  phase: AlertPhase;
  pendingSinceMs: number;
  firingSinceMs: number | null;
  resolvedAtMs: number | null;
  /** The figures and sentence of the observation that fired it (then kept), or of the latest while pending. */
  figures: Record<string, number | string>;
  sentence: string;
  link: AlertLink;
}

/** A state change to deliver: fired or resolved, exactly once per episode each. */
export interface AlertTransition {
  kind: 'firing' | 'resolved';
  state: AlertState;
  atMs: number;
}

export interface AlertRuleSettings {
  /** Off: the rule is not evaluated and its open alerts stay as they are. */
  enabled: boolean;
  /** How long the condition must hold before the alert fires (0: at the first evaluation that sees it). */
  holdMs: number;
  /** The rule's threshold; its meaning is the rule's (see ALERT_RULE_DOCS). */
  threshold: number;
}

export interface AlertSettings {
  rules: Record<AlertRule, AlertRuleSettings>;
  /** spot-fallback: the on-demand share is compared with its lowest over this many ms before now. */
  spotBaselineMs: number;
  /** pods-unschedulable-limits: the events counted are those of this many ms before now. */
  unschedulableWindowMs: number;
  /** packing-drop: the windows before and after a consolidation change. */
  packingWindowMs: number;
  /** bill-estimate-gap: below this absolute gap (in the data's currency) a day is never apart. */
  billGapMinAmount: number;
  /** collector-stale: the collector's snapshot interval (threshold counts these). */
  snapshotIntervalMs: number;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

export const DEFAULT_ALERT_SETTINGS: AlertSettings = {
  rules: {
    // Threshold unused: each budget carries its own thresholds. Fires at the evaluation that sees the crossing.
    'budget-threshold': { enabled: true, holdMs: 0, threshold: 0 },
    // On-demand share of the NodePool's cost per hour up by 0.3 from its lowest of the baseline window, for an hour.
    'spot-fallback': { enabled: true, holdMs: HOUR_MS, threshold: 0.3 },
    // Idle cost over the NodePool's cost, for two hours (deploy/prometheus/rules.yaml uses 0.5 too).
    'idle-share': { enabled: true, holdMs: 2 * HOUR_MS, threshold: 0.5 },
    // CPU packing after a consolidation change below the packing before it by 0.1 (10 points), for 30 minutes.
    'packing-drop': { enabled: true, holdMs: 30 * MINUTE_MS, threshold: 0.1 },
    // The highest share of any limit the NodePool's NodeClaims use (Karpenter stops launching at 1).
    'nodepool-near-limit': { enabled: true, holdMs: 15 * MINUTE_MS, threshold: 0.9 },
    // Karpenter's FailedScheduling events for limits in the last hold window: at least this many.
    'pods-unschedulable-limits': { enabled: true, holdMs: 0, threshold: 1 },
    // |bill - estimate| / bill on the newest final day.
    'bill-estimate-gap': { enabled: true, holdMs: 0, threshold: 0.1 },
    'nodepool-tag-inactive': { enabled: true, holdMs: 0, threshold: 0 },
    // Snapshot intervals without a snapshot.
    'collector-stale': { enabled: true, holdMs: 0, threshold: 3 },
  },
  spotBaselineMs: 24 * HOUR_MS,
  unschedulableWindowMs: HOUR_MS,
  packingWindowMs: 3 * HOUR_MS,
  billGapMinAmount: 1,
  snapshotIntervalMs: 5 * MINUTE_MS,
};

/** What each rule's threshold and hold time mean (the README's table and the API's settings say the same). */
export const ALERT_RULE_DOCS: Record<AlertRule, string> = {
  'budget-threshold': "a budget's spend or month/week-end forecast at or above one of its thresholds (the budget's own, e.g. 80 %, 100 %)",
  'spot-fallback':
    'a NodePool that allows spot runs an on-demand share of its cost per hour at on-demand prices (of its capacity) at least `threshold` above its lowest over the baseline window (24 h)',
  'idle-share': "a NodePool's idle cost (capacity no request covers) above `threshold` of its cost per hour",
  'packing-drop':
    "a NodePool's CPU packing after a consolidation change at least `threshold` below the 30 min before it: the 30 min from an Underutilized consolidation disruption (Empty deletions cannot lower packing), or the last 30 min after an edit of its spec.disruption (consolidationPolicy, consolidateAfter, budgets), judged while the change is in the window (3 h)",
  'nodepool-near-limit': 'a NodePool whose NodeClaims use at least `threshold` of one of its limits (Karpenter stops launching at 100 %)',
  'pods-unschedulable-limits':
    "Karpenter's FailedScheduling events saying a NodePool's instance types all exceed its limits: at least `threshold` in the last hour",
  'bill-estimate-gap':
    'the estimate and the bill of the newest final day apart by more than `threshold` of the bill (and more than 1 in the currency)',
  'nodepool-tag-inactive': 'the `karpenter.sh/nodepool` tag is not an active cost allocation tag (the bill cannot be split by NodePool)',
  'collector-stale': 'no snapshot for `threshold` snapshot intervals',
};
