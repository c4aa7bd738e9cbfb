import { loadHttpConfig } from './http-config';
import { connectionsCheckingInterval } from '../common/http/server-timeouts';

function load(env: NodeJS.ProcessEnv): { config: ReturnType<typeof loadHttpConfig>; problems: string[] } {
  const problems: string[] = [];
  return { config: loadHttpConfig(env, problems), problems };
}

describe('loadHttpConfig', () => {
  it('sets every server timeout on purpose when nothing is configured', () => {
    expect(load({})).toEqual({
      config: { headersTimeoutMs: 20_000, requestTimeoutMs: 600_000, keepAliveTimeoutMs: 5_000, idleTimeoutMs: 60_000 },
      problems: [],
    });
  });

  it('reads each setting', () => {
    expect(
      load({
        HTTP_HEADERS_TIMEOUT_MS: '1500',
        HTTP_REQUEST_TIMEOUT_MS: '3000',
        HTTP_KEEP_ALIVE_TIMEOUT_MS: '65000',
        HTTP_IDLE_TIMEOUT_MS: '2000',
      }).config,
    ).toEqual({ headersTimeoutMs: 1500, requestTimeoutMs: 3000, keepAliveTimeoutMs: 65_000, idleTimeoutMs: 2000 });
  });

  it('refuses a request timeout below the headers timeout (Node would throw) and values out of range', () => {
    expect(load({ HTTP_HEADERS_TIMEOUT_MS: '30000', HTTP_REQUEST_TIMEOUT_MS: '20000' }).problems).toEqual([
      expect.stringMatching(/^HTTP_REQUEST_TIMEOUT_MS must not be below HTTP_HEADERS_TIMEOUT_MS/),
    ]);
    for (const [name, raw] of [
      ['HTTP_HEADERS_TIMEOUT_MS', '0'],
      ['HTTP_REQUEST_TIMEOUT_MS', 'soon'],
      ['HTTP_KEEP_ALIVE_TIMEOUT_MS', '-1'],
      ['HTTP_IDLE_TIMEOUT_MS', '99999999'],
    ])
      expect(load({ [name]: raw }).problems).toEqual([
        expect.stringMatching(new RegExp(`^${name} must be an integer`)),
      ]);
  });
});

describe('connectionsCheckingInterval', () => {
  it('checks a quarter of the headers timeout apart, from 100 ms to 1 s', () => {
    expect(connectionsCheckingInterval(20_000)).toBe(1000);
    expect(connectionsCheckingInterval(1500)).toBe(375);
    expect(connectionsCheckingInterval(200)).toBe(100);
  });
});
