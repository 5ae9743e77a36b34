import selfsigned from 'selfsigned';

export interface ServingCertificate {
  key: string;
  cert: string;
}

/**
 * A fresh self-signed serving certificate for 127.0.0.1/localhost. The kubeconfig trusts it
 * as its CA, so clients verify TLS instead of skipping verification. `selfsigned` because
 * Node's crypto can make keys but not X.509 certificates.
 */
export async function generateServingCertificate(): Promise<ServingCertificate> {
  const pems = await selfsigned.generate([{ name: 'commonName', value: 'embedded-kube-apiserver' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'keyUsage', keyCertSign: true, digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }, { type: 2, value: 'localhost' }] },
    ],
  });
  return { key: pems.private, cert: pems.cert };
}
