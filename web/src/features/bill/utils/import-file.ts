/** Checks made before uploading a bill CSV, so an obviously wrong file fails at once with what to do. */

export const MAX_IMPORT_BYTES = 5 * 1024 * 1024;

export const EXPORT_HOW_TO =
  'In the Cost Explorer console: Group by "Tag: karpenter.sh/nodepool", granularity Daily (or Monthly), then "Download as CSV".';

/** A reason to refuse the file before uploading it, or null to let the server read it. */
export function precheckFile(file: { name: string; size: number; type: string }): string | null {
  if (file.size === 0) return `${file.name} is empty. ${EXPORT_HOW_TO}`;
  if (file.size > MAX_IMPORT_BYTES) return `${file.name} is over 5 MB: export a shorter date range.`;
  const csvName = /\.csv$/i.test(file.name);
  const csvType = file.type === '' || /csv|text\/plain|excel/i.test(file.type);
  if (!csvName && !csvType) return `${file.name} is not a CSV file (${file.type}). ${EXPORT_HOW_TO}`;
  return null;
}

/** Shown beside the drop zone: an import is the one thing on the dashboard that writes. */
export const IMPORT_WRITES =
  "Importing stores the file in the ledger's database, under the collector's lock: it is refused while a collector (collect, or the demo's seeding) is writing that database.";

/** What to do after the server refused an upload, by its status. */
export function importAdvice(status: number): string {
  if (status === 413) return 'Export a shorter date range and import it in parts.';
  if (status === 415) return 'Choose the .csv file Cost Explorer downloaded.';
  if (status === 409) return 'Importing writes to the database, which a collector is writing now: import once it has stopped.';
  if (status === 503) return 'Importing writes to the database, which this server cannot write (a read-only file or a full disk).';
  if (status === 0) return 'The server did not answer: check that it is still running, then try again.';
  if (status >= 500) return 'The server failed while reading the file (its log has the cause). Try again.';
  return EXPORT_HOW_TO;
}
