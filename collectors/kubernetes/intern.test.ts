import { describe, expect, it } from 'vitest';
import type { PodRecord } from '../../core/model.js';
import { createInterner, internPod, podWithTeam } from './intern.js';

const pod = (uid: string): PodRecord => ({
  uid,
  namespace: `payments${''}`,
  name: `api-${uid}`,
  nodeName: 'ip-10-0-1-4.ec2.internal',
  phase: 'Running',
  ownerKind: 'ReplicaSet',
  ownerName: 'api-7f9c',
  team: null,
  requests: { cpuMillicores: 250, memoryBytes: 268_435_456, pods: 1, gpu: 0 },
  doNotDisrupt: false,
  createdAt: 1_790_000_000_000,
  labels: { app: 'api', 'pod-template-hash': '7f9c' },
});

describe('internPod', () => {
  it('keeps every field of the record, labels included', () => {
    const intern = createInterner();
    expect(internPod(pod('a'), intern)).toEqual(pod('a'));
    expect(internPod({ ...pod('b'), nodeName: null, ownerKind: null, ownerName: null, team: 'pay' }, intern)).toEqual({
      ...pod('b'),
      nodeName: null,
      ownerKind: null,
      ownerName: null,
      team: 'pay',
    });
  });

  it("keeps what the engine reads: the scheduling spec's reference, do-not-disrupt as written, deletion cost, start, volumes, image", () => {
    const intern = createInterner();
    const full: PodRecord = {
      ...pod('c'),
      scheduling: { hash: 'h1', json: '{"tolerations":[]}' },
      doNotDisruptValue: '30m',
      deletionCost: '-5',
      startedAt: 1_790_000_060_000,
      volumes: [{ name: 'data', claimName: 'data-db-0' }],
      karpenterImage: 'public.ecr.aws/karpenter/controller:1.14.1',
    };
    expect(internPod(full, intern)).toEqual(full);
  });
});

describe('createInterner', () => {
  it('holds one copy of each distinct string', () => {
    const intern = createInterner();
    for (const s of ['payments', 'payments', 'search', ['pay', 'ments'].join('')]) expect(intern(s)).toBe(s);
    expect(intern.size).toBe(2);
  });

  it('holds at most maxEntries strings, then starts afresh (the watch cache lives for months of churning node names)', () => {
    const intern = createInterner(2);
    intern('ip-10-0-1-4.ec2.internal');
    intern('ip-10-0-1-5.ec2.internal');
    intern('ip-10-0-1-5.ec2.internal');
    expect(intern.size).toBe(2);
    // The third distinct string empties the table, then is kept.
    expect(intern('ip-10-0-1-6.ec2.internal')).toBe('ip-10-0-1-6.ec2.internal');
    expect(intern.size).toBe(1);
  });
});

describe('podWithTeam', () => {
  it('is the record with its team, every other field shared, in the same key order as internPod', () => {
    const p: PodRecord = { ...pod('d'), scheduling: { hash: 'h2', json: '{}' }, startedAt: 1_790_000_060_000 };
    const withTeam = podWithTeam(p, 'payments');
    expect(withTeam).toEqual({ ...p, team: 'payments' });
    expect(withTeam.labels).toBe(p.labels);
    expect(JSON.stringify(withTeam)).toBe(JSON.stringify(internPod({ ...p, team: 'payments' }, createInterner())));
  });
});
