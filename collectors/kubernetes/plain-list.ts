import { type ConfigurationOptions, Observable, ResponseContext } from '@kubernetes/client-node';

/** A list page as the API server sent it: plain JSON, its items untyped. */
export interface PlainList {
  items: unknown[];
  metadata?: { continue?: string; resourceVersion?: string };
}

const EMPTY = '{"items":[]}';
const body = (text: string) => ({ text: async () => text, binary: async () => Buffer.from(text) });

/**
 * One list request through the client (its authentication, keep-alive agent and ApiException on a failure), its
 * 2xx answer kept as the plain JSON it was: the client's typed deserialisation is skipped (it is handed an empty
 * list). A watch event carries the same plain JSON, and the pods' mapping reads both (collectors/kubernetes/map.ts).
 * For the watch cache's 150,000 pods the typed copy was most of the start-up's CPU (parse 1.0 s, parse and
 * deserialise 3.7 s for 6,000 realistic pods) and a second object tree per page to collect.
 */
export async function plainList(call: (options: ConfigurationOptions) => Promise<unknown>): Promise<PlainList> {
  let plain: PlainList | undefined;
  await call({
    middlewareMergeStrategy: 'append',
    middleware: [
      {
        pre: (request) => new Observable(Promise.resolve(request)),
        post: (response) =>
          new Observable(
            response.body.text().then((text) => {
              const ok = response.httpStatusCode >= 200 && response.httpStatusCode <= 299;
              if (ok) plain = JSON.parse(text) as PlainList;
              return new ResponseContext(response.httpStatusCode, response.headers, body(ok ? EMPTY : text));
            }),
          ),
      },
    ],
  });
  if (plain === undefined) throw new Error('the list answer was not read');
  return { items: Array.isArray(plain.items) ? plain.items : [], metadata: plain.metadata };
}
