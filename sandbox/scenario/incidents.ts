import { HOUR_MS as HOUR } from '../../core/time.js';
import type { EventLog } from './event-log.js';
import type { Kubelet } from './kubelet.js';
import type { SimState } from './sim-state.js';
import type { EpochMs } from './types.js';

/**
 * The scenario file's incidents, each at its time (the step that contains it): a NodeClass drift (a new AMI alias
 * and hash, which the Karpenter driver then replaces nodes for), a cordon for some hours, a spot interruption of
 * the busiest spot node of a NodePool (or the one a consolidation command's validation window already saw struck), a
 * spot shortage (every spot node of the NodePool reclaimed; engine-view.ts keeps spot out of its launches meanwhile), an
 * edit of a NodePool's disruption settings (the pool is changed in place; the change is kept for the served objects).
 */
export class Incidents {
  constructor(
    private readonly s: SimState,
    private readonly kubelet: Kubelet,
    private readonly events: EventLog,
  ) {}

  at(t: EpochMs): void {
    const s = this.s;
    for (const inc of s.file.incidents) {
      const at = Date.parse(inc.at);
      if (!(at > t - s.step && at <= t)) continue;
      if (inc.kind === 'drift') {
        const pool = s.pools.find((p) => p.name === inc.nodePool);
        if (!pool) continue;
        const hash = s.rng.hex(16);
        s.nodeClassHash.set(pool.nodeClassName, hash);
        const cls = s.nodeClasses.find((c) => c.name === pool.nodeClassName);
        const alias = /alias (\S+)/.exec(inc.change)?.[1];
        if (cls) cls.amiAliases.push({ at: t, alias: alias ?? cls.amiAliases[cls.amiAliases.length - 1].alias, hash });
      } else if (inc.kind === 'cordon') {
        const victim = s.live
          .filter((n) => n.pool?.name === inc.nodePool && n.terminateAt === null && n.node.cordoned === undefined)
          .sort((a, b) => a.node.createdAt - b.node.createdAt || a.node.name.localeCompare(b.node.name))[0];
        if (!victim) continue;
        victim.node.cordoned = { from: t, until: null, reason: inc.reason };
        this.kubelet.rebuildKube(victim);
        s.touch(victim.pool);
        s.uncordons.push({ at: t + inc.hours * HOUR, live: victim });
      } else if (inc.kind === 'nodepool-disruption') {
        // The edit takes effect at once: the disruption controller's next look reads the new settings.
        const pool = s.pools.find((p) => p.name === inc.nodePool);
        if (!pool) continue;
        Object.assign(pool, inc.disruption);
        s.nodePoolChanges.push({ at: t, nodePool: pool.name, disruption: { ...inc.disruption } });
        s.touch(pool);
      } else if (inc.kind === 'spot-shortage') {
        // Every spot node of the pool reclaimed at once (the two-minute notice, then gone), oldest first.
        const victims = s.live
          .filter((n) => n.pool?.name === inc.nodePool && n.node.capacityType === 'spot' && n.terminateAt === null)
          .sort((a, b) => a.node.createdAt - b.node.createdAt || a.node.name.localeCompare(b.node.name));
        for (const victim of victims) {
          this.events.emit(victim, t, this.events.karpenter.spotInterruption());
          this.kubelet.remove(victim, t, 'Interrupted');
        }
      } else {
        // the node a command's validation window already saw struck (karpenter-driver.ts), if it is still there
        const seen = s.interrupted.get(inc);
        const struck = seen === undefined ? undefined : s.live.find((n) => n.node.name === seen && n.terminateAt === null);
        const victim = struck ?? s.interruptionVictim(inc.nodePool);
        if (!victim) continue;
        this.events.emit(victim, t, this.events.karpenter.spotInterruption());
        this.kubelet.remove(victim, t, 'Interrupted');
      }
    }
  }
}
