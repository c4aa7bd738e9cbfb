import type { Request } from 'express';
import { isTrustedOrigin, ownOrigin } from './same-origin';

const PUBLIC = 'https://im.example.com';
const LISTED = ['https://console.example.com'];

/** What Express derives (protocol, host) plus the headers a browser sends. */
function request(headers: Record<string, string>, host = 'lan-host:3000', protocol = 'http'): Request {
  const lower = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  return { headers: lower, host, protocol } as unknown as Request;
}

const trusted = (req: Request, allowed: readonly string[] = LISTED) => isTrustedOrigin(req, PUBLIC, allowed);

describe('ownOrigin', () => {
  it.each([
    ['lan-host:3000', 'http', 'http://lan-host:3000'],
    ['LocalHost:3000', 'http', 'http://localhost:3000'],
    ['im.example.org:443', 'https', 'https://im.example.org'],
    ['im.example.org:80', 'http', 'http://im.example.org'],
    ['[::1]:3000', 'http', 'http://[::1]:3000'],
    ['im.example.org', 'HTTPS', 'https://im.example.org'],
  ])('%s over %s is %s', (host, protocol, expected) => {
    expect(ownOrigin(request({}, host, protocol))).toBe(expected);
  });

  it.each([
    ['', 'http'],
    ['evil.example/x', 'http'],
    ['user@evil.example', 'http'],
    ['host name', 'http'],
    ['im.example.org', 'javascript'],
    ['im.example.org:99999', 'http'],
  ])('is null for host %j over %s', (host, protocol) => {
    expect(ownOrigin(request({}, host, protocol))).toBeNull();
  });
});

describe('isTrustedOrigin', () => {
  it('trusts the own scheme and host, PUBLIC_BASE_URL and a listed origin', () => {
    expect(trusted(request({ Origin: 'http://lan-host:3000' }))).toBe(true);
    expect(trusted(request({ Origin: 'HTTP://LAN-HOST:3000/' }))).toBe(true);
    expect(trusted(request({ Origin: 'https://im.example.org' }, 'im.example.org', 'https'))).toBe(true);
    expect(trusted(request({ Origin: PUBLIC }))).toBe(true);
    expect(trusted(request({ Origin: LISTED[0] }))).toBe(true);
  });

  it('trusts Sec-Fetch-Site: same-origin whatever the Host says', () => {
    expect(trusted(request({ Origin: 'https://im.example.org', 'Sec-Fetch-Site': 'same-origin' }))).toBe(true);
    expect(trusted(request({ 'Sec-Fetch-Site': 'same-origin' }))).toBe(true);
  });

  it('refuses another site, port or scheme, and Origin: null', () => {
    expect(trusted(request({ Origin: 'https://evil.example' }))).toBe(false);
    expect(trusted(request({ Origin: 'http://lan-host:3001' }))).toBe(false);
    expect(trusted(request({ Origin: 'https://lan-host:3000' }))).toBe(false);
    expect(trusted(request({ Origin: 'null' }))).toBe(false);
    expect(trusted(request({ Origin: 'null', 'Sec-Fetch-Site': 'same-origin' }))).toBe(false);
  });

  it('refuses the own origin when the browser marks the request cross-site or same-site', () => {
    for (const site of ['cross-site', 'same-site', 'none'])
      expect(trusted(request({ Origin: 'http://lan-host:3000', 'Sec-Fetch-Site': site }))).toBe(false);
    // The configured origins keep their trust, as before.
    expect(trusted(request({ Origin: PUBLIC, 'Sec-Fetch-Site': 'cross-site' }))).toBe(true);
  });

  it('CORS_ORIGINS=* lists no one for cookie writes', () => {
    expect(trusted(request({ Origin: 'https://evil.example' }), ['*'])).toBe(false);
    expect(trusted(request({ Origin: 'http://lan-host:3000' }), ['*'])).toBe(true);
  });

  it('without Origin: trusted unless the browser marks the request cross-site or same-site', () => {
    expect(trusted(request({}))).toBe(true);
    expect(trusted(request({ 'Sec-Fetch-Site': 'none' }))).toBe(true);
    expect(trusted(request({ 'Sec-Fetch-Site': 'cross-site' }))).toBe(false);
    expect(trusted(request({ 'Sec-Fetch-Site': 'same-site' }))).toBe(false);
  });

  it('without a usable Host only the configured origins count', () => {
    expect(trusted(request({ Origin: 'http://lan-host:3000' }, ''))).toBe(false);
    expect(trusted(request({ Origin: PUBLIC }, ''))).toBe(true);
  });
});
