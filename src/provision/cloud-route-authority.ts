import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newCertificateAuthority, type PemPair } from '../cloud/tls-certificates.ts';

/** The authority the simulator's proxy certificate comes from, and where the server finds its certificate. */
export interface RouteAuthority {
  authority: PemPair;
  /** The certificate's path as the server reads it (the plugin's SSL_CERT_FILE). */
  serverCaFile: string;
  /** Whether the file at serverCaFile is one this run wrote on this machine. */
  local: boolean;
  /** Removes what this run wrote for it (a kept authority stays). */
  dispose(): void;
}

/** How long a kept authority lives: long enough that a copy placed on a server is not redone often. */
const KEPT_DAYS = 365;

/**
 * The run's certificate authority. By default a new one, its certificate written to a file of its
 * own (readable by a server running as another user of this machine) and removed at the end. With
 * `caDir`, one kept there across runs (ca.pem, and ca-key.pem readable by the owner only), made on
 * first use: a server on another host keeps a copy of ca.pem at `serverCaFile`.
 */
export async function routeAuthority(options: { caDir?: string; serverCaFile?: string }): Promise<RouteAuthority> {
  if (options.caDir) {
    const cert = join(options.caDir, 'ca.pem');
    const key = join(options.caDir, 'ca-key.pem');
    let authority: PemPair;
    if (existsSync(cert) && existsSync(key)) {
      authority = { certPem: readFileSync(cert, 'utf8'), keyPem: readFileSync(key, 'utf8') };
    } else {
      authority = await newCertificateAuthority(KEPT_DAYS);
      mkdirSync(options.caDir, { recursive: true });
      writeFileSync(key, authority.keyPem, { mode: 0o600 });
      writeFileSync(cert, authority.certPem, { mode: 0o644 });
    }
    return { authority, serverCaFile: options.serverCaFile ?? cert, local: !options.serverCaFile, dispose: () => {} };
  }
  // Without a kept authority the server can only read this run's certificate from this machine
  // (the profile schema refuses serverCaFile without caDir).
  const authority = await newCertificateAuthority();
  const dir = mkdtempSync(join(tmpdir(), 'stackproof-cloud-ca-'));
  chmodSync(dir, 0o755);
  const file = join(dir, 'ca.pem');
  writeFileSync(file, authority.certPem, { mode: 0o644 });
  return { authority, serverCaFile: file, local: true, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
