import { createPrivateKey, type KeyObject } from 'node:crypto';

/** The fields of the service account key file this adapter uses. */
export interface HuaweiServiceAccount {
  projectId: string;
  keyId: string;
  subAccount: string;
  privateKey: KeyObject;
  /** The key as the file holds it, for the log scrubber. */
  privateKeyPem: string;
}

/** Parses a downloaded service account key file; throws a secret-free message naming what is wrong. */
export function parseHuaweiServiceAccount(json: string): HuaweiServiceAccount {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(json) as Record<string, unknown>;
  } catch {
    throw new Error('is not JSON');
  }
  for (const field of ['project_id', 'key_id', 'sub_account', 'private_key']) {
    if (typeof parsed[field] !== 'string' || !(parsed[field] as string).trim()) throw new Error(`has no ${field}`);
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(parsed.private_key as string);
  } catch {
    throw new Error('has a private_key that is not a PEM private key');
  }
  if (privateKey.asymmetricKeyType !== 'rsa') throw new Error('has a private_key that is not an RSA key');
  return {
    projectId: parsed.project_id as string,
    keyId: parsed.key_id as string,
    subAccount: parsed.sub_account as string,
    privateKey,
    privateKeyPem: parsed.private_key as string,
  };
}
