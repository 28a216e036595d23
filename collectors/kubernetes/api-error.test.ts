import { ApiException } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { kubeErrorText } from './api-error.js';

const forbidden = JSON.stringify({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'nodes is forbidden: User "ledger" cannot list resource "nodes"',
  reason: 'Forbidden',
  code: 403,
});

describe('kubeErrorText', () => {
  it.each([
    // What client-node 1.x throws: the code, a generic message, the body as a JSON string, the headers.
    [
      new ApiException(403, 'Unknown API Status Code!', forbidden, { 'content-type': 'application/json' }),
      'HTTP 403: nodes is forbidden: User "ledger" cannot list resource "nodes"',
    ],
    // The same wrapped by listAll.
    [
      new Error(
        `listing nodes failed with HTTP 403: HTTP-Code: 403\nMessage: Unknown API Status Code!\nBody: ${JSON.stringify(forbidden)}\nHeaders: {}`,
      ),
      'listing nodes failed with HTTP 403: nodes is forbidden: User "ledger" cannot list resource "nodes"',
    ],
    [new Error('connect ECONNREFUSED 127.0.0.1:1'), 'connect ECONNREFUSED 127.0.0.1:1'],
    [new Error('listing pods failed with HTTP 502: HTTP-Code: 502\nBody: <html>bad gateway</html>'), 'listing pods failed with HTTP 502'],
  ])("%#: says the first line and the API server's message", (err, text) => expect(kubeErrorText(err)).toBe(text));
});
