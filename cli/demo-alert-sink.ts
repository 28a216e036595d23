import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the demo's sink received: each POST body as JSON, with when it arrived. */
export interface SinkDelivery {
  receivedAt: string;
  body: unknown;
}

/**
 * The demo's local webhook sink (127.0.0.1, a free port): the alert delivery POSTs each alert that fires or resolves
 * here, as it would to a real receiver; the sink says each on the demo's log and lists them at GET / as JSON. So a
 * newcomer sees the built-in alerts fire without setting up a receiver.
 */
export async function startAlertSink(log: (line: string) => void = () => undefined) {
  const received: SinkDelivery[] = [];
  const server = createServer((req, res) => {
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(received, null, 2));
      return;
    }
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      if (text.length < 1_000_000) text += chunk;
    });
    req.on('end', () => {
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // kept as text: the sink shows what came
      }
      received.push({ receivedAt: new Date().toISOString(), body });
      const b = body as { status?: string; sentence?: string; at?: string };
      if (typeof b.sentence === 'string') log(`webhook sink: ${b.status ?? ''} at ${b.at ?? '?'}: ${b.sentence}`);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    url,
    received,
    close: (): Promise<void> =>
      new Promise((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

export type AlertSink = Awaited<ReturnType<typeof startAlertSink>>;
