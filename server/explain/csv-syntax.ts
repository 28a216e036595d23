/**
 * Pure: bytes -> text -> rows of cells for comma-separated files (RFC 4180: quoted cells, "" inside quotes,
 * CRLF or LF line ends). Errors carry the HTTP status the API answers with and say where the problem is.
 */

export type ImportStatus = 400 | 413 | 415 | 422;

export class BillImportError extends Error {
  constructor(
    readonly statusCode: ImportStatus,
    message: string,
  ) {
    super(message);
    this.name = 'BillImportError';
  }
}

/**
 * Offset of the first byte that is not valid UTF-8, or -1: the platform's decoder judges (a fatal TextDecoder, the
 * WHATWG rules: overlong forms, surrogates and code points past U+10FFFF refused), and only to say *where* in a file it
 * failed is the longest valid prefix found by halving (streaming decodes, so a sequence cut by the split is not
 * counted against it). Each probe decodes up to the whole file, log2(5 MB) = 23 of them, only for a refused file.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  try {
    new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    return -1;
  } catch {
    // Where: the largest n whose first n bytes still decode (as the start of a stream).
  }
  const decodesAsPrefix = (n: number): boolean => {
    try {
      new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes.subarray(0, n), { stream: true });
      return true;
    } catch {
      return false;
    }
  };
  let good = 0; // the first `good` bytes decode
  let bad = bytes.length; // the first `bad` bytes do not
  if (decodesAsPrefix(bad)) {
    // Every byte decoded but the file ends inside a sequence: point at its lead byte.
    let lead = bytes.length - 1;
    while (lead > 0 && (bytes[lead] & 0xc0) === 0x80) lead -= 1;
    return lead;
  }
  while (bad - good > 1) {
    const mid = Math.floor((good + bad) / 2);
    if (decodesAsPrefix(mid)) good = mid;
    else bad = mid;
  }
  // Byte f is where decoding failed; if it cut short a sequence begun just before it, that sequence's lead is the culprit.
  const f = bad - 1;
  for (let j = f - 1; j >= Math.max(0, f - 3); j -= 1) {
    const b = bytes[j];
    if (b < 0x80) break;
    if (b >= 0xc0) {
      const length = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
      return j + length - 1 >= f ? j : f;
    }
  }
  return f;
}

const lineOfOffset = (bytes: Uint8Array, offset: number): number => {
  let line = 1;
  for (let i = 0; i < offset; i += 1) if (bytes[i] === 0x0a) line += 1;
  return line;
};

/**
 * UTF-8 only (a byte-order mark is dropped). UTF-16 and legacy encodings (Latin-1, Windows-1252) are refused
 * with the fix: the Cost Explorer console writes UTF-8, so such bytes mean the file was re-saved by another tool.
 */
export function decodeUtf8Csv(bytes: Uint8Array): string {
  if (bytes.length === 0) throw new BillImportError(400, 'The file is empty: upload the CSV that Cost Explorer\'s "Download CSV" saved.');
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    throw new BillImportError(
      415,
      'The file is UTF-16 (it starts with a UTF-16 byte-order mark); only UTF-8 is accepted. Save it as "CSV UTF-8" or upload the file Cost Explorer downloaded, unchanged.',
    );
  }
  const probe = bytes.subarray(0, 4096);
  if (probe.includes(0)) {
    throw new BillImportError(
      415,
      'The file holds NUL bytes: it is UTF-16 without a byte-order mark, or not text. Only UTF-8 CSV is accepted.',
    );
  }
  const body = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
  const bad = firstInvalidUtf8(body);
  if (bad >= 0) {
    const b = body[bad].toString(16).padStart(2, '0');
    throw new BillImportError(
      415,
      `The file is not valid UTF-8: byte 0x${b} at offset ${bad} (line ${lineOfOffset(body, bad)}) looks like Latin-1 or Windows-1252. Only UTF-8 is accepted: save the file as "CSV UTF-8".`,
    );
  }
  // Valid by the check above; fatal all the same, so a byte it let through could never become U+FFFD silently.
  return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
}

/**
 * Rows of cells. Blank lines are dropped; a quote left open or text after a closing quote is an error.
 *
 * Hand-written rather than csv-parse (which the tests use to read our downloads): on the two mistakes a user most
 * needs explained, csv-parse 7 says less — a quote left open is reported at the line where the file ends, not where
 * the quote opened (a file cut short), and the character found after a closing quote (";" or a tab: a spreadsheet
 * re-saved the file with another separator) is only in its message text — and its record delimiter is guessed from
 * the first line, so a file mixing CRLF and LF needs telling. Files are at most 5 MB, so streaming buys nothing.
 */
export function parseCsvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  let afterQuote = false;
  let line = 1;
  let quoteStartLine = 0;
  const endRow = (): void => {
    row.push(cell);
    if (!(row.length === 1 && row[0] === '')) rows.push(row);
    row = [];
    cell = '';
    afterQuote = false;
  };
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          cell += '"';
          i += 1;
        } else {
          quoted = false;
          afterQuote = true;
        }
      } else {
        if (ch === '\n') line += 1;
        cell += ch;
      }
      continue;
    }
    if (ch === ',') {
      row.push(cell);
      cell = '';
      afterQuote = false;
      continue;
    }
    if (ch === '\r' && text[i + 1] === '\n') continue;
    if (ch === '\n' || ch === '\r') {
      endRow();
      line += 1;
      continue;
    }
    if (afterQuote) {
      // A spreadsheet saved with a European locale separates quoted cells with semicolons: say so.
      const hint =
        ch === ';' || ch === '\t'
          ? ` (cells separated by ${ch === ';' ? 'semicolons' : 'tabs'}: re-save with commas, or upload the file Cost Explorer downloaded)`
          : '';
      throw new BillImportError(400, `CSV syntax error on line ${line}: text after a closing quote${hint}.`);
    }
    if (ch === '"') {
      if (cell !== '') throw new BillImportError(400, `CSV syntax error on line ${line}: a quote inside an unquoted cell.`);
      quoted = true;
      quoteStartLine = line;
      continue;
    }
    cell += ch;
  }
  if (quoted)
    throw new BillImportError(
      400,
      `CSV syntax error: the quote opened on line ${quoteStartLine} is never closed (the file may be cut short).`,
    );
  if (cell !== '' || row.length > 0) endRow();
  return rows;
}

/** A1-style cell name for messages: column 0, row 0 -> "A1". */
export function cellName(column: number, row: number): string {
  let name = '';
  let c = column + 1;
  while (c > 0) {
    const r = (c - 1) % 26;
    name = String.fromCharCode(65 + r) + name;
    c = Math.floor((c - 1) / 26);
  }
  return `${name}${row + 1}`;
}
