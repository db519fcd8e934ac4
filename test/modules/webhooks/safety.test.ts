import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendWebhook } from '../../../src/modules/webhooks/sender.js';
import { signWebhook } from '../../../src/modules/webhooks/signature.js';
import { forbiddenRange, UrlGuard } from '../../../src/modules/webhooks/url-guard.js';
import { type Receiver, startReceiver } from '../../support/webhook-receiver.js';

/** A resolver answering from a fixed table, standing in for DNS (including a rebinding one that changes its mind). */
function fakeDns(table: Record<string, string[] | (() => string[])>) {
  return async (hostname: string): Promise<LookupAddress[]> => {
    const entry = table[hostname];
    if (!entry) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const addresses = typeof entry === 'function' ? entry() : entry;
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

describe('address ranges', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.10', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['::1', 'loopback'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['::ffff:10.1.2.3', 'private'],
    ['::', 'unspecified'],
    // Every IPv6 form that carries a forbidden IPv4 address.
    ['::7f00:1', 'IPv4-compatible'],
    ['::a9fe:a9fe', 'IPv4-compatible'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'linkLocal'],
    ['::ffff:0:7f00:1', 'rfc6145'],
    ['64:ff9b::7f00:1', 'rfc6052'],
    ['64:ff9b::a9fe:a9fe', 'rfc6052'],
    ['64:ff9b:1::a00:1', 'rfc6052'],
    ['2002:7f00:1::1', '6to4'],
    ['2002:a9fe:a9fe::1', '6to4'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'teredo'],
  ])('%s is %s', (address, range) => {
    expect(forbiddenRange(address)).toBe(range);
  });

  it.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700::6810:85e5'])('%s is public', (address) => {
    expect(forbiddenRange(address)).toBeNull();
  });
});

describe('URL checks', () => {
  const guard = new UrlGuard(
    false,
    fakeDns({
      'hooks.example.com': ['93.184.215.14'],
      'sneaky.example.com': ['127.0.0.1'],
      'mixed.example.com': ['93.184.215.14', '10.0.0.7'],
      'v6.example.com': ['::1'],
    }),
  );

  it('accepts a public name', async () => {
    expect(await guard.problemWith('https://hooks.example.com/in')).toBeNull();
  });

  it.each([
    ['http://sneaky.example.com/in', 'resolves to 127.0.0.1, a loopback address'],
    ['http://mixed.example.com/in', 'resolves to 10.0.0.7, a private address'],
    ['http://v6.example.com/in', 'resolves to ::1, a loopback address'],
    ['http://nowhere.example.com/in', 'does not resolve'],
    ['http://localhost/in', 'names this computer, a local network or a cloud metadata service'],
    ['http://printer.local/in', 'names this computer, a local network or a cloud metadata service'],
    ['http://[::127.0.0.1]/in', '::7f00:1 is a IPv4-compatible address'],
    ['http://[::169.254.169.254]/latest', '::a9fe:a9fe is a IPv4-compatible address'],
    ['http://[::ffff:127.0.0.1]/in', 'loopback'],
    ['http://[64:ff9b::127.0.0.1]/in', 'rfc6052'],
    ['http://[2002:7f00:1::1]/in', '6to4'],
    ['http://2130706433/in', '127.0.0.1 is a loopback address'],
    ['file:///etc/passwd', 'must be an http or https URL'],
    ['javascript:alert(1)', 'must be an http or https URL'],
  ])('refuses %s', async (url, problem) => {
    expect(await guard.problemWith(url)).toContain(problem);
  });

  it('allows private addresses only when told to', async () => {
    const open = new UrlGuard(true, fakeDns({}));
    expect(await open.problemWith('http://127.0.0.1:9/in')).toBeNull();
    expect(await open.problemWith('ftp://127.0.0.1/in')).toContain('http or https');
  });
});

describe('delivery-time checks (DNS rebinding)', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  it('connects only to the address it checked: a name that now resolves to loopback is refused', async () => {
    let answers = 0;
    // Public when the subscription was checked, loopback at delivery time.
    const rebinding = fakeDns({
      'rebind.example.com': () => (answers++ === 0 ? ['93.184.215.14'] : ['127.0.0.1']),
    });
    const guard = new UrlGuard(false, rebinding);
    const port = new URL(receiver.url).port;
    const url = `http://rebind.example.com:${port}/hooks`;
    expect(await guard.problemWith(url)).toBeNull();
    const result = await sendWebhook(new URL(url), {}, '{}', { timeoutMs: 1000, guard, userAgent: 'test' });
    expect(result).toMatchObject({ ok: false, statusCode: null });
    expect(result.error).toContain('resolves to 127.0.0.1');
    expect(receiver.received).toHaveLength(0);
  });

  it('refuses a private literal address without connecting', async () => {
    const guard = new UrlGuard(false, fakeDns({}));
    const result = await sendWebhook(new URL(receiver.url), {}, '{}', {
      timeoutMs: 1000,
      guard,
      userAgent: 'test',
    });
    expect(result).toEqual({
      ok: false,
      statusCode: null,
      error: '127.0.0.1 is a loopback address',
      durationMs: 0,
    });
    expect(receiver.received).toHaveLength(0);
  });

  it('delivers to the same receiver when private addresses are allowed', async () => {
    const guard = new UrlGuard(true, fakeDns({}));
    const result = await sendWebhook(new URL(receiver.url), {}, '{"a":1}', {
      timeoutMs: 1000,
      guard,
      userAgent: 'test',
    });
    expect(result).toMatchObject({ ok: true, statusCode: 200, error: null });
    expect(receiver.received).toHaveLength(1);
  });
});

describe('signature', () => {
  it('matches the Standard Webhooks reference vector', () => {
    expect(
      signWebhook(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        1614265330,
        '{"test": 2432232314}',
      ),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });
});
