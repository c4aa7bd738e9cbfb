import { loadWebhookDeliveryConfig, webhookUrlProblem } from './webhook-delivery-config';

const SECRET = 'whsec_' + Buffer.alloc(24, 7).toString('base64');

describe('webhook delivery config', () => {
  it('refuses URLs that are not http(s), carry credentials, or are plain http off loopback in production', () => {
    expect(webhookUrlProblem('https://host.example.com/hook', true)).toBeNull();
    expect(webhookUrlProblem('http://127.0.0.1:8080/hook', true)).toBeNull();
    expect(webhookUrlProblem('http://host.example.com/hook', true)).toMatch(/https/);
    expect(webhookUrlProblem('http://host.example.com/hook', false)).toBeNull();
    expect(webhookUrlProblem('https://u:p@host.example.com/hook', false)).toMatch(/credentials/);
    expect(webhookUrlProblem('ftp://host.example.com/hook', false)).toMatch(/http/);
    expect(webhookUrlProblem('no url', false)).toMatch(/absolute/);
  });

  it('reads defaults, and collects every problem of WEBHOOK_ENDPOINTS and the knobs without echoing URLs or secrets', () => {
    const problems: string[] = [];
    const config = loadWebhookDeliveryConfig({}, true, problems);
    expect(problems).toEqual([]);
    expect(config).toMatchObject({ retryMs: 24 * 3_600_000, timeoutMs: 5000, leaseMs: 30_000, endpoints: [] });

    const bad: string[] = [];
    loadWebhookDeliveryConfig(
      {
        WEBHOOK_TIMEOUT_MS: '20000',
        WEBHOOK_LEASE_MS: '5000',
        WEBHOOK_RETRY_HOURS: 'soon',
        WEBHOOK_ENDPOINTS: JSON.stringify([
          { url: 'http://token-in-path.example.com/abc', secret: 'plain' },
          { url: 'https://ok.example.com', secret: SECRET, event_types: 'all', extra: 1 },
        ]),
      },
      true,
      bad,
    );
    expect(bad.join('\n')).toMatch(/WEBHOOK_LEASE_MS/);
    expect(bad.join('\n')).toMatch(/WEBHOOK_RETRY_HOURS/);
    expect(bad.join('\n')).toMatch(/WEBHOOK_ENDPOINTS\[0\]\.url must be https/);
    expect(bad.join('\n')).toMatch(/WEBHOOK_ENDPOINTS\[0\]\.secret/);
    expect(bad.join('\n')).toMatch(/WEBHOOK_ENDPOINTS\[1\]\.event_types/);
    expect(bad.join('\n')).toMatch(/WEBHOOK_ENDPOINTS\[1\] has unknown fields: extra/);
    expect(bad.join('\n')).not.toContain('token-in-path');

    const notJson: string[] = [];
    loadWebhookDeliveryConfig({ WEBHOOK_ENDPOINTS: '{' }, false, notJson);
    expect(notJson).toEqual([expect.stringMatching(/JSON array/)]);
  });

  it('takes fractional hours for the retry window', () => {
    const problems: string[] = [];
    expect(loadWebhookDeliveryConfig({ WEBHOOK_RETRY_HOURS: '0.5' }, false, problems).retryMs).toBe(1_800_000);
    expect(problems).toEqual([]);
  });
});
