import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret, isWebhookSecret, signWebhook } from './standard-webhook';

// The receiver's side is the reference implementation (the `standardwebhooks` package), not ours.
describe('standard webhook signatures', () => {
  const body = JSON.stringify({ type: 'message.new', data: { text: 'héllo 👋' } });

  it('verifies with the reference receiver', () => {
    const secret = generateWebhookSecret();
    const headers = signWebhook('evt-1', Date.now(), body, [secret]);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
  });

  it('signs with every secret during a rotation, so either receiver accepts', () => {
    const [oldSecret, newSecret] = [generateWebhookSecret(), generateWebhookSecret()];
    const headers = signWebhook('evt-2', Date.now(), body, [newSecret, oldSecret]);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(() => new Webhook(oldSecret).verify(body, { ...headers })).not.toThrow();
    expect(() => new Webhook(newSecret).verify(body, { ...headers })).not.toThrow();
    expect(() => new Webhook(generateWebhookSecret()).verify(body, { ...headers })).toThrow();
  });

  it('is refused when the body changed', () => {
    const secret = generateWebhookSecret();
    const headers = signWebhook('evt-3', Date.now(), body, [secret]);
    expect(() => new Webhook(secret).verify(body.replace('héllo', 'hello'), { ...headers })).toThrow();
  });

  it('accepts only whsec_ secrets of 24 to 64 bytes', () => {
    expect(isWebhookSecret(generateWebhookSecret())).toBe(true);
    expect(isWebhookSecret('whsec_' + Buffer.alloc(16).toString('base64'))).toBe(false);
    expect(isWebhookSecret('whsec_' + Buffer.alloc(65).toString('base64'))).toBe(false);
    expect(isWebhookSecret(Buffer.alloc(32).toString('base64'))).toBe(false);
    expect(isWebhookSecret('whsec_not base64!')).toBe(false);
    expect(() => signWebhook('evt', 0, body, [])).toThrow();
  });
});
