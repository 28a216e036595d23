import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import type { SandboxContext, SandboxHandler, SandboxRequest, SandboxResponse, SandboxStream } from './context.js';
import { isStream, json } from './context.js';

const MAX_BODY_BYTES = 1 << 20;

export interface SandboxServer {
  server: Server;
  /** http://127.0.0.1:<port>: every protocol, as the AWS SDK and the tests reach it. */
  url: string;
  /** https://127.0.0.1:<port> when a certificate was given (the same port and handlers): what kubectl needs. */
  httpsUrl: string | null;
  close: () => Promise<void>;
}

/** TLS records start with a handshake byte (22); an HTTP/1 request starts with a method's letter. */
const TLS_HANDSHAKE = 0x16;

/**
 * Serves the sandbox handlers on 127.0.0.1, one port for every protocol, plus the clock control endpoint. Given a
 * certificate, the same port also speaks TLS: each connection goes to the plain or the TLS server by its first
 * byte, so kubectl (which sends a bearer token only over TLS) and plain-HTTP clients share one address.
 */
export async function startSandboxServer(
  ctx: SandboxContext,
  handlers: SandboxHandler[],
  port = 0,
  host = '127.0.0.1',
  tls?: { keyPem: string; certPem: string },
): Promise<SandboxServer> {
  const answer = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) chunks.push(c);
    });
    req.on('end', () => {
      let out: SandboxResponse | SandboxStream;
      try {
        const request: SandboxRequest = {
          method: req.method ?? 'GET',
          url: new URL(req.url ?? '/', 'http://sandbox'),
          headers: req.headers,
          body: Buffer.concat(chunks),
        };
        out =
          size > MAX_BODY_BYTES
            ? json(413, { message: 'request body too large' })
            : (control(request, ctx) ??
              firstAnswer(handlers, request, ctx) ??
              json(404, { message: `nothing in the sandbox answers ${request.method} ${request.url.pathname}` }));
      } catch (err) {
        out = json(500, { message: `sandbox error: ${(err as Error).message}` });
      }
      req.socket.setNoDelay(true);
      if (isStream(out)) {
        res.writeHead(out.status, out.headers);
        let ended = false;
        const stop = out.open(
          (chunk) => {
            if (!ended) res.write(chunk);
          },
          () => {
            if (!ended) {
              ended = true;
              res.end();
            }
          },
        );
        res.on('close', () => {
          ended = true;
          stop();
        });
        return;
      }
      // A Buffer with its length and no Nagle delay: lists of a few hundred KB go out in one burst.
      const body = typeof out.body === 'string' ? Buffer.from(out.body) : out.body;
      // A HEAD answer (S3's HeadObject) states the length of the body it does not send.
      const length = req.method === 'HEAD' ? (out.headers['content-length'] ?? body.length) : body.length;
      res.writeHead(out.status, { ...out.headers, 'content-length': length });
      res.end(body);
    });
  };
  const server = createServer(answer);
  const secure = tls === undefined ? null : createHttpsServer({ key: tls.keyPem, cert: tls.certPem }, answer);
  // Clients keep connections alive between steps; a short server-side idle timeout races their reuse (ECONNRESET).
  server.keepAliveTimeout = 60_000;
  if (secure !== null) secure.keepAliveTimeout = 60_000;
  // Sockets handed to the servers by route() are not tracked by them (they never listened themselves), so
  // closeAllConnections() would not reach them: a Kubernetes watch held open would keep close() waiting for ever.
  const routed = new Set<Socket>();
  const listener: Server | NetServer =
    secure === null
      ? server
      : createNetServer((socket) => {
          routed.add(socket);
          socket.on('close', () => routed.delete(socket));
          route(socket, server, secure);
        });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(port, host, () => resolve());
  });
  const address = listener.address() as AddressInfo;
  return {
    server,
    url: `http://${host}:${address.port}`,
    httpsUrl: secure === null ? null : `https://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        for (const socket of routed) socket.destroy();
        listener.close(() => resolve());
      }),
  };
}

/** Hands a new connection to the TLS or the plain server by its first byte, which is put back for it to read. */
function route(socket: Socket, plain: Server, secure: Server): void {
  socket.once('data', (first: Buffer) => {
    socket.pause();
    socket.unshift(first);
    (first[0] === TLS_HANDSHAKE ? secure : plain).emit('connection', socket);
    process.nextTick(() => socket.resume());
  });
  socket.on('error', () => socket.destroy()); // a client gone before its first byte
}

function firstAnswer(handlers: SandboxHandler[], req: SandboxRequest, ctx: SandboxContext): SandboxResponse | SandboxStream | null {
  for (const h of handlers) {
    const out = h(req, ctx);
    if (out) return out;
  }
  return null;
}

/** `GET/POST /_sandbox/clock`: read or move the simulated now (the seeding driver does this). */
function control(req: SandboxRequest, ctx: SandboxContext): SandboxResponse | null {
  if (req.url.pathname !== '/_sandbox/clock') return null;
  if (req.method === 'POST') {
    const body = JSON.parse(req.body.toString('utf8') || '{}') as { time?: string };
    const t = Date.parse(body.time ?? '');
    if (Number.isNaN(t)) return json(400, { message: 'body must be {"time": "<ISO 8601>"}' });
    const { start, end } = ctx.scenario;
    if (t < start || t > end)
      return json(400, { message: `time must be within the scenario, ${new Date(start).toISOString()} .. ${new Date(end).toISOString()}` });
    ctx.clock.set(t);
  }
  return json(200, {
    time: new Date(ctx.clock.now()).toISOString(),
    resourceVersion: String(Math.floor(ctx.clock.now() / 1000)),
    start: new Date(ctx.scenario.start).toISOString(),
    end: new Date(ctx.scenario.end).toISOString(),
    scenario: ctx.scenario.name,
    seed: ctx.scenario.seed,
  });
}
