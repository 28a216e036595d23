import { generate } from 'selfsigned';
import { DAY_MS, HOUR_MS } from '../../core/time.js';

/** PEM text of what the sandbox's TLS needs: a CA for clients to trust, and the server's key and certificate it signed. */
export interface SandboxCertificate {
  /** The CA certificate: a kubeconfig's certificate-authority-data, curl's --cacert. */
  caCertPem: string;
  keyPem: string;
  certPem: string;
}

/**
 * A throwaway CA and a server certificate for 127.0.0.1 and localhost signed by it, made at start (ECDSA
 * P-256, SHA-256; valid from an hour ago for a year of wall-clock time: TLS checks the real clock, never the
 * sandbox's simulated one). A CA and a leaf rather than one self-signed certificate, because some clients refuse a
 * CA certificate as a server's own. The keys live only in this process and the CA signs nothing else.
 */
async function makeCertificate(): Promise<SandboxCertificate> {
  const notBeforeDate = new Date(Date.now() - HOUR_MS);
  const notAfterDate = new Date(notBeforeDate.getTime() + 365 * DAY_MS);
  const ca = await generate([{ name: 'commonName', value: 'NodePool Ledger sandbox CA' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  const server = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false, critical: true },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 7, ip: '127.0.0.1' },
          { type: 2, value: 'localhost' },
        ],
      },
    ],
  });
  return { caCertPem: ca.cert, keyPem: server.private, certPem: server.cert };
}

let shared: Promise<SandboxCertificate> | undefined;

/** One certificate per process: every sandbox this process starts serves it (making one takes a few hundred ms). */
export function sandboxCertificate(): Promise<SandboxCertificate> {
  shared ??= makeCertificate();
  return shared;
}
