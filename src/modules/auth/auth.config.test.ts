import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config.ts';
import { safeCallbackUrl } from './redirects.ts';

describe('sign-in settings in loadConfig', () => {
  it('defaults: public URL from HOST and PORT, 30-day sessions, lockout after 5 failures for 15 minutes, no identity providers', () => {
    const c = loadConfig({ HOST: '10.0.0.5', PORT: '8080' });
    expect(c.publicUrl).toBe('http://10.0.0.5:8080');
    expect(c.sessionTtlMs).toBe(30 * 86400_000);
    expect(c.loginLockout).toEqual({ maxFailures: 5, lockMs: 15 * 60_000 });
    expect(c.signInLimit).toEqual({ burst: 20, perMinute: 10 });
    expect(c.oidcProviders).toEqual([]);
    expect(loadConfig({ PSA_PUBLIC_URL: 'https://psa.example.com/', PSA_SESSION_TTL_DAYS: '7' })).toMatchObject({ publicUrl: 'https://psa.example.com', sessionTtlMs: 7 * 86400_000 });
    expect(loadConfig({ HOST: '0.0.0.0' }).publicUrl).toBe('http://localhost:3000');
    expect(loadConfig({ HOST: '::', PORT: '80' }).publicUrl).toBe('http://localhost');
    expect(loadConfig({ HOST: '::1', PORT: '4000' }).publicUrl).toBe('http://[::1]:4000');
  });

  it('reads OpenID Connect providers from PSA_OIDC_PROVIDERS and PSA_OIDC_<ID>_*', () => {
    const c = loadConfig({
      PSA_OIDC_PROVIDERS: 'google, azure-ad',
      PSA_OIDC_GOOGLE_ISSUER: 'https://accounts.google.com',
      PSA_OIDC_GOOGLE_CLIENT_ID: 'g-id',
      PSA_OIDC_GOOGLE_CLIENT_SECRET: 'g-secret',
      PSA_OIDC_GOOGLE_NAME: 'Google Workspace',
      PSA_OIDC_AZURE_AD_ISSUER: 'https://login.microsoftonline.com/tenant/v2.0/',
      PSA_OIDC_AZURE_AD_CLIENT_ID: 'a-id',
    });
    expect(c.oidcProviders).toEqual([
      { id: 'google', name: 'Google Workspace', issuer: 'https://accounts.google.com', clientId: 'g-id', clientSecret: 'g-secret' },
      { id: 'azure-ad', name: 'Azure-ad', issuer: 'https://login.microsoftonline.com/tenant/v2.0', clientId: 'a-id', clientSecret: undefined },
    ]);
  });

  it('refuses incomplete or unsafe provider settings', () => {
    const base = { PSA_OIDC_PROVIDERS: 'corp', PSA_OIDC_CORP_ISSUER: 'https://id.corp.test', PSA_OIDC_CORP_CLIENT_ID: 'x' };
    expect(() => loadConfig(base)).not.toThrow();
    expect(() => loadConfig({ ...base, PSA_OIDC_CORP_ISSUER: '' })).toThrow(/PSA_OIDC_CORP_ISSUER is required/);
    expect(() => loadConfig({ ...base, PSA_OIDC_CORP_CLIENT_ID: '' })).toThrow(/PSA_OIDC_CORP_CLIENT_ID is required/);
    expect(() => loadConfig({ ...base, PSA_OIDC_CORP_ISSUER: 'http://id.corp.test' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, PSA_OIDC_CORP_ISSUER: 'http://127.0.0.1:9000' })).not.toThrow();
    expect(() => loadConfig({ ...base, PSA_OIDC_CORP_ISSUER: 'not a url' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, PSA_OIDC_PROVIDERS: 'credentials' })).toThrow(/not a usable provider id/);
    expect(() => loadConfig({ ...base, PSA_OIDC_PROVIDERS: 'corp,corp' })).toThrow(/twice/);
    expect(() => loadConfig({ ...base, PSA_OIDC_PROVIDERS: '../x' })).toThrow(ConfigError);
    expect(() => loadConfig({ PSA_PUBLIC_URL: 'ftp://psa.test' })).toThrow(ConfigError);
  });
});

describe('safeCallbackUrl', () => {
  const pub = 'https://psa.example.test';
  it('keeps paths and same-origin URLs, and sends everything else to the root', () => {
    expect(safeCallbackUrl(pub, '/a/b?c=1#d')).toBe(`${pub}/a/b?c=1#d`);
    expect(safeCallbackUrl(pub, `${pub}/x`)).toBe(`${pub}/x`);
    for (const bad of [undefined, '', 'https://evil.test', '//evil.test', '/\\evil.test', 'javascript:alert(1)', 'data:text/html,x', 'evil.test/x', 'https://psa.example.test@evil.test/', 'https://psa.example.test:444/', '/x\ny']) {
      expect(safeCallbackUrl(pub, bad), String(bad)).toBe(`${pub}/`);
    }
  });
});
