import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeKubeconfig } from '../../sandbox/kubeconfig.js';
import { sandboxCertificate } from '../../sandbox/serve/certificate.js';
import { createKubeClients } from './client.js';

/*
 * client-node 1.4.0 makes a new https.Agent per request, so each list was a new TLS connection (a handshake each);
 * createKubeClients' KeepAliveKubeConfig keeps one keep-alive agent. A tiny TLS API server counts the connections
 * the real client opens for ten lists, with the CA and token of a kubeconfig as the sandbox writes it.
 */
let server: Server;
let dir: string;
let connections = 0;
let authorized = 0;

beforeAll(async () => {
  const cert = await sandboxCertificate();
  server = createServer({ key: cert.keyPem, cert: cert.certPem }, (req, res) => {
    if (req.headers.authorization === 'Bearer keep-alive-token') authorized++;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ kind: 'NodeList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] }));
  });
  server.on('secureConnection', () => connections++);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  dir = mkdtempSync(join(tmpdir(), 'ledger-keep-alive-'));
  const { port } = server.address() as AddressInfo;
  writeKubeconfig(join(dir, 'kubeconfig'), `https://127.0.0.1:${port}`, 'keep-alive-token', 'keep-alive', cert.caCertPem);
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
  rmSync(dir, { recursive: true, force: true });
});

describe('the Kubernetes client over TLS', () => {
  it('makes ten lists over one verified connection, each with the token', async () => {
    const kube = createKubeClients({ kubeconfig: join(dir, 'kubeconfig') });
    for (let i = 0; i < 10; i++) expect((await kube.core.listNode()).items).toEqual([]);
    expect(authorized).toBe(10);
    expect(connections).toBe(1);
  });
});
