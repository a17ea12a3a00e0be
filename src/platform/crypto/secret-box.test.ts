import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSecretKey, resolveSecretKey, SecretBox } from './secret-box.ts';

const key = Buffer.alloc(32, 1);

describe('SecretBox', () => {
  it('round-trips a secret, with a fresh IV each time', () => {
    const box = new SecretBox(key);
    const a = box.encrypt('JBSWY3DPEHPK3PXP');
    const b = box.encrypt('JBSWY3DPEHPK3PXP');
    expect(a).not.toBe(b);
    expect(a.startsWith('v1.')).toBe(true);
    expect(a).not.toContain('JBSWY3DPEHPK3PXP');
    expect(box.decrypt(a)).toBe('JBSWY3DPEHPK3PXP');
  });

  it('refuses tampered ciphertext and another key', () => {
    const sealed = new SecretBox(key).encrypt('secret');
    const tampered = `v1.${Buffer.from(Buffer.from(sealed.slice(3), 'base64url').map((b, i) => (i === 30 ? b ^ 1 : b))).toString('base64url')}`;
    expect(() => new SecretBox(key).decrypt(tampered)).toThrow();
    expect(() => new SecretBox(Buffer.alloc(32, 2)).decrypt(sealed)).toThrow();
  });

  it('MACs verify only for the same data and key', () => {
    const box = new SecretBox(key);
    const mac = box.mac('csrf:abc');
    expect(box.verifyMac('csrf:abc', mac)).toBe(true);
    expect(box.verifyMac('csrf:abd', mac)).toBe(false);
    expect(box.verifyMac('csrf:abc', 'short')).toBe(false);
    expect(new SecretBox(Buffer.alloc(32, 2)).verifyMac('csrf:abc', mac)).toBe(false);
  });
});

describe('secret keys', () => {
  it('parses 32 bytes in hex or base64 and rejects anything else', () => {
    expect(parseSecretKey('ab'.repeat(32))).toHaveLength(32);
    expect(parseSecretKey(key.toString('base64'))).toHaveLength(32);
    expect(() => parseSecretKey('short')).toThrow(/32 random bytes/);
  });

  it('is required with PostgreSQL, and generated once into the data directory otherwise', () => {
    expect(() => resolveSecretKey({ databaseUrl: 'postgres://x', dataDir: '/nonexistent' })).toThrow(/PSA_SECRET_KEY is required/);
    const dir = mkdtempSync(join(tmpdir(), 'psa-key-'));
    try {
      const first = resolveSecretKey({ dataDir: dir });
      expect(resolveSecretKey({ dataDir: dir }).equals(first)).toBe(true);
      expect(statSync(join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
