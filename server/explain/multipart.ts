import { BillImportError } from './csv-syntax.js';

/**
 * Pure: the file part of a multipart/form-data upload (RFC 7578), enough for one CSV from a browser form or
 * `curl -F file=@export.csv`. The first part with a filename wins, else a part named "file".
 */

export interface UploadedFile {
  fileName: string | null;
  bytes: Uint8Array;
}

/** The boundary parameter of a multipart/form-data content type, or null. */
export function boundaryOf(contentType: string): string | null {
  const m = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  return m ? (m[1] ?? m[2] ?? null) : null;
}

/** Buffer's native search over the same bytes (no copy). */
const indexOf = (haystack: Uint8Array, needle: Uint8Array, from: number): number =>
  Buffer.from(haystack.buffer, haystack.byteOffset, haystack.byteLength).indexOf(needle, from);

/** Just the file name, whatever path a browser sent. */
const baseName = (name: string): string => name.split(/[\\/]/).pop() ?? name;

export function fileFromMultipart(body: Uint8Array, contentType: string): UploadedFile {
  const boundary = boundaryOf(contentType);
  if (boundary === null) throw new BillImportError(400, 'multipart/form-data without a boundary parameter.');
  const enc = new TextEncoder();
  const delimiter = enc.encode(`--${boundary}`);
  const parts: { headers: string; bytes: Uint8Array }[] = [];
  let at = indexOf(body, delimiter, 0);
  if (at < 0) throw new BillImportError(400, 'multipart body without its boundary: nothing was uploaded.');
  while (at >= 0) {
    let start = at + delimiter.length;
    if (body[start] === 0x2d && body[start + 1] === 0x2d) break; // "--": the closing delimiter
    if (body[start] === 0x0d && body[start + 1] === 0x0a) start += 2;
    const next = indexOf(body, enc.encode(`\r\n--${boundary}`), start);
    if (next < 0) throw new BillImportError(400, 'multipart body cut short: the closing boundary is missing.');
    const part = body.subarray(start, next);
    const headerEnd = indexOf(part, enc.encode('\r\n\r\n'), 0);
    if (headerEnd < 0) throw new BillImportError(400, 'a multipart part without headers.');
    parts.push({ headers: new TextDecoder().decode(part.subarray(0, headerEnd)), bytes: part.subarray(headerEnd + 4) });
    at = next + 2;
  }
  const described = parts.map((p) => {
    const disposition = /content-disposition:([^\r\n]*)/i.exec(p.headers)?.[1] ?? '';
    const name = /\bname="([^"]*)"/i.exec(disposition)?.[1] ?? null;
    const fileName = /\bfilename="([^"]*)"/i.exec(disposition)?.[1] ?? null;
    return { name, fileName, bytes: p.bytes };
  });
  const file = described.find((p) => p.fileName !== null) ?? described.find((p) => p.name === 'file');
  if (!file) throw new BillImportError(400, 'The form has no file: send the CSV as a file field (e.g. curl -F file=@costs.csv).');
  return { fileName: file.fileName === null ? null : baseName(file.fileName), bytes: file.bytes };
}
