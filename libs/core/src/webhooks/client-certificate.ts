import { createPrivateKey, X509Certificate } from 'crypto';

const MAX_PEM = 16 * 1024;

export type ClientCertificateCheck =
  | { ok: true; subject: string; expiresAt: Date; fingerprint: string }
  | { ok: false; field: 'certificate' | 'private_key'; message: string };

/**
 * Validates a client certificate and its private key at upload: both PEM, the key unencrypted and
 * matching the certificate, the certificate valid now. What the portal shows (subject, expiry)
 * comes from here.
 */
export function checkClientCertificate(
  certificatePem: string,
  privateKeyPem: string,
  now = new Date(),
): ClientCertificateCheck {
  if (certificatePem.length > MAX_PEM || !certificatePem.includes('-----BEGIN CERTIFICATE-----'))
    return { ok: false, field: 'certificate', message: 'must be one PEM certificate' };
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certificatePem);
  } catch {
    return { ok: false, field: 'certificate', message: 'is not a readable PEM certificate' };
  }
  if (privateKeyPem.length > MAX_PEM || !/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(privateKeyPem))
    return { ok: false, field: 'private_key', message: 'must be one PEM private key' };
  let key;
  try {
    key = createPrivateKey(privateKeyPem);
  } catch {
    return {
      ok: false,
      field: 'private_key',
      message:
        'is not a readable PEM private key (a key protected by a passphrase is not accepted)',
    };
  }
  if (!cert.checkPrivateKey(key))
    return { ok: false, field: 'private_key', message: 'does not belong to the certificate' };
  const expiresAt = new Date(cert.validTo);
  if (expiresAt <= now) return { ok: false, field: 'certificate', message: 'has expired' };
  if (new Date(cert.validFrom) > now)
    return { ok: false, field: 'certificate', message: 'is not valid yet' };
  return {
    ok: true,
    subject: cert.subject.split('\n').join(', '),
    expiresAt,
    fingerprint: cert.fingerprint256,
  };
}
