import type { FastifyReply } from 'fastify';

/**
 * The JSON of an answer the engine keeps, serialised once and kept beside it. The engine (engine-runner.ts inline,
 * pool.ts in workers) answers every request for the same snapshot and parameters with the same object while the data
 * does not move; serialising it again on every request was most of what a request for a big answer cost (issue 24:
 * the store bench's GET /api/whatif/why-not, 305 KB at 1,000 nodes, p99 102 ms at load 11–15, its six nullable fields
 * a row each an anyOf in the schema's serialiser). Kept by the answer object itself (a WeakMap): the bytes go when
 * the engine lets the answer go, and an answer made afresh (several clusters' answers put together) is serialised
 * afresh. Serialised by the route's own response schema (reply.serialize), so the bytes are the ones Fastify would
 * send. An answer is never changed once the engine has given it (the routes build new objects from it).
 */
const kept = new WeakMap<object, Buffer>();
let serialised = 0;

/** Sends `answer` as JSON, serialised by the route's 200 schema the first time this object is sent, kept after. */
export function sendKeptJson(reply: FastifyReply, answer: object): FastifyReply {
  let json = kept.get(answer);
  if (json === undefined) {
    const out = reply.serialize(answer);
    json = typeof out === 'string' ? Buffer.from(out) : Buffer.isBuffer(out) ? out : Buffer.from(out);
    kept.set(answer, json);
    serialised += 1;
  }
  return reply.type('application/json; charset=utf-8').send(json);
}

/** How many answers were serialised (a request answered from kept bytes does not count): what the tests count. */
export function keptJsonStats(): { serialised: number } {
  return { serialised };
}
