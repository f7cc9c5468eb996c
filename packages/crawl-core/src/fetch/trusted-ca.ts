import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { ConfigError } from '@crawler/domain/config';

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * The CA certificates of FETCH_CA_FILE, PEM, each checked to parse ('' → none). A file that is
 * missing, unreadable or holds no certificate stops the start with a ConfigError naming it.
 */
export function readTrustedCa(file: string): string[] {
  if (file === '') return [];
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError([`FETCH_CA_FILE=${file}: ${(err as Error).message}`]);
  }
  const certs = text.match(PEM_CERT) ?? [];
  if (certs.length === 0)
    throw new ConfigError([`FETCH_CA_FILE=${file}: no PEM certificate in the file`]);
  for (const [i, pem] of certs.entries()) {
    try {
      new X509Certificate(pem);
    } catch (err) {
      throw new ConfigError([
        `FETCH_CA_FILE=${file}: certificate ${i + 1} does not parse (${(err as Error).message})`,
      ]);
    }
  }
  return certs;
}
