import { describe, expect, it } from 'vitest';
import { BillImportError } from './csv-syntax.js';
import { boundaryOf, fileFromMultipart } from './multipart.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const form = (parts: string[], boundary = 'XyZ'): Uint8Array =>
  enc(`${parts.map((p) => `--${boundary}\r\n${p}\r\n`).join('')}--${boundary}--\r\n`);

describe('fileFromMultipart', () => {
  it('takes the file part (its bytes exactly, its base name), skipping plain fields', () => {
    const body = form([
      'Content-Disposition: form-data; name="note"\r\n\r\nhello',
      'Content-Disposition: form-data; name="file"; filename="C:\\\\exports\\\\costs.csv"\r\nContent-Type: text/csv\r\n\r\n"a","b"\r\n"1","2"',
    ]);
    const f = fileFromMultipart(body, 'multipart/form-data; boundary=XyZ');
    expect(f.fileName).toBe('costs.csv');
    expect(new TextDecoder().decode(f.bytes)).toBe('"a","b"\r\n"1","2"');
  });

  it('reads quoted boundaries and refuses forms without a file or cut short', () => {
    expect(boundaryOf('multipart/form-data; boundary="a b"')).toBe('a b');
    const noFile = form(['Content-Disposition: form-data; name="note"\r\n\r\nhello']);
    expect(() => fileFromMultipart(noFile, 'multipart/form-data; boundary=XyZ')).toThrow(BillImportError);
    expect(() =>
      fileFromMultipart(
        enc('--XyZ\r\nContent-Disposition: form-data; name="file"; filename="x.csv"\r\n\r\nabc'),
        'multipart/form-data; boundary=XyZ',
      ),
    ).toThrow(/cut short/);
    expect(() => fileFromMultipart(noFile, 'multipart/form-data')).toThrow(/boundary/);
  });
});
