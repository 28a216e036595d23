import { describe, expect, it } from 'vitest';
import type { PodSchedulingSpec } from '../../core/model.js';
import { createSpecTable } from './map-scheduling.js';
import { SpecRefs } from './spec-refs.js';

const web: PodSchedulingSpec = {
  requests: { cpu: '250m', memory: String(512 * 2 ** 20) },
  tolerations: [{ key: 'workload', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
};
const batch: PodSchedulingSpec = { requests: { cpu: '1000m', memory: String(2 ** 30) }, priority: 100 };

describe("SpecRefs: the watch cache's scheduling specs, their JSON held until stored", () => {
  it('gives replicas one shared ref, under the hash the one-shot list gives the same spec (one pod_specs row either way)', () => {
    const specs = new SpecRefs();
    const a = specs.ref(web);
    const b = specs.ref({ ...web, tolerations: [{ effect: 'NoSchedule', value: 'web', operator: 'Equal', key: 'workload' }] });
    expect(b).toBe(a);
    expect(a).toEqual(createSpecTable()(web));
    expect(JSON.parse(a.json ?? '')).toEqual(web);
  });

  it('drops the JSON once a snapshot carrying it is stored, for every pod sharing the ref; a spec first seen after keeps its own', () => {
    const specs = new SpecRefs();
    const replicas = [specs.ref(web), specs.ref(web)];
    specs.retain(replicas); // the snapshot: the cached pods hold these
    specs.stored(replicas); // ... and it is written
    expect(replicas.map((r) => r.json)).toEqual([undefined, undefined]);
    // Another replica arriving later: the hash alone (pod_specs has the JSON); a new spec brings its JSON.
    expect(specs.ref(web)).toEqual({ hash: replicas[0].hash, json: undefined });
    const later = specs.ref(batch);
    expect(JSON.parse(later.json ?? '')).toEqual(batch);
    expect(specs.size).toEqual({ specs: 2, withJson: 1 });
  });

  it('gives a spec its JSON again once no cached pod holds it (retention may prune it from pod_specs as an orphan)', () => {
    const specs = new SpecRefs();
    const gone = specs.ref(web);
    specs.retain([gone]);
    specs.stored([gone]);
    specs.retain([]); // its last pod was deleted before the next snapshot
    const again = specs.ref(web);
    expect(again).not.toBe(gone);
    expect(JSON.parse(again.json ?? '')).toEqual(web);
    // A stored() naming a ref the table no longer holds leaves it whole: memory, never a lost spec.
    specs.stored([gone]);
    expect(again.json).toBeDefined();
  });
});
