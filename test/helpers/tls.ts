import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp.js';

/** A self-signed certificate for 127.0.0.1 and its key (PEM), and the file holding the certificate (a CA for clients). */
export interface LoopbackCertificate {
  readonly cert: string;
  readonly key: string;
  readonly certFile: string;
}

/**
 * A fresh P-256 certificate for `IP:127.0.0.1`, valid one day, made by the machine's `openssl` (no cryptography of our
 * own): what a test serving HTTPS on loopback presents, and what its clients trust (`ca`, or NODE_EXTRA_CA_CERTS for a
 * child process such as AdCP's grader).
 */
export function loopbackCertificate(): LoopbackCertificate {
  const dir = tempDir('adcp-tls-');
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  const args = ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyFile, '-out', certFile];
  const r = spawnSync('openssl', args, { encoding: 'utf8' });
  if (r.error !== undefined || r.status !== 0) throw new Error(`openssl could not make a loopback certificate (is openssl installed?): ${r.error?.message ?? r.stderr}`);
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), certFile };
}
