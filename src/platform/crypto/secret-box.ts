import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config-error.ts';

/**
 * Encryption at rest for secrets the service must use again (TOTP secrets, webhook signing secrets),
 * and keyed MACs (CSRF tokens). AES-256-GCM with a random 96-bit IV per value; the stored form is
 * `v1.<base64url(iv | tag | ciphertext)>`, so a future key or algorithm can be told apart.
 */
export class SecretBox {
  private readonly encKey: Buffer;
  private readonly macKey: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new ConfigError('the secret key must be 32 bytes');
    // Separate subkeys, so a MAC never shares a key with encryption.
    this.encKey = createHmac('sha256', key).update('psa:encrypt').digest();
    this.macKey = createHmac('sha256', key).update('psa:mac').digest();
  }

  encrypt(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.encKey, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  decrypt(sealed: string): string {
    if (!sealed.startsWith('v1.')) throw new Error('unknown secret format');
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.encKey, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }

  mac(data: string): string {
    return createHmac('sha256', this.macKey).update(data).digest('base64url');
  }

  /** Constant-time check of a MAC produced by mac(). */
  verifyMac(data: string, mac: string): boolean {
    const expected = Buffer.from(this.mac(data));
    const given = Buffer.from(mac);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}

/** Parses PSA_SECRET_KEY: 32 bytes as base64, base64url or hex. */
export function parseSecretKey(raw: string): Buffer {
  const key = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64url');
  if (key.length !== 32) throw new ConfigError('PSA_SECRET_KEY must be 32 random bytes, base64 or hex encoded (e.g. `openssl rand -base64 32`)');
  return key;
}

/**
 * The key for a process: PSA_SECRET_KEY when set; with the embedded database, a key generated once
 * and kept in the data directory (mode 0600); with PostgreSQL the variable is required, because every
 * api and worker process must share it.
 */
export function resolveSecretKey(config: { secretKey?: string; databaseUrl?: string; dataDir: string }): Buffer {
  if (config.secretKey) return parseSecretKey(config.secretKey);
  if (config.databaseUrl) throw new ConfigError('PSA_SECRET_KEY is required with DATABASE_URL (32 random bytes: `openssl rand -base64 32`)');
  const file = join(config.dataDir, 'secret.key');
  if (!existsSync(file)) {
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600, flag: 'wx' });
  }
  chmodSync(file, 0o600);
  return parseSecretKey(readFileSync(file, 'utf8').trim());
}
