// WEBHOOK_ENDPOINTS: endpoints seeded at boot, idempotent by URL, checked before the service starts.
import { randomBytes } from 'node:crypto';
import { adminSession } from '../helpers/admin-client';
import { isolatedDatabase, IsolatedDatabase } from '../helpers/isolated-database';
import { startTestApp } from '../helpers/test-app';
import { FAST_WEBHOOKS } from './receiver';

jest.setTimeout(120_000);

const secret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

describe('seeded webhook endpoints', () => {
  let db: IsolatedDatabase;

  beforeAll(async () => {
    db = await isolatedDatabase();
  });

  afterAll(async () => {
    await db?.drop();
  });

  it('creates an endpoint once per URL and takes the configured values at every boot', async () => {
    const url = 'http://127.0.0.1:9/seeded';
    const first = secret();
    const boot = async (description: string, key: string): Promise<Array<Record<string, unknown>>> => {
      const t = await startTestApp({
        ...db.env,
        ...FAST_WEBHOOKS,
        WEBHOOK_ENDPOINTS: JSON.stringify([{ url, secret: key, description, event_types: ['group.created'] }]),
      });
      try {
        const viewer = await adminSession(t, 'viewer');
        return (await viewer.get('/app/admin/webhooks')).body.data.endpoints;
      } finally {
        await t.close();
      }
    };
    const once = await boot('first', first);
    expect(once).toHaveLength(1);
    expect(once[0]).toMatchObject({ url, description: 'first', event_types: ['group.created'], enabled: true });
    const twice = await boot('second', secret());
    expect(twice).toHaveLength(1);
    expect(twice[0]).toMatchObject({ id: once[0].id, description: 'second' });
    expect(twice[0].secret_fingerprint).not.toBe(once[0].secret_fingerprint);
    // The replaced secret keeps signing for the rotation window.
    expect(twice[0].previous_secret_fingerprint).toBe(once[0].secret_fingerprint);
  });
});
