import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, guardedLookup, refusalReason, TargetNotAllowedError, type Resolve } from './target-policy.ts';

const resolveTo =
  (table: Record<string, string[]>): Resolve =>
  async (hostname) => {
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

describe('address classification', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.0.10', 'private'],
    ['169.254.169.254', 'cloud metadata address'],
    ['169.254.1.1', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['::1', 'loopback'],
    ['fd00:ec2::254', 'cloud metadata address'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::127.0.0.1', 'ipv4Compatible'],
    ['::7f00:1', 'ipv4Compatible'],
    ['::8.8.8.8', 'ipv4Compatible'],
    ['::a00:1', 'ipv4Compatible'],
    ['::2', 'ipv4Compatible'],
  ])('%s is refused (%s)', (address, reason) => expect(refusalReason(address, false)).toBe(reason));

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700::1111'])('%s (public) is allowed', (address) => expect(refusalReason(address, false)).toBeNull());

  it('WEBHOOK_ALLOW_PRIVATE_TARGETS allows loopback, private, ULA and CGNAT, never metadata or link-local', () => {
    for (const address of ['127.0.0.1', '10.0.0.1', '::1', 'fd12::1', '100.64.0.1']) expect(refusalReason(address, true)).toBeNull();
    for (const address of ['169.254.169.254', 'fd00:ec2::254', 'fe80::1', '0.0.0.0', '::7f00:1']) expect(refusalReason(address, true)).not.toBeNull();
  });

  it('refuses IPv4-compatible IPv6 literals in URLs (URL parsing turns [::127.0.0.1] into [::7f00:1])', async () => {
    for (const url of ['http://[::127.0.0.1]/x', 'http://[::7f00:1]/x', 'https://[::10.0.0.1]:8443/', 'http://[0:0:0:0:0:0:a9fe:a9fe]/latest']) {
      expect(await checkWebhookUrl(url, { allowPrivate: false })).toMatch(/ipv4Compatible/);
      expect(await checkWebhookUrl(url, { allowPrivate: true })).toMatch(/ipv4Compatible/);
    }
  });
});

describe('registration-time URL check', () => {
  const resolve = resolveTo({ 'public.test': ['93.184.216.34'], 'rebind.test': ['93.184.216.34', '127.0.0.1'], 'meta.test': ['169.254.169.254'] });
  const check = (url: string, allowPrivate = false) => checkWebhookUrl(url, { allowPrivate, resolve });

  it('accepts public http(s) URLs', async () => {
    expect(await check('https://public.test/hook')).toBeNull();
    expect(await check('http://93.184.216.34:8080/x')).toBeNull();
  });
  it('refuses other schemes and non-URLs', async () => {
    expect(await check('ftp://public.test/x')).toMatch(/http or https/);
    expect(await check('file:///etc/passwd')).toMatch(/http or https/);
    expect(await check('not a url')).toMatch(/not a valid/);
  });
  it.each([
    'http://127.0.0.1/x',
    'http://10.0.0.8/x',
    'http://169.254.169.254/latest/meta-data',
    'http://[::1]:8080/x',
    'http://[fd00:ec2::254]/x',
    'http://100.64.1.1/x',
    'http://2130706433/x',
    'http://localhost:3000/x',
    'http://api.localhost/x',
  ])('refuses %s', async (url) => expect(await check(url)).not.toBeNull());
  it('refuses a name with any private address', async () => {
    expect(await check('https://rebind.test/x')).toMatch(/resolves to 127\.0\.0\.1/);
    expect(await check('https://meta.test/x')).toMatch(/metadata/);
  });
  it('accepts a name that does not resolve yet (the connect-time check decides)', async () => expect(await check('https://later.test/x')).toBeNull());
  it('allows loopback when private targets are allowed', async () => {
    expect(await check('http://127.0.0.1:9/x', true)).toBeNull();
    expect(await check('http://localhost:9/x', true)).toBeNull();
  });
});

describe('connect-time lookup guard', () => {
  const lookup = (hostname: string, options: { all?: boolean; family?: number }, allowPrivate = false) =>
    new Promise<{ error: Error | null; address: unknown; family?: number }>((resolve) =>
      guardedLookup({ allowPrivate, resolve: resolveTo({ 'public.test': ['93.184.216.34', '2606:4700::1111'], 'rebind.test': ['127.0.0.1'] }) })(
        hostname,
        options,
        (error, address, family) => resolve({ error, address, family }),
      ),
    );

  it('answers allowed addresses in the shape asked for', async () => {
    expect(await lookup('public.test', {})).toEqual({ error: null, address: '93.184.216.34', family: 4 });
    expect((await lookup('public.test', { all: true })).address).toHaveLength(2);
    expect(await lookup('public.test', { family: 6 })).toEqual({ error: null, address: '2606:4700::1111', family: 6 });
  });
  it('refuses a name that now resolves to loopback (DNS rebinding)', async () => {
    const { error } = await lookup('rebind.test', { all: true });
    expect(error).toBeInstanceOf(TargetNotAllowedError);
    expect(error?.message).toMatch(/127\.0\.0\.1/);
    expect((await lookup('rebind.test', {}, true)).error).toBeNull();
  });
});
