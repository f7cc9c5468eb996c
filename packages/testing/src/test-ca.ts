import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A certificate and its private key, PEM. */
export interface TestCertificate {
  cert: string;
  key: string;
}

/**
 * A certificate authority made for one test run or bench (OpenSSL, EC P-256): the crawler is
 * told to trust its certificate (`FETCH_CA_FILE` / `trustedCa`), never to skip verification.
 */
export interface TestCa {
  /** The CA's certificate, PEM. */
  cert: string;
  /** A file holding it, for FETCH_CA_FILE (removed by {@link dispose}). */
  certFile: string;
  /** A server certificate for `names` (DNS names, `*.web.test` wildcards, IP addresses). */
  issue(names: string[], opts?: { days?: number }): TestCertificate;
  /** A certificate for `names` signed by nobody this CA's holders trust (self-signed). */
  selfSigned(names: string[]): TestCertificate;
  /** Removes the CA's files. */
  dispose(): void;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

function subjectAltName(names: string[]): string {
  return names.map((n) => (/^[\d.]+$|:/.test(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
}

/** Makes a fresh test CA in a temporary folder (needs the `openssl` command). */
export function createTestCa(name = 'crawler test CA'): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'crawler-test-ca-'));
  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(
    [
      'req',
      '-x509',
      ...ecKey,
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '3650',
      '-subj',
      `/CN=${name}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
  const cert = readFileSync(join(dir, 'ca.pem'), 'utf8');
  let serial = 0;
  const read = (base: string): TestCertificate => ({
    cert: readFileSync(join(dir, `${base}.pem`), 'utf8'),
    key: readFileSync(join(dir, `${base}.key`), 'utf8'),
  });
  return {
    cert,
    certFile: join(dir, 'ca.pem'),
    issue(names, opts = {}) {
      const base = `leaf-${++serial}`;
      writeFileSync(
        join(dir, `${base}.ext`),
        `subjectAltName=${subjectAltName(names)}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`,
      );
      openssl(
        [
          'req',
          '-new',
          ...ecKey,
          '-keyout',
          `${base}.key`,
          '-out',
          `${base}.csr`,
          '-subj',
          `/CN=${names[0] ?? 'leaf'}`,
        ],
        dir,
      );
      openssl(
        [
          'x509',
          '-req',
          '-in',
          `${base}.csr`,
          '-CA',
          'ca.pem',
          '-CAkey',
          'ca.key',
          '-set_serial',
          String(1000 + serial),
          '-days',
          String(opts.days ?? 825),
          '-extfile',
          `${base}.ext`,
          '-out',
          `${base}.pem`,
        ],
        dir,
      );
      return read(base);
    },
    selfSigned(names) {
      const base = `self-${++serial}`;
      openssl(
        [
          'req',
          '-x509',
          ...ecKey,
          '-keyout',
          `${base}.key`,
          '-out',
          `${base}.pem`,
          '-days',
          '825',
          '-subj',
          `/CN=${names[0] ?? 'self-signed'}`,
          '-addext',
          `subjectAltName=${subjectAltName(names)}`,
        ],
        dir,
      );
      return read(base);
    },
    dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
