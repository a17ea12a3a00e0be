import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config.ts';
import { AddressPolicy, BLOCKED_RANGES, parseCidrList } from './address-policy.ts';

const policy = new AddressPolicy();

/** First and last address of a CIDR, in canonical text. */
function edges(cidr: string): [string, string] {
  const [address] = ipaddr.parseCIDR(cidr);
  const kind = address.kind() === 'ipv4' ? ipaddr.IPv4 : ipaddr.IPv6;
  return [kind.networkAddressFromCIDR(cidr).toString(), kind.broadcastAddressFromCIDR(cidr).toString()];
}

describe('BLOCKED_RANGES', () => {
  it('lists the ranges the conventions name, with the IPv4-mapped, IPv4-compatible and NAT64 forms', () => {
    for (const cidr of [
      '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.168.0.0/16',
      '224.0.0.0/4', '240.0.0.0/4', '255.255.255.255/32',
      '::/128', '::1/128', 'fc00::/7', 'fe80::/10', 'ff00::/8',
      '::ffff:127.0.0.0/104', '::ffff:10.0.0.0/104', '::127.0.0.0/104', '64:ff9b::127.0.0.0/104', '64:ff9b::10.0.0.0/104',
    ]) {
      expect(BLOCKED_RANGES).toContain(cidr);
    }
  });

  it('blocks the first and the last address of every listed range', () => {
    for (const cidr of BLOCKED_RANGES) {
      for (const address of edges(cidr)) expect(policy.isAllowed(address), `${address} (${cidr})`).toBe(false);
    }
  });

  it('is frozen and every entry parses', () => {
    expect(Object.isFrozen(BLOCKED_RANGES)).toBe(true);
    for (const cidr of BLOCKED_RANGES) expect(ipaddr.isValidCIDR(cidr), cidr).toBe(true);
  });
});

describe('AddressPolicy', () => {
  it('blocks IPv4 ranges up to their edges and allows the neighbours just outside', () => {
    const cases: [string, boolean][] = [
      ['0.0.0.0', false], ['0.255.255.255', false], ['1.0.0.0', true],
      ['9.255.255.255', true], ['10.0.0.0', false], ['10.255.255.255', false], ['11.0.0.0', true],
      ['100.63.255.255', true], ['100.64.0.0', false], ['100.127.255.255', false], ['100.128.0.0', true],
      ['126.255.255.255', true], ['127.0.0.1', false], ['127.255.255.255', false], ['128.0.0.0', true],
      ['169.253.255.255', true], ['169.254.169.254', false], ['169.255.0.0', true],
      ['172.15.255.255', true], ['172.16.0.0', false], ['172.31.255.255', false], ['172.32.0.0', true],
      ['192.167.255.255', true], ['192.168.0.1', false], ['192.168.255.255', false], ['192.169.0.0', true],
      ['223.255.255.255', true], ['224.0.0.1', false], ['239.255.255.255', false],
      ['240.0.0.1', false], ['255.255.255.254', false], ['255.255.255.255', false],
      ['8.8.8.8', true], ['93.184.216.34', true], ['203.0.113.10', true],
    ];
    for (const [address, allowed] of cases) expect(policy.isAllowed(address), address).toBe(allowed);
  });

  it('blocks IPv6 unspecified, loopback, ULA, link-local and multicast, and allows global unicast', () => {
    const cases: [string, boolean][] = [
      ['::', false], ['::1', false],
      ['fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', true], ['fc00::', false], ['fd12:3456::1', false],
      ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', false],
      ['fe80::', false], ['fe80::1%eth0', false], ['febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', false],
      ['ff00::', false], ['ff02::1', false], ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', false],
      ['2001:4860:4860::8888', true], ['2606:4700:4700::1111', true], ['2a00:1450:4001:80b::200e', true],
    ];
    for (const [address, allowed] of cases) expect(policy.isAllowed(address), address).toBe(allowed);
  });

  it('checks the IPv4 address inside IPv4-mapped, IPv4-compatible, NAT64 and 6to4 addresses', () => {
    const cases: [string, boolean][] = [
      ['::ffff:127.0.0.1', false], ['::ffff:7f00:1', false], ['0:0:0:0:0:ffff:7f00:1', false],
      ['::ffff:10.1.2.3', false], ['::ffff:a9fe:a9fe', false], ['::ffff:0.0.0.0', false], ['::ffff:100.64.0.1', false],
      ['::ffff:8.8.8.8', true], ['::ffff:808:808', true],
      ['::127.0.0.1', false], ['::192.168.1.1', false],
      ['64:ff9b::127.0.0.1', false], ['64:ff9b::7f00:1', false], ['64:ff9b::a00:1', false], ['64:ff9b::169.254.169.254', false],
      ['64:ff9b::8.8.8.8', true], ['64:ff9b:1::8.8.8.8', false],
      ['2002:7f00:1::', false], ['2002:c0a8:101::1', false], ['2002:808:808::1', true],
    ];
    for (const [address, allowed] of cases) expect(policy.isAllowed(address), address).toBe(allowed);
  });

  it('exempts allowed CIDRs and nothing else', () => {
    const dev = new AddressPolicy(['127.0.0.1/32', '10.0.0.0/8', 'fd00::/8']);
    expect(dev.isAllowed('127.0.0.1')).toBe(true);
    expect(dev.isAllowed('::ffff:127.0.0.1')).toBe(true); // the embedded address is what is checked
    expect(dev.isAllowed('127.0.0.2')).toBe(false);
    expect(dev.isAllowed('10.200.0.1')).toBe(true);
    expect(dev.isAllowed('192.168.1.1')).toBe(false);
    expect(dev.isAllowed('fd00::1')).toBe(true);
    expect(dev.isAllowed('fc00::1')).toBe(false);
    expect(dev.isAllowed('::1')).toBe(false);
    expect(dev.isAllowed('64:ff9b::127.0.0.1')).toBe(false); // a NAT64 form needs its own entry
    expect(dev.isAllowed('8.8.8.8')).toBe(true);
  });

  it('reads an IPv4-mapped allow entry as the IPv4 range it stands for', () => {
    const dev = new AddressPolicy(['::ffff:192.168.1.0/120']);
    expect(dev.isAllowed('192.168.1.77')).toBe(true);
    expect(dev.isAllowed('::ffff:192.168.1.77')).toBe(true);
    expect(dev.isAllowed('192.168.2.1')).toBe(false);
  });

  it('refuses anything that is not a canonical address', () => {
    for (const garbage of [
      '', ' ', 'localhost', 'example.com', '1.2.3', '1.2.3.4.5', '256.0.0.1', '2130706433', '0x7f.1', '0177.0.0.1',
      '::ffff:999.0.0.1', ' 8.8.8.8', '8.8.8.8 ', '8.8.8.8/32', '[::1]', 'gggg::1', '1:2:3:4:5:6:7:8:9',
    ]) {
      expect(policy.isAllowed(garbage), JSON.stringify(garbage)).toBe(false);
    }
  });

  it('rejects an allow list it cannot parse', () => {
    expect(() => new AddressPolicy(['not-an-ip'])).toThrow(/not-an-ip/);
  });
});

