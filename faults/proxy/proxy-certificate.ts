/**
 * The fault proxy's serving certificate: self-signed for 127.0.0.1, made once per process and
 * shared by every proxy in it (key generation is the slow part of starting one). `selfsigned`
 * because Node's crypto makes keys but not X.509 certificates. The embedded cluster makes its
 * own the same way (cluster/embedded/tls.ts); faults/ may import nothing of the project, so the
 * few lines of options are repeated rather than shared.
 */
export interface ProxyCertificate {
  key: string;
  cert: string;
}

let made: Promise<ProxyCertificate> | undefined;

export function proxyCertificate(): Promise<ProxyCertificate> {
  // Loaded here, not with the module: `selfsigned` and its X.509 library cost a test worker ~0.25 s
  // of CPU to load, and only a test with a fault proxy needs them.
  made ??= import('selfsigned')
    .then(({ default: selfsigned }) => selfsigned.generate([{ name: 'commonName', value: 'sandbox-conformance-fault-proxy' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      extensions: [
        { name: 'basicConstraints', cA: true },
        { name: 'keyUsage', keyCertSign: true, digitalSignature: true, keyEncipherment: true },
        { name: 'extKeyUsage', serverAuth: true },
        { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }, { type: 2, value: 'localhost' }] },
      ],
    }))
    .then((pems) => ({ key: pems.private, cert: pems.cert }));
  return made;
}
