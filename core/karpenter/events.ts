import { type DisruptionReason } from '../labels.js';

/**
 * The one place that knows what Karpenter writes when it disrupts a node, across the releases NodePool Ledger reads
 * (v0.30 to v1.14): the event reasons, the message wordings, the NodeClaim's DisruptionReason condition. Pure.
 *
 * What each release writes (kubernetes-sigs/karpenter unless named; file@tag):
 * - v0.30–v0.31 (pkg/controllers/deprovisioning/events/events.go): DeprovisioningTerminating "Deprovisioning Node:
 *   Consolidation/Delete" (also "Deprovisioning Machine: …", "Deprovisioning NodeClaim: …"), DeprovisioningLaunching
 *   "Launching Machine: Drift/Replace", DeprovisioningBlocked "Cannot deprovision Node: …". The method names are the
 *   deprovisioner's (pkg/metrics/constants.go: consolidation, drift, emptiness, expiration), title-cased.
 * - v0.32 (pkg/controllers/disruption/events/events.go): DisruptionTerminating "Disrupting Node: Consolidation/Delete"
 *   and "Disrupting NodeClaim: …"; Machines still get the Deprovisioning* forms.
 * - v0.33–v0.37: Disruption* only, "<Method>/<replace|delete>" (orchestration/queue.go Command.Reason()).
 * - v1.0–v1.5: the reason is the NodePool disruption reason (Underutilized, Empty, Drifted; pkg/apis/v1/nodepool.go),
 *   "Disrupting Node: Underutilized/Replace" (orchestration/queue.go Reason() = reason + "/" + replace|delete, then
 *   cases.Title).
 * - v1.6 and later: "Disrupting Node: Underutilized", "Launching NodeClaim: Underutilized" (queue.go passes
 *   string(cmd.Reason())): the method is no longer written anywhere in the event.
 * - Blocked: "Cannot disrupt Node: <why>" / "Cannot disrupt NodeClaim: <why>" up to v1.1, the bare sentence from v1.2
 *   (pretty.Sentence(err.Error()) in disruption/types.go); NodePool budgets "No allowed disruptions due to blocking
 *   budget" (v0.34+) and "… for disruption reason <R> due to blocking budget" (v1.0+).
 * - Interruption (aws/karpenter-provider-aws pkg/controllers/interruption/events/events.go, every release read):
 *   SpotInterrupted "Spot interruption warning was triggered" (Warning), CapacityReservationInstanceInterrupted (v1.10+),
 *   InstanceStopping, InstanceTerminating, InstanceUnhealthy, then TerminatingOnInterruption "Interruption triggered
 *   termination for the Node" / "… for the NodeClaim" when it deletes the NodeClaim. No "Disrupting Node: …" event.
 * - Expiration in v1 (pkg/controllers/nodeclaim/expiration/controller.go) deletes the NodeClaim with no event and no
 *   condition; only its age against spec.expireAfter tells.
 */

export type KarpenterObject = 'Node' | 'NodeClaim' | 'Machine';
export type DisruptionMethod = 'Delete' | 'Replace';

/** Warnings after which the AWS provider drains and deletes the node (its actionForMessage: CordonAndDrain or forceful). */
export const INTERRUPTION_WARNING_REASONS = [
  'SpotInterrupted',
  'CapacityReservationInstanceInterrupted',
  'InstanceStopping',
  'InstanceTerminating',
  'InstanceUnhealthy',
] as const;
export type InterruptionSignal = (typeof INTERRUPTION_WARNING_REASONS)[number];

export const TERMINATING_EVENT_REASONS = ['DisruptionTerminating', 'DeprovisioningTerminating'] as const;
export const LAUNCHING_EVENT_REASONS = ['DisruptionLaunching', 'DeprovisioningLaunching'] as const;
export const BLOCKED_EVENT_REASONS = ['DisruptionBlocked', 'DeprovisioningBlocked'] as const;
export const INTERRUPTION_TERMINATION_REASON = 'TerminatingOnInterruption';

/** Events that say a node was removed: a NodeClaim gone with one of these stored is that event's disruption. */
export const REMOVAL_EVENT_REASONS: readonly string[] = [
  ...TERMINATING_EVENT_REASONS,
  INTERRUPTION_TERMINATION_REASON,
  ...INTERRUPTION_WARNING_REASONS,
];

