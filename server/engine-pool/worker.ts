import { parentPort, workerData } from 'node:worker_threads';
import { openDb } from '../../db/open-db.js';
import { sendableError } from './engine-errors.js';
import { createEngineServices, type EngineCall, runEngineCall } from './engine-services.js';

/**
 * One worker of the engine pool (server/engine-pool/pool.ts): opens the database read-only itself (a better-sqlite3
 * connection cannot cross threads), builds the engine services once (its own prepared-world cache), then answers
 * one call at a time. A call that runs too long is stopped by terminating this thread.
 */
interface Data {
  dbPath: string;
}
export interface CallMessage {
  id: number;
  call: EngineCall;
}
export type AnswerMessage = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: ReturnType<typeof sendableError> };

const { dbPath } = workerData as Data;
const db = openDb({ path: dbPath, readonly: true });
const services = createEngineServices(db);
const port = parentPort;
if (port === null) throw new Error('server/engine-pool/worker.ts runs as a worker thread');

port.on('message', (m: CallMessage) => {
  Promise.resolve()
    .then(() => runEngineCall(services, m.call))
    .then(
      (result): AnswerMessage => ({ id: m.id, ok: true, result }),
      (err: unknown): AnswerMessage => ({ id: m.id, ok: false, error: sendableError(err) }),
    )
    .then((answer) => port.postMessage(answer))
    .catch((err: unknown) => port.postMessage({ id: m.id, ok: false, error: sendableError(err) } satisfies AnswerMessage));
});
