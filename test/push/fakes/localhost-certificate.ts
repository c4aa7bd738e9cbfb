import { generate } from 'selfsigned';

/**
 * A self-signed certificate for a fake provider on this machine: a server certificate for
 * localhost, 127.0.0.1 and ::1 (the adapters connect by IP). The PEM certificate is also what an
 * adapter trusts (its *_CA_FILE).
 */
export async function localhostCertificate(): Promise<{ private: string; cert: string }> {
  return generate([{ name: 'commonName', value: 'localhost' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
          { type: 7, ip: '::1' },
        ],
      },
    ],
  });
}
