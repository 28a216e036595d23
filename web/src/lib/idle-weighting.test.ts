import { afterEach, describe, expect, it } from 'vitest';
import { idleRatesText, idleWeightingSentence } from './idle-weighting';
import { setDisplayCurrency } from './format';

afterEach(() => setDisplayCurrency('USD'));

describe('the idle weighting, said on the pages that show idle', () => {
  // A c6i.xlarge at USD 0.17/h: 0.0335155 a vCPU-hour and 0.00449227 a GiB-hour (core/cost-weights.test.ts).
  const c6i = { usdPerVcpuHour: 0.0335155, usdPerGiBHour: 0.00449227, usdPerGpuHour: null };

  it('names the weighting and the rates it gave', () => {
    expect(idleWeightingSentence(c6i, 'over the range')).toBe(
      "Idle is the part of each node's price its pods' requests do not cover, the price split between CPU, memory and GPU by relative price as OpenCost splits it (0.031611 a core-hour to 0.004237 a GiB-hour to 0.95 a GPU-hour, times what the node offers): $0.0335 a vCPU-hour, $0.0045 a GiB-hour over the range.",
    );
  });

  it('GPUs when offered, in the currency shown; nothing without rates', () => {
    setDisplayCurrency('CNY');
    expect(idleRatesText({ usdPerVcpuHour: 0.0277921, usdPerGiBHour: 0.00372512, usdPerGpuHour: 0.83523 })).toBe(
      'CN¥0.0278 a vCPU-hour, CN¥0.0037 a GiB-hour, CN¥0.8352 a GPU-hour',
    );
    expect(idleRatesText(null)).toBe('');
    expect(idleWeightingSentence(null)).toMatch(/times what the node offers\)\.$/);
  });
});
