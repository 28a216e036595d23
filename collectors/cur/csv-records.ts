/**
 * CSV as Athena writes a query's result object (`<OutputLocation>/<QueryExecutionId>.csv`): RFC 4180, a header row,
 * every value in double quotes (a quote inside doubled, line breaks kept inside the quotes), NULL as an empty
 * unquoted field. Parsed a piece of text at a time, so a result of any size streams through in constant memory:
 * `push` hands back the records completed by that piece, `end` the last one. A quoted value stays a string (`""` is
 * ''), an unquoted empty field is null; a stray quote or text after a closing quote is refused with its line number.
 */

export class CsvFormatError extends Error {}

export class CsvRecordParser {
  private record: (string | null)[] = [];
  private field = '';
  /** The current field began with a quote (a string, even when empty). */
  private quoted = false;
  /** Inside a quoted value. */
  private inQuotes = false;
  /** Inside a quoted value, a quote was the last character seen: the next one decides (another quote, or the end). */
  private quoteSeen = false;
  /** The quoted value closed: only a comma or a line break may follow. */
  private closed = false;
  private line = 1;

  push(text: string): (string | null)[][] {
    const out: (string | null)[][] = [];
    let i = 0;
    const n = text.length;
    while (i < n) {
      if (this.inQuotes) {
        if (this.quoteSeen) {
          this.quoteSeen = false;
          if (text[i] === '"') {
            this.field += '"';
            i += 1;
            continue;
          }
          this.inQuotes = false;
          this.closed = true;
          continue;
        }
        const q = text.indexOf('"', i);
        const upTo = q < 0 ? n : q;
        const run = text.slice(i, upTo);
        this.field += run;
        for (let j = run.indexOf('\n'); j >= 0; j = run.indexOf('\n', j + 1)) this.line += 1;
        if (q < 0) return out;
        this.quoteSeen = true;
        i = q + 1;
        continue;
      }
      const c = text[i];
      i += 1;
      if (c === ',') {
        this.endField();
      } else if (c === '\n') {
        this.endField();
        this.endRecord(out);
        this.line += 1;
      } else if (c === '\r') {
        // CRLF line ends: the \n ends the record.
      } else if (this.closed) {
        throw new CsvFormatError(`line ${this.line}: "${c}" after a closing quote`);
      } else if (c === '"') {
        if (this.field !== '') throw new CsvFormatError(`line ${this.line}: a quote inside an unquoted value`);
        this.inQuotes = true;
        this.quoted = true;
      } else {
        this.field += c;
      }
    }
    return out;
  }

  /** The last record, when the text did not end with a line break. */
  end(): (string | null)[][] {
    if (this.inQuotes && !this.quoteSeen) throw new CsvFormatError(`line ${this.line}: the text ends inside a quoted value`);
    this.inQuotes = false;
    this.quoteSeen = false;
    const out: (string | null)[][] = [];
    if (this.record.length > 0 || this.field !== '' || this.quoted) {
      this.endField();
      this.endRecord(out);
    }
    return out;
  }

  private endField(): void {
    this.record.push(this.quoted ? this.field : this.field === '' ? null : this.field);
    this.field = '';
    this.quoted = false;
    this.closed = false;
  }

  private endRecord(out: (string | null)[][]): void {
    const r = this.record;
    this.record = [];
    // A blank line (one empty unquoted field) is no record.
    if (r.length === 1 && r[0] === null) return;
    out.push(r);
  }
}

/**
 * The records of a CSV byte stream, `batchSize` at a time, as objects keyed by the header row's names (lower case).
 * Resolves with the number of records (header excluded).
 */
export async function csvRecordBatches(
  source: AsyncIterable<Uint8Array | string>,
  onBatch: (records: Record<string, string | null>[]) => void,
  batchSize = 2048,
): Promise<number> {
  const parser = new CsvRecordParser();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let header: string[] | null = null;
  let batch: Record<string, string | null>[] = [];
  let count = 0;
  const take = (records: (string | null)[][]): void => {
    for (const values of records) {
      if (header === null) {
        header = values.map((v) => (v ?? '').toLowerCase());
        continue;
      }
      if (values.length !== header.length)
        throw new CsvFormatError(`record ${count + 1}: ${values.length} fields where the header has ${header.length}`);
      const record: Record<string, string | null> = {};
      header.forEach((name, k) => {
        record[name] = values[k] ?? null;
      });
      batch.push(record);
      count += 1;
      if (batch.length >= batchSize) {
        const full = batch;
        batch = [];
        onBatch(full);
      }
    }
  };
  for await (const piece of source) take(parser.push(typeof piece === 'string' ? piece : decoder.decode(piece, { stream: true })));
  take(parser.push(decoder.decode()));
  take(parser.end());
  if (header === null) throw new CsvFormatError('no header row');
  if (batch.length > 0) onBatch(batch);
  return count;
}
