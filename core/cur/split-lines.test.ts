import { describe, expect, it } from 'vitest';
import { eksPodArn, parseEksPodArn } from './split-lines.js';

describe('parseEksPodArn: the pod line resource id of split cost allocation data', () => {
  it('reads cluster, namespace, pod and uid', () => {
    const arn = 'arn:aws:eks:us-east-1:222222222222:pod/prod/payments/pod-a/0b6c7c4e-1d2f-4e59-9c1a-55d6c9a0f111';
    expect(parseEksPodArn(arn)).toEqual({
      region: 'us-east-1',
      accountId: '222222222222',
      cluster: 'prod',
      namespace: 'payments',
      pod: 'pod-a',
      uid: '0b6c7c4e-1d2f-4e59-9c1a-55d6c9a0f111',
    });
    const parsed = parseEksPodArn(arn);
    expect(parsed === null ? '' : eksPodArn(parsed)).toBe(arn);
  });
  it('accepts an ARN without the uid and refuses what is not a pod', () => {
    expect(parseEksPodArn('arn:aws:eks:eu-west-1:1:pod/c/ns/p')?.uid).toBe('');
    expect(parseEksPodArn('i-0123456789abcdef0')).toBeNull();
    expect(parseEksPodArn('arn:aws:eks:us-east-1:1:cluster/prod')).toBeNull();
  });
});
