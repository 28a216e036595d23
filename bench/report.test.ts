import { describe, expect, it } from 'vitest';
import { figure, formatNumber, formatTable } from './report.js';

const base = { bench: 't', figure: 'f', unit: 's', peerLabel: 'peer' };

describe('figure', () => {
  it.each([
    // ours, peer, target, ratio, verdict
    [30, 20, { kind: 'at-most', max: 2 } as const, 1.5, 'pass'],
    [50, 20, { kind: 'at-most', max: 2 } as const, 2.5, 'FAIL'],
    [40, 20, { kind: 'at-most', max: 2 } as const, 2, 'pass'],
    [300_000, 500_000, { kind: 'at-least', min: 0.5 } as const, 0.6, 'pass'],
    [200_000, 500_000, { kind: 'at-least', min: 0.5 } as const, 0.4, 'FAIL'],
    [12, 12, { kind: 'equal' } as const, 1, 'pass'],
    [13, 12, { kind: 'equal' } as const, 13 / 12, 'FAIL'],
    [7, 14, { kind: 'info' } as const, 0.5, 'info'],
  ])('ours %d vs %d -> ratio and verdict', (ours, peer, target, ratio, verdict) => {
    const r = figure({ ...base, ours, peer, target });
    expect(r.ratio).toBeCloseTo(ratio, 12);
    expect(r.verdict).toBe(verdict);
  });

  it('is an error when a figure is missing, and skipped when told so', () => {
    expect(figure({ ...base, ours: null, peer: 3, target: { kind: 'at-most', max: 2 } }).verdict).toBe('error');
    expect(figure({ ...base, ours: 3, peer: null, target: { kind: 'at-most', max: 2 } }).verdict).toBe('error');
    expect(figure({ ...base, ours: 3, peer: null, target: { kind: 'at-most', max: 2 }, skipped: true }).verdict).toBe('skipped');
  });
});

describe('formatTable', () => {
  it('prints one padded line per figure with units, ratio, target and notes', () => {
    const text = formatTable([
      figure({
        ...base,
        figure: 'snapshot time',
        ours: 31.25,
        peer: 62.5,
        peerLabel: 'kubectl',
        target: { kind: 'at-most', max: 2 },
        note: 'best of 2',
      }),
      figure({ ...base, figure: 'bundle', unit: 'KB', ours: 180.4, peer: 250, peerLabel: 'bound', target: { kind: 'at-most', max: 1 } }),
    ]);
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^figure\s+ours\s+peer or bound\s+ratio\s+target\s+result$/);
    expect(lines[2]).toMatch(/^snapshot time\s+31\.3 s\s+62\.5 s \(kubectl\)\s+0\.50x\s+<= 2x\s+pass$/);
    expect(lines[3]).toMatch(/^bundle\s+180 KB\s+250 KB \(bound\)\s+0\.72x\s+<= 1x\s+pass$/);
    expect(lines.at(-1)).toBe('  - snapshot time: best of 2');
  });

  it.each([
    [1234567, '1,234,567'],
    [78, '78'],
    [12.345, '12.3'],
    [1.2345, '1.23'],
    [0.012345, '0.0123'],
    [0, '0'],
    [null, '-'],
  ])('formats %s as %s', (v, s) => {
    expect(formatNumber(v)).toBe(s);
  });
});
