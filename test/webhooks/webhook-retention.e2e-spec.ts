// The outbox keeps what an enabled webhook endpoint has not handled yet; a paused one holds nothing back.
import { DataSource } from 'typeorm';
import { RetentionService } from '../../src/retention/retention.service';
import { adminSession } from '../helpers/admin-client';
import { ApiClient, friendCid } from '../helpers/api-client';
import { isolatedDatabase, IsolatedDatabase } from '../helpers/isolated-database';
import { TestApp, startTestApp } from '../helpers/test-app';
import { FAST_WEBHOOKS, Receiver, eventually } from './receiver';

jest.setTimeout(120_000);

describe('outbox retention with webhook endpoints', () => {
  let db: IsolatedDatabase;
  let t: TestApp;
  let r: Receiver;

  beforeAll(async () => {
    db = await isolatedDatabase();
    t = await startTestApp({ ...db.env, ...FAST_WEBHOOKS, REALTIME_BACKLOG_SECONDS: '60' });
    r = await new Receiver().start();
  });

  afterAll(async () => {
    await t?.close();
    await r?.stop();
    await db?.drop();
  });

  it('does not prune events an enabled endpoint still has to deliver, and prunes them once it is paused', async () => {
    const owner = await adminSession(t, 'owner');
    const created = await owner.post('/app/admin/webhooks/create', { url: r.url, event_types: ['message.new'] });
    r.secrets = [created.body.data.secret];
    r.answer = () => 503;
    const api = new ApiClient(t);
    const [x, y] = await api.users(2);
    await api.befriend(x, y);
    const sent = await api.send(x, friendCid(y), 'held back');
    await eventually(() => r.attempts.includes(sent.event_id), 'a first attempt');
    const stored = async (): Promise<number> =>
      (
        (await t.app
          .get(DataSource)
          .query('SELECT COUNT(*) AS n FROM outbox_events WHERE event_id = ?', [sent.event_id])) as Array<{
          n: number | string;
        }>
      ).map((row) => Number(row.n))[0];

    t.clock.advance(120_000);
    await t.app.get(RetentionService).runOnce();
    expect(await stored()).toBe(1);

    expect((await owner.post('/app/admin/webhooks/pause', { id: created.body.data.endpoint.id })).body.code).toBe(0);
    await t.app.get(RetentionService).runOnce();
    expect(await stored()).toBe(0);
  });
});
