import { useId, useRef, useState, type DragEvent } from 'react';
import type { ImportResponse } from '@schemas/bill';
import { ApiError } from '../../../lib/api-client';
import { formatUsd } from '../../../lib/format';
import { useImportBill } from '../api/use-bill';
import { EXPORT_HOW_TO, IMPORT_WRITES, importAdvice, precheckFile } from '../utils/import-file';

interface ImportDropProps {
  /** Called with the stored source (csv:<name>) after a good import. */
  onImported: (result: ImportResponse) => void;
}

/** Drop a Cost Explorer CSV here or pick it; a wrong file says what is wrong and how to export the right one. */
export function ImportDrop({ onImported }: ImportDropProps) {
  const inputId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const [localError, setLocalError] = useState<{ message: string; advice: string } | null>(null);
  const [fileName, setFileName] = useState<string | null>(null);
  const upload = useImportBill();

  const take = (file: File | undefined) => {
    if (file === undefined) return;
    upload.reset();
    setFileName(file.name);
    const problem = precheckFile(file);
    if (problem !== null) return setLocalError({ message: problem, advice: '' });
    setLocalError(null);
    upload.mutate(file, { onSuccess: onImported });
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    take(e.dataTransfer.files[0]);
  };

  const serverError =
    upload.error === null
      ? null
      : {
          message: upload.error.message,
          advice: importAdvice(upload.error instanceof ApiError ? upload.error.status : 0),
        };
  const error = localError ?? serverError;
  const result = upload.data;

  return (
    <div
      className={dragging ? 'drop-zone is-dragging' : 'drop-zone'}
      data-testid="import-drop"
      onDragOver={(e) => {
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
    >
      <p className="drop-title">
        <strong>Import a Cost Explorer CSV</strong> — drop the file here, or{' '}
        <button type="button" className="link-button" onClick={() => input.current?.click()}>
          choose a file
        </button>
        .
      </p>
      <label htmlFor={inputId} className="visually-hidden">
        Cost Explorer CSV file
      </label>
      <input
        id={inputId}
        ref={input}
        className="visually-hidden"
        type="file"
        accept=".csv,text/csv"
        onChange={(e) => {
          take(e.target.files?.[0]);
          e.target.value = '';
        }}
      />
      <p className="hint">{EXPORT_HOW_TO} Up to 5 MB.</p>
      <p className="hint">{IMPORT_WRITES}</p>
      {upload.isPending ? <p role="status">Reading {fileName ?? 'the file'}…</p> : null}
      {error === null ? null : (
        <div className="state state-error" role="alert" data-testid="import-error">
          <strong>{fileName === null ? 'This file' : fileName} could not be imported.</strong>
          <p>{error.message}</p>
          {error.advice === '' || error.message.includes(error.advice) ? null : <p>{error.advice}</p>}
        </div>
      )}
      {result === undefined || error !== null ? null : (
        <p className="import-ok" role="status">
          Imported {result.fileName ?? result.source}: {result.lines} lines over {result.periods} {result.granularity.toLowerCase()}{' '}
          periods, {formatUsd(result.totalUsd)}
          {result.fileTotalUsd === null ? '' : ` (the file's total row: ${formatUsd(result.fileTotalUsd)})`}.
          {result.warnings.length === 0 ? null : <span className="warnings"> {result.warnings.join(' ')}</span>}
        </p>
      )}
    </div>
  );
}