describe('parseCidrList', () => {
  it('parses comma and space separated entries, bare addresses as single hosts, ranges to their network', () => {
    expect(parseCidrList('')).toEqual([]);
    expect(parseCidrList(' , ')).toEqual([]);
    expect(parseCidrList('127.0.0.1/32, 10.0.0.0/8 ::1,fd00::/8')).toEqual(['127.0.0.1/32', '10.0.0.0/8', '::1/128', 'fd00::/8']);
    expect(parseCidrList('192.168.1.1')).toEqual(['192.168.1.1/32']);
    expect(parseCidrList('10.1.2.3/8')).toEqual(['10.0.0.0/8']);
    expect(parseCidrList('0.0.0.0/0')).toEqual(['0.0.0.0/0']);
  });

  it('throws naming the bad entry', () => {
    for (const bad of ['10.0.0.0/33', '::1/129', 'abc', '10.0.0.0/', '10.0.0.0/8/8', '2130706433', '1.2.3.4/-1', '1.2.3.4/x', 'example.com/24']) {
      expect(() => parseCidrList(`127.0.0.1, ${bad}`), bad).toThrow(`"${bad}"`);
    }
  });
});

describe('PSA_WEBHOOK_ALLOW_PRIVATE in loadConfig', () => {
  it('defaults to nothing and parses a CIDR list', () => {
    expect(loadConfig({}).webhookAllowPrivate).toEqual([]);
    expect(loadConfig({ PSA_WEBHOOK_ALLOW_PRIVATE: '127.0.0.1, 192.168.0.0/16 ::1' }).webhookAllowPrivate)
      .toEqual(['127.0.0.1/32', '192.168.0.0/16', '::1/128']);
  });

  it('refuses an invalid entry with a config error naming the variable and the entry', () => {
    expect(() => loadConfig({ PSA_WEBHOOK_ALLOW_PRIVATE: '10.0.0.0/8,10.0.0.0/40' })).toThrow(ConfigError);
    expect(() => loadConfig({ PSA_WEBHOOK_ALLOW_PRIVATE: 'localhost' })).toThrow(/PSA_WEBHOOK_ALLOW_PRIVATE: "localhost"/);
  });
});
