import { describe, expect, it } from 'vitest';
import { redactUrl } from './log-redaction.ts';

describe('redactUrl', () => {
  it('hides one-time codes and tokens but keeps the rest', () => {
    expect(redactUrl('/api/auth/callback/google?code=abc&state=xyz&foo=1')).toBe('/api/auth/callback/google?code=%5Bredacted%5D&state=%5Bredacted%5D&foo=1');
    expect(redactUrl('/api/v1/clients?limit=25')).toBe('/api/v1/clients?limit=25');
    expect(redactUrl('/healthz')).toBe('/healthz');
  });
});
