import { type EventSpec, karpenterEventWriter, type KarpenterEventWriter } from './karpenter-events.js';
import type { LiveNode, SimState } from './sim-state.js';
import type { EpochMs, SimEvent } from './types.js';
import { uidFor } from './uid.js';

/**
 * The event writer: puts the events the simulated controllers publish into the history (what they say comes from
 * karpenter-events.ts, as the imitated release words it).
 */
export class EventLog {
  /** What the imitated Karpenter release says, event by event. */
  readonly karpenter: KarpenterEventWriter;

  constructor(private readonly s: SimState) {
    this.karpenter = karpenterEventWriter(s.profile);
  }

  /**
   * Events on the node and its NodeClaim, as the imitated release writes them (karpenter-events.ts). `ownUid`: the
   * event's uid derived from what it says rather than drawn from the seed's stream, for the kinds of event one
   * release writes and another does not, so that writing them leaves every later draw (and the history) as it is.
   */
  emit(live: LiveNode, t: EpochMs, specs: readonly EventSpec[], ownUid = false): void {
    for (const e of specs) {
      const name = e.object === 'Node' ? live.node.name : live.node.nodeClaimName;
      if (name !== null) this.event(t, { kind: e.object, name }, e.reason, e.message, e.type, ownUid);
    }
  }

  event(
    t: EpochMs,
    involvedObject: SimEvent['involvedObject'],
    reason: string,
    message: string,
    type: SimEvent['type'] = 'Normal',
    ownUid = false,
  ): void {
    const uid = ownUid ? uidFor('Event', `${involvedObject.kind}/${involvedObject.name}/${reason}/${t}`) : this.s.rng.uuid();
    this.s.events.push({ uid, at: t, type, reason, message, involvedObject });
  }
}