/**
 * Every event reason a disruption is built from: what the store reads and what marks kept disruptions stale
 * (db/migrations/0011-disruptions-by-collector.sql lists the same; a test keeps them equal).
 */
export const DISRUPTION_EVENT_REASONS: readonly string[] = [
  ...TERMINATING_EVENT_REASONS,
  ...LAUNCHING_EVENT_REASONS,
  ...BLOCKED_EVENT_REASONS,
  INTERRUPTION_TERMINATION_REASON,
  ...INTERRUPTION_WARNING_REASONS,
];

/** Why a disruption was blocked, as far as the message says. */
export type BlockedCause =
  | 'pod-do-not-disrupt'
  | 'node-do-not-disrupt'
  | 'pdb'
  | 'budget'
  | 'nominated'
  | 'deleting'
  | 'not-initialized'
  | 'nodepool-missing'
  | 'scheduling'
  | 'other';

export type KarpenterEvent =
  /** A node being removed by the disruption (deprovisioning) controller. */
  | { kind: 'terminating'; reason: DisruptionReason; method: DisruptionMethod | null; object: KarpenterObject }
  /** A NodeClaim launched to replace disrupted ones. */
  | { kind: 'launching'; reason: DisruptionReason; method: DisruptionMethod | null; object: KarpenterObject }
  | { kind: 'interruption-warning'; signal: InterruptionSignal }
  /** The interruption controller deleted the NodeClaim. */
  | { kind: 'interruption-termination'; object: KarpenterObject | null }
  | {
      kind: 'blocked';
      object: KarpenterObject | null;
      cause: BlockedCause;
      /** The pod ("namespace/name") or PodDisruptionBudget named, where the release wrote it (up to v1.4). */
      subject: string | null;
      /** For budgets: the disruption reason the budget blocks, where written. */
      budgetReason: DisruptionReason | null;
      /** The why, without the "Cannot disrupt Node: " prefix. */
      detail: string;
    }
  | { kind: 'unconsolidatable'; detail: string }
  /** A disruption event whose wording this model does not know: shown as written, never guessed at. */
  | { kind: 'unrecognised'; eventReason: string; message: string }
  /** Not an event about disruption. */
  | { kind: 'other' };

/** Today's reason for each word a release has written (case-insensitive): v1 names, and v0.3x method names. */
const REASON_WORDS: Readonly<Record<string, DisruptionReason>> = {
  underutilized: 'Underutilized',
  consolidation: 'Underutilized',
  empty: 'Empty',
  emptiness: 'Empty',
  drifted: 'Drifted',
  drift: 'Drifted',
  expired: 'Expired',
  expiration: 'Expired',
  interrupted: 'Interrupted',
  interruption: 'Interrupted',
};

/** "Underutilized", "consolidation", " Drift " -> today's reason; null for a word no release wrote. */
export function canonicalReason(word: string): DisruptionReason | null {
  return REASON_WORDS[word.trim().toLowerCase()] ?? null;
}

const METHODS: Readonly<Record<string, DisruptionMethod>> = { delete: 'Delete', replace: 'Replace' };
const OBJECTS: Readonly<Record<string, KarpenterObject>> = { node: 'Node', nodeclaim: 'NodeClaim', machine: 'Machine' };

// "<Verb> <Object>: <Reason>[/<method>]", spacing and case as loose as a hand-edited or re-encoded event could be.
const DISRUPTION_MESSAGE =
  /^\s*(disrupting|deprovisioning|launching)\s+(node|nodeclaim|machine)\s*:\s*([a-z]+)\s*(?:\/\s*([a-z]+)\s*)?\.?\s*$/i;

export interface DisruptionWording {
  verb: 'terminating' | 'launching';
  reason: DisruptionReason;
  method: DisruptionMethod | null;
  object: KarpenterObject;
}

/**
 * "Disrupting Node: Underutilized/Replace" -> terminating, Underutilized, Replace, Node; "Launching NodeClaim:
 * Underutilized" -> launching, Underutilized, method null; null when the words are not ones a release wrote.
 */
