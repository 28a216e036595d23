import { describe, expect, it } from 'vitest';
import { EXPORT_HOW_TO, importAdvice, precheckFile } from './import-file';

describe('precheckFile', () => {
  describe.each([
    { file: { name: 'costs.csv', size: 2048, type: 'text/csv' }, expected: null },
    { file: { name: 'costs.csv', size: 2048, type: '' }, expected: null }, // some systems give no type
    { file: { name: 'export', size: 10, type: 'application/vnd.ms-excel' }, expected: null },
    { file: { name: 'costs.csv', size: 0, type: 'text/csv' }, expected: `costs.csv is empty. ${EXPORT_HOW_TO}` },
    {
      file: { name: 'big.csv', size: 5 * 1024 * 1024 + 1, type: 'text/csv' },
      expected: 'big.csv is over 5 MB: export a shorter date range.',
    },
    { file: { name: 'chart.png', size: 900, type: 'image/png' }, expected: `chart.png is not a CSV file (image/png). ${EXPORT_HOW_TO}` },
  ])('$file.name ($file.size bytes, $file.type)', ({ file, expected }) => it('->', () => expect(precheckFile(file)).toBe(expected)));
});

describe('importAdvice', () => {
  describe.each([
    { status: 400, expected: EXPORT_HOW_TO },
    { status: 422, expected: EXPORT_HOW_TO },
    { status: 413, expected: 'Export a shorter date range and import it in parts.' },
    { status: 409, expected: 'Importing writes to the database, which a collector is writing now: import once it has stopped.' },
    { status: 503, expected: 'Importing writes to the database, which this server cannot write (a read-only file or a full disk).' },
    { status: 500, expected: 'The server failed while reading the file (its log has the cause). Try again.' },
  ])('$status', ({ status, expected }) => it('->', () => expect(importAdvice(status)).toBe(expected)));
});
