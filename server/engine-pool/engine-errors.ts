import { QueryParamError } from '../analytics/range.js';

/**
 * Errors across the worker boundary: a worker sends what the API's error handler reads (the status, the message, a
 * bad parameter's name), and the API thread rebuilds an error that answers the same as if it had been thrown there.
 */
export interface SentError {
  name: string;
  message: string;
  statusCode?: number;
  param?: string;
  detail?: string;
  stack?: string;
}

export function sendableError(err: unknown): SentError {
  if (err instanceof QueryParamError) return { name: err.name, message: err.message, param: err.param, detail: err.detail };
  if (err instanceof Error) {
    const status = (err as { statusCode?: unknown }).statusCode;
    return { name: err.name, message: err.message, stack: err.stack, ...(typeof status === 'number' ? { statusCode: status } : {}) };
  }
  return { name: 'Error', message: String(err) };
}

/** An error thrown in a worker, as the API thread throws it (4xx keep their status; others are the server's 500). */
export class EngineWorkerError extends Error {
  constructor(
    sent: SentError,
    readonly statusCode?: number,
  ) {
    super(sent.message);
    this.name = sent.name;
    if (sent.stack !== undefined) this.stack = sent.stack;
  }
}

export function rebuiltError(sent: SentError): Error {
  if (sent.name === 'QueryParamError' && sent.param !== undefined && sent.detail !== undefined)
    return new QueryParamError(sent.param, sent.detail);
  return new EngineWorkerError(sent, sent.statusCode);
}

/**
 * 503: the engine did not answer within the request's time bound (or the pool is closing). The simulation goes on
 * (up to the pool's hard limit) and its answer is kept for the snapshot and parameters, so asking again after
 * `retryAfterSeconds` finds it; the API answers with a Retry-After header.
 */
export class EngineBusyError extends Error {
  readonly statusCode = 503;
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
    this.name = 'EngineBusyError';
  }
}

/** The client went away before the answer: nothing is sent. */
export class EngineCancelledError extends Error {
  constructor() {
    super('the client went away; the engine task was cancelled');
    this.name = 'EngineCancelledError';
  }
}