export function parseDisruptionMessage(message: string): DisruptionWording | null {
  const m = DISRUPTION_MESSAGE.exec(message);
  if (m === null) return null;
  const reason = canonicalReason(m[3]);
  const method = m[4] === undefined ? null : (METHODS[m[4].toLowerCase()] ?? undefined);
  if (reason === null || method === undefined) return null;
  return {
    verb: m[1].toLowerCase() === 'launching' ? 'launching' : 'terminating',
    reason,
    method,
    object: OBJECTS[m[2].toLowerCase()],
  };
}

const BLOCKED_PREFIX = /^\s*cannot\s+(?:disrupt|deprovision)\s+(node|nodeclaim|machine)\s*:\s*/i;
const BLOCKED_CAUSES: readonly { cause: BlockedCause; re: RegExp }[] = [
  // v0.37 'Pod "ns/name" has ...'; v1.0-v1.4 'pod "ns/name" has ...'; v1.5+ 'Pod has ...' (the pod only in the log).
  { cause: 'pod-do-not-disrupt', re: /^pod(?:\s+"([^"]*)")?\s+has\s+"?karpenter\.sh\/do-not-(?:disrupt|evict)"?\s+annotation/i },
  { cause: 'node-do-not-disrupt', re: /^disruption is blocked through the\s+"?karpenter\.sh\/do-not-disrupt"?\s+annotation/i },
  // v0.3x 'PDB "ns/name" prevents pod evictions'; v1.0-v1.4 'pdb "ns/name" ...'; v1.5+ 'Pdb prevents pod evictions'.
  { cause: 'pdb', re: /^pdb(?:\s+"([^"]*)")?\s+prevents pod evictions/i },
  { cause: 'pdb', re: /^eviction does not support multiple pdbs/i },
  { cause: 'budget', re: /^no allowed disruptions(?:\s+for disruption reason\s+([a-z]+))?\s+due to blocking budget/i },
  { cause: 'nominated', re: /nominated for a pending pod/i },
  { cause: 'deleting', re: /(?:deleting or marked for deletion|in the process of deletion)/i },
  { cause: 'not-initialized', re: /isn't initialized/i },
  { cause: 'nodepool-missing', re: /^nodepool(?:\s+"[^"]*")?\s+not found/i },
  { cause: 'scheduling', re: /schedul/i },
];

/** A DisruptionBlocked (DeprovisioningBlocked) message: what it blocks and why. */
export function classifyBlockedMessage(message: string): Extract<KarpenterEvent, { kind: 'blocked' }> {
  const prefix = BLOCKED_PREFIX.exec(message);
  const detail = (prefix === null ? message : message.slice(prefix[0].length)).trim();
  for (const { cause, re } of BLOCKED_CAUSES) {
    const m = re.exec(detail);
    if (m === null) continue;
    const captured = m[1] === undefined || m[1] === '' ? null : m[1];
    return {
      kind: 'blocked',
      object: prefix === null ? null : OBJECTS[prefix[1].toLowerCase()],
      cause,
      subject: cause === 'budget' ? null : captured,
      budgetReason: cause === 'budget' && captured !== null ? canonicalReason(captured) : null,
      detail,
    };
  }
  return {
    kind: 'blocked',
    object: prefix === null ? null : OBJECTS[prefix[1].toLowerCase()],
    cause: 'other',
    subject: null,
    budgetReason: null,
    detail,
  };
}

const INTERRUPTION_TERMINATION_MESSAGE = /^\s*interruption triggered termination for the\s+(node|nodeclaim|machine)\s*\.?\s*$/i;

const has = (list: readonly string[], value: string): boolean => list.includes(value);

/** What an event says about disruption, from its reason and message (Kubernetes event reasons are case-sensitive). */
export function classifyKarpenterEvent(eventReason: string, message: string): KarpenterEvent {
  const reason = eventReason.trim();
  if (has(TERMINATING_EVENT_REASONS, reason) || has(LAUNCHING_EVENT_REASONS, reason)) {
    const wording = parseDisruptionMessage(message);
    const verb = has(LAUNCHING_EVENT_REASONS, reason) ? 'launching' : 'terminating';
    if (wording === null || wording.verb !== verb) return { kind: 'unrecognised', eventReason: reason, message };
    return { kind: verb, reason: wording.reason, method: wording.method, object: wording.object };
  }
  if (has(BLOCKED_EVENT_REASONS, reason)) return classifyBlockedMessage(message);
  if (reason === INTERRUPTION_TERMINATION_REASON) {
    const m = INTERRUPTION_TERMINATION_MESSAGE.exec(message);
    return { kind: 'interruption-termination', object: m === null ? null : OBJECTS[m[1].toLowerCase()] };
  }
  if (has(INTERRUPTION_WARNING_REASONS, reason)) return { kind: 'interruption-warning', signal: reason as InterruptionSignal };
  if (reason === 'Unconsolidatable') return { kind: 'unconsolidatable', detail: message.trim() };
  return { kind: 'other' };
}

/** A NodeClaim status condition as the collectors keep it. */
export interface ConditionLike {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export interface ConditionDisruption {
  /** Today's reason; null when the condition holds a word no release wrote (`text` has it). */
  reason: DisruptionReason | null;
  text: string;
  /** When Karpenter decided (the condition's lastTransitionTime), epoch ms; null when absent or unreadable. */
  atMs: number | null;
  /** DisruptionReason: Karpenter marked it for disruption; Drifted: only that it drifted. */
  from: 'DisruptionReason' | 'Drifted';
}

const timeOf = (t: string | undefined): number | null => {
  const ms = t === undefined ? Number.NaN : Date.parse(t);
  return Number.isNaN(ms) ? null : ms;
};

/**
 * The disruption a NodeClaim's conditions record. DisruptionReason (v1.2+; disruption/controller.go MarkDisrupted,
 * later queue.go markDisrupted) is set True on each candidate when the command is queued: v1.2.0–v1.3.0 wrote
 * reason "DisruptionReason" and the reason in the message; v1.3.1 and later the reason in both. Without it, a True
 * Drifted condition says it drifted (a candidate for drift, not proof it was disrupted).
 */
export function disruptionFromConditions(conditions: readonly ConditionLike[]): ConditionDisruption | null {
  const marked = conditions.find((c) => c.type === 'DisruptionReason' && c.status === 'True');
  if (marked !== undefined) {
    const word =
      (marked.reason === undefined || marked.reason === '' || marked.reason === 'DisruptionReason' ? marked.message : marked.reason) ?? '';
    return { reason: canonicalReason(word), text: word, atMs: timeOf(marked.lastTransitionTime), from: 'DisruptionReason' };
  }
  const drifted = conditions.find((c) => c.type === 'Drifted' && c.status === 'True');
  if (drifted !== undefined) return { reason: 'Drifted', text: 'Drifted', atMs: null, from: 'Drifted' };
  return null;
}

/*
 * Karpenter's own explanations of consolidation (issue 22 item 6), as pkg/controllers/disruption/events/events.go
 * and types.go build them:
 * - v1.9.0+ ConsolidationCandidate "Consolidation candidate: <command> (savings: $%.2f)" and ConsolidationRejected
 *   "Consolidation rejected: <command>, reason: <budget|scheduling|churn|unknown> (savings: $%.2f)", on the Node and
 *   its NodeClaim. <command> is Command.StringForNode: "delete: [n1]", "replace: [n1] -> [1 replacement]" (the command
 *   has no method or id yet when they are published), "delete: [n1] (part of 3-node consolidation)" for a node of a
 *   multi-node command; Command.String's full form "Underutilized/<id>: replace: nodepools=[a]: [n1] -> [1
 *   replacement] (savings: $0.05)" (nodepools= from v1.11.0) is read too.
 * - v1.14.0+ ConsolidationApproved "score %.2f >= threshold %.2f (k: %d, savings %.1f%%, disruption %.1f%%)" on the
 *   Node and NodeClaim, or on the NodePool for a multi-node move (balanced.go). designs/balanced-consolidation.md
 *   also names a ConsolidationRejected "score … < threshold …"; v1.14.1 publishes none (rejections are metrics only),
 *   but the wording is read as a rejection for reason "score".
 * - Unconsolidatable (every v1 release): the sentences of consolidation.go and emptiness.go, classified below.
 */

export type ConsolidationRejection = 'budget' | 'scheduling' | 'churn' | 'unknown' | 'score';

export type UnconsolidatableCause =
  | 'not-cheaper'
  | 'spot-to-spot-disabled'
  | 'spot-to-spot-flexibility'
  | 'pods-would-not-schedule'
  | 'more-nodes-needed'
  | 'price-filter'
  | 'consolidation-disabled'
  | 'when-empty-not-empty'
  | 'instance-type-unknown'
  | 'label-missing'
  | 'buffer-pods'
  | 'other';

/** A consolidation command as Karpenter wrote it into an event. */
export interface ConsolidationCommand {
  decision: 'delete' | 'replace';
  /** The nodes (or NodeClaims) the command names. */
  candidates: string[];
  /** How many nodes the whole command disrupts: more than `candidates` for one node's share of a multi-node move. */
  nodesInCommand: number;
  /** Replacement NodeClaims (0 for a delete). */
  replacements: number;
  /** Only in the full form (a command that has started): the disruption reason and its id. */
  reason: DisruptionReason | null;
  commandId: string | null;
  nodePools: string[] | null;
}

export type ConsolidationExplanation =
  | { kind: 'candidate'; command: ConsolidationCommand | null; commandText: string; savings: number | null }
  | {
      kind: 'rejected';
      command: ConsolidationCommand | null;
      commandText: string;
      rejection: ConsolidationRejection | null;
      savings: number | null;
      score: BalancedScore | null;
    }
  | ({ kind: 'approved' } & BalancedScore)
  | { kind: 'unconsolidatable'; cause: UnconsolidatableCause; detail: string };

/** The Balanced consolidation score Karpenter printed (percentages as printed, one decimal). */
export interface BalancedScore {
  score: number;
  threshold: number;
  k: number;
  savingsPercent: number;
  disruptionPercent: number;
}

export const CONSOLIDATION_EVENT_REASONS = [
  'ConsolidationCandidate',
  'ConsolidationRejected',
  'ConsolidationApproved',
  'Unconsolidatable',
] as const;

const MONEY = String.raw`\$(-?\d+(?:\.\d+)?)`;
const CANDIDATE_MESSAGE = new RegExp(String.raw`^\s*consolidation candidate:\s*(.*?)\s*\(savings:\s*${MONEY}\)\s*$`, 'is');
const REJECTED_MESSAGE = new RegExp(
  String.raw`^\s*consolidation rejected:\s*(.*?),\s*reason:\s*([a-z-]+)\s*\(savings:\s*${MONEY}\)\s*$`,
  'is',
);
const NUM = String.raw`(-?\d+(?:\.\d+)?|NaN|[+-]?Inf)`;
const SCORE_MESSAGE = new RegExp(
  String.raw`^\s*score\s+${NUM}\s*(>=|<)\s*threshold\s+${NUM}\s*\(k:\s*(\d+),\s*savings\s+${NUM}%,\s*disruption\s+${NUM}%\)\s*$`,
  'i',
);
// "[Underutilized/<id>: ]<decision>: [nodepools=[a,b]: ][n1, n2][ -> [2 replacements]][ (part of 3-node consolidation)][ (savings: $X)]"
const COMMAND = new RegExp(
  String.raw`^(?:([A-Za-z]+)/([0-9a-f-]+):\s*)?(delete|replace):\s*(?:nodepools=\[([^\]]*)\]:\s*)?\[([^\]]*)\]` +
    String.raw`(?:\s*->\s*\[(\d+)\s+replacements?\])?(?:\s*\(part of (\d+)-node consolidation\))?(?:\s*\(savings:\s*\$-?\d+(?:\.\d+)?\))?$`,
  'i',
);

const list = (text: string): string[] =>
  text
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');

const number = (text: string): number => (/^[+-]?inf$/i.test(text) ? (text.startsWith('-') ? -Infinity : Infinity) : Number(text));

/** "replace: [n1] -> [1 replacement]" and the other forms above; null when it is none of them. */
export function parseConsolidationCommand(text: string): ConsolidationCommand | null {
  const m = COMMAND.exec(text.trim());
  if (m === null) return null;
  const candidates = list(m[5]);
  return {
    decision: m[3].toLowerCase() === 'replace' ? 'replace' : 'delete',
    candidates,
    nodesInCommand: m[7] === undefined ? candidates.length : Number(m[7]),
    replacements: m[6] === undefined ? 0 : Number(m[6]),
    reason: m[1] === undefined ? null : canonicalReason(m[1]),
    commandId: m[2] ?? null,
    nodePools: m[4] === undefined ? null : list(m[4]),
  };
}

function parseScore(message: string): (BalancedScore & { approved: boolean }) | null {
  const m = SCORE_MESSAGE.exec(message);
  if (m === null) return null;
  return {
    approved: m[2] === '>=',
    score: number(m[1]),
    threshold: number(m[3]),
    k: Number(m[4]),
    savingsPercent: number(m[5]),
    disruptionPercent: number(m[6]),
  };
}

const REJECTIONS: readonly ConsolidationRejection[] = ['budget', 'scheduling', 'churn', 'unknown'];

const UNCONSOLIDATABLE_CAUSES: readonly { cause: UnconsolidatableCause; re: RegExp }[] = [
  { cause: 'not-cheaper', re: /^can'?t replace with a cheaper node/i },
  { cause: 'spot-to-spot-disabled', re: /^spottospotconsolidation is disabled/i },
  { cause: 'spot-to-spot-flexibility', re: /^spottospotconsolidation requires \d+ cheaper instance type options/i },
  { cause: 'pods-would-not-schedule', re: /^not all pods would schedule/i },
  { cause: 'more-nodes-needed', re: /^can'?t remove without creating \d+ candidates?/i },
  { cause: 'price-filter', re: /^filtering by price/i },
  { cause: 'when-empty-not-empty', re: /has consolidation policy whenempty, but node is not empty/i },
  { cause: 'consolidation-disabled', re: /^nodepool\s+"[^"]*"\s+has (?:non-empty )?consolidation disabled/i },
  { cause: 'instance-type-unknown', re: /^instance type\s+"[^"]*"\s+not found/i },
  { cause: 'label-missing', re: /^node does not have label/i },
  { cause: 'buffer-pods', re: /^node\s+"[^"]*"\s+has buffer pods/i },
];

/** An Unconsolidatable event's sentence: which of Karpenter's reasons it is. */
export function classifyUnconsolidatable(message: string): UnconsolidatableCause {
  const detail = message.trim();
  return UNCONSOLIDATABLE_CAUSES.find(({ re }) => re.test(detail))?.cause ?? 'other';
}

/**
 * Karpenter's explanation an event carries (ConsolidationCandidate, ConsolidationRejected, ConsolidationApproved,
 * Unconsolidatable), or null for another event. A wording of these reasons that no release wrote keeps what can be
 * read (the command null, the savings null) rather than guessing.
 */
export function parseConsolidationEvent(eventReason: string, message: string): ConsolidationExplanation | null {
  switch (eventReason.trim()) {
    case 'ConsolidationCandidate': {
      const m = CANDIDATE_MESSAGE.exec(message);
      if (m === null) return { kind: 'candidate', command: null, commandText: message.trim(), savings: null };
      return { kind: 'candidate', command: parseConsolidationCommand(m[1]), commandText: m[1], savings: Number(m[2]) };
    }
    case 'ConsolidationRejected': {
      const score = parseScore(message);
      if (score !== null) {
        const { approved: _approved, ...s } = score;
        return { kind: 'rejected', command: null, commandText: '', rejection: 'score', savings: null, score: s };
      }
      const m = REJECTED_MESSAGE.exec(message);
      if (m === null) return { kind: 'rejected', command: null, commandText: message.trim(), rejection: null, savings: null, score: null };
      const rejection = m[2].toLowerCase() as ConsolidationRejection;
      return {
        kind: 'rejected',
        command: parseConsolidationCommand(m[1]),
        commandText: m[1],
        rejection: REJECTIONS.includes(rejection) ? rejection : null,
        savings: Number(m[3]),
        score: null,
      };
    }
    case 'ConsolidationApproved': {
      const score = parseScore(message);
      if (score === null) return null;
      const { approved: _approved, ...s } = score;
      return { kind: 'approved', ...s };
    }
    case 'Unconsolidatable':
      return { kind: 'unconsolidatable', cause: classifyUnconsolidatable(message), detail: message.trim() };
    default:
      return null;
  }
}
