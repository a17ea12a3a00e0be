import { describe, expect, it } from 'vitest';
import { canonicalAllowEntry, ipAllowed, normalizeIp, verifyCredentials } from './auth.ts';
import { hmacHex } from '../../../test/inbound-factories.ts';

describe('allowlist entries', () => {
  it('canonicalizes exact addresses and CIDR ranges, and refuses anything else', () => {
    expect(canonicalAllowEntry('10.0.0.5/8')).toBe('10.0.0.0/8');
    expect(canonicalAllowEntry('2001:0DB8:0000::1/32')).toBe('2001:db8::/32');
    expect(canonicalAllowEntry('::ffff:10.0.0.0/104')).toBe('10.0.0.0/8');
    expect(canonicalAllowEntry('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(canonicalAllowEntry(' 0.0.0.0/0 ')).toBe('0.0.0.0/0');
    for (const bad of ['127.1', '0x7f.0.0.1', '1.2.3.4/33', '::/129', 'fe80::1%eth0', '1.2.3.4/', '/8', 'host.example', '1.2.3.4/-1', '']) {
      expect(canonicalAllowEntry(bad), bad).toBeUndefined();
    }
  });

  it('matches normalized sources by exact address or range, never across families', () => {
    const entries = ['10.0.0.0/8', '2001:db8::/32', '192.0.2.7', '::1'].map((e) => canonicalAllowEntry(e)!);
    const yes = ['10.0.0.0', '10.255.255.255', '::ffff:10.1.2.3', '2001:db8::', '192.0.2.7', '::1'];
    const no = ['9.255.255.255', '11.0.0.0', '2001:db9::', '192.0.2.8', '127.0.0.1', '::a00:1', '::ffff:11.0.0.1'];
    for (const ip of yes) expect(ipAllowed(normalizeIp(ip)!, entries), ip).toBe(true);
    for (const ip of no) expect(ipAllowed(normalizeIp(ip)!, entries), ip).toBe(false);
    expect(normalizeIp('not an ip')).toBeNull();
    expect(normalizeIp(undefined)).toBeNull();
  });
});

describe('verifyCredentials', () => {
  const body = Buffer.from('{"a":1}');
  const request = (headers: Record<string, string>, query: Record<string, unknown> = {}) => ({ headers, query, rawBody: body, sourceIp: '192.0.2.1' });

  it('names the failure without ever accepting a missing secret', () => {
    const hmac = { auth_type: 'hmac_sha256' as const, auth_config: { signature_header: 'x-sig' }, secret: 'secret-secret-secret' };
    expect(verifyCredentials(hmac, request({ 'x-sig': hmacHex('secret-secret-secret', body) }))).toBeUndefined();
    expect(verifyCredentials(hmac, request({}))).toBe('missing_credentials');
    expect(verifyCredentials(hmac, request({ 'x-sig': hmacHex('other', body) }))).toBe('invalid_signature');
    const bearer = { auth_type: 'bearer' as const, auth_config: {}, secret: null };
    expect(verifyCredentials(bearer, request({ authorization: 'Bearer anything' }))).toBe('invalid_token');
    const token = { auth_type: 'path_token' as const, auth_config: { query_param: 't' }, secret: 'tok-tok-tok-tok-tok' };
    expect(verifyCredentials(token, request({}, { t: 'tok-tok-tok-tok-tok' }))).toBeUndefined();
    expect(verifyCredentials(token, request({}, { t: ['tok-tok-tok-tok-tok'] }))).toBe('missing_credentials');
    const stamped = { auth_type: 'hmac_sha256' as const, auth_config: { signature_header: 'x-sig', timestamp_header: 'x-ts', tolerance_seconds: 10 }, secret: 's' };
    const now = 1_800_000_000_000;
    const sig = (ts: number) => hmacHex('s', Buffer.concat([Buffer.from(`${ts}.`), body]));
    expect(verifyCredentials(stamped, request({ 'x-sig': sig(1_800_000_000), 'x-ts': '1800000000' }), now)).toBeUndefined();
    expect(verifyCredentials(stamped, request({ 'x-sig': sig(1_799_999_989), 'x-ts': '1799999989' }), now)).toBe('stale_timestamp');
    expect(verifyCredentials(stamped, request({ 'x-sig': sig(1_800_000_000) }), now)).toBe('missing_credentials');
  });
});
