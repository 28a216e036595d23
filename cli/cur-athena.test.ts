import { describe, expect, it } from 'vitest';
import { curAthenaOptionsFrom } from './cur-athena.js';

describe('cur athena flags', () => {
  const base = { database: 'cid_data_export', table: 'cur2', workgroup: 'primary' };
  it('takes the table, workgroup and output, with 90 days by default', () => {
    expect(curAthenaOptionsFrom({ ...base, output: 's3://my-results/ledger/', db: '/tmp/x.db' })).toEqual({
      database: 'cid_data_export',
      table: 'cur2',
      workGroup: 'primary',
      outputLocation: 's3://my-results/ledger/',
      sinceMs: 90 * 86_400_000,
      dbPath: '/tmp/x.db',
    });
    expect(curAthenaOptionsFrom({ ...base, since: '2w', 'partition-column': '', region: 'eu-west-1' })).toMatchObject({
      sinceMs: 14 * 86_400_000,
      partitionColumn: '',
      region: 'eu-west-1',
    });
  });
  it.each([
    [{ table: 'cur2', workgroup: 'primary' }, 'cur athena needs --database'],
    [{ ...base, table: 'cur2; DROP' }, '--table must be a plain Athena name'],
    [{ ...base, output: 'https://bucket/x' }, '--output must be an S3 location'],
    [{ ...base, since: 'soon' }, '--since must be a duration'],
    [{ ...base, region: 'mars-1' }, '--region must be an AWS region name'],
    [{ ...base, 'partition-column': 'Billing Period' }, '--partition-column must be a lower-case column name'],
  ])('refuses %j, naming the flag', (flags, message) => {
    expect(() => curAthenaOptionsFrom(flags)).toThrow(message);
  });
});
