import { DataSource } from 'typeorm';
import { OutboxRepository } from '../../src/outbox/outbox.repository';
import { RetentionService } from '../../src/retention/retention.service';
import { IsolatedDatabase, isolatedDatabase } from '../helpers/isolated-database';
import { connect, listen } from '../helpers/realtime';
import { Seed } from '../helpers/factories';
import { IssuedUser, TestApp, bearer, friendConversationId, issueUser, startTestApp } from '../helpers/test-app';

async function send(t: TestApp, from: IssuedUser, to: IssuedUser, text: string): Promise<string> {
  const reply = await t.http
    .post('/app/sdk/messages/send')
    .set(...bearer(from.token))
    .send({
      conversation_id: friendConversationId(to),
      client_message_id: `${text}-${Math.random()}`,
      type: 'text',
      content: { text },
    });
  expect(reply.body.code).toBe(0);
  return reply.body.data.event_id as string;
}

describe('delivery positions follow commit order, not row order', () => {
  let t: TestApp;
  let url: string;
  let database: IsolatedDatabase;
  beforeAll(async () => {
    // A database of its own: its retention run, an hour ahead with a one-hour backlog, prunes
    // every outbox event written before it, and on a shared database those include the events
    // other spec files are resuming from at that moment.
    database = await isolatedDatabase();
    t = await startTestApp({ ...database.env, REALTIME_BACKLOG_SECONDS: '3600' });
    url = await listen(t);
  });
  afterAll(async () => {
    await t.close();
    await database.drop();
  });

  // SQLite has one writer: a transaction held open blocks every other write, so the case
  // cannot arise there.
  const mysqlOnly = process.env.E2E_DATABASE_URL?.startsWith('mysql') ? it : it.skip;

  mysqlOnly(
    'delivers, live and on resume, an event whose transaction commits after later ones were delivered',
    async () => {
      const [alice, bob] = [await issueUser(t), await issueUser(t)];
      await new Seed(t).friends(alice.id, bob.id);
      const live = await connect(url, { auth: { token: bob.token } });
      const start = (await live.waitForReady()).position;

      // The held transaction takes its event row ID first...
      const runner = t.app.get(DataSource).createQueryRunner();
      await runner.connect();
      await runner.startTransaction();
      const held = await t.app
        .get(OutboxRepository)
        .append(
          runner.manager,
          { type: 'friend.unblocked', payload: { user_id: alice.userId }, recipients: [{ userId: bob.id }] },
          t.clock.now(),
        );
      // ...then two later transactions commit and are delivered.
      const later = [await send(t, alice, bob, 'one'), await send(t, alice, bob, 'two')];
      await live.waitForEvent(later[1]);
      const [heldRow] = (await t.app
        .get(DataSource)
        .query('SELECT id FROM outbox_events WHERE event_id = ?', [held])) as unknown[];
      expect(heldRow).toBeUndefined();
      const laterRows = (await t.app
        .get(DataSource)
        .query('SELECT id, position FROM outbox_events WHERE event_id IN (?, ?) ORDER BY id', later)) as Array<{
        id: string;
        position: string;
      }>;

      await runner.commitTransaction();
      await runner.release();
      const arrived = await live.waitForEvent(held);
      expect(live.of().map((e) => e.event_id)).toEqual([...later, held]);
      const [heldNow] = (await t.app
        .get(DataSource)
        .query('SELECT id, position FROM outbox_events WHERE event_id = ?', [held])) as Array<{
        id: string;
        position: string;
      }>;
      // Its row ID is below the later ones; its position is above them.
      expect(BigInt(heldNow.id)).toBeLessThan(BigInt(laterRows[0].id));
      expect(BigInt(heldNow.position)).toBeGreaterThan(BigInt(laterRows[1].position));
      live.close();

      // Resuming from the point after the later two still brings the late one.
      const afterLater = live.events.find((e) => e.event_id === later[1])!.position;
      const resumed = await connect(url, { auth: { token: bob.token, position: afterLater } });
      expect(await resumed.waitForReady()).toMatchObject({ resumed: true, replayed: 1 });
      expect(resumed.of().map((e) => e.event_id)).toEqual([held]);
      resumed.close();
      const again = await connect(url, { auth: { token: bob.token, position: start } });
      expect(await again.waitForReady()).toMatchObject({ resumed: true, replayed: 3 });
      expect(again.of().map((e) => e.event_id)).toEqual([...later, held]);
      expect(again.of().map((e) => e.position)).toEqual(live.of().map((e) => e.position));
      expect(arrived.position).toBe(again.of()[2].position);
      again.close();
    },
  );

  it('sequences and delivers an event committed without a wake-up (its instance died after the commit) within the poll', async () => {
    const bob = await issueUser(t);
    const client = await connect(url, { auth: { token: bob.token } });
    await client.waitForReady();
    const db = t.app.get(DataSource);
    const eventId = `orphan-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    // Written as a committed transaction would leave it, with nobody told.
    const inserted = (await db.query(
      'INSERT INTO outbox_events (event_id, type, payload, created_at) VALUES (?, ?, ?, ?)',
      [eventId, 'friend.unblocked', '{"user_id":"x"}', t.clock.now()],
    )) as { insertId?: number } | number;
    const rowId = typeof inserted === 'object' ? inserted.insertId : inserted;
    await db.query('INSERT INTO outbox_recipients (event_row_id, user_id, private_payload) VALUES (?, ?, NULL)', [
      rowId,
      bob.id,
    ]);
    const event = await client.waitForEvent(eventId, 5000);
    expect(event).toMatchObject({ type: 'friend.unblocked', data: { user_id: 'x' } });
    client.close();
  });

  it('prunes delivered events older than the backlog, and a resume point from before them gives no replay', async () => {
    const [alice, bob] = [await issueUser(t), await issueUser(t)];
    await new Seed(t).friends(alice.id, bob.id);
    const first = await connect(url, { auth: { token: bob.token } });
    await first.waitForReady();
    const old = await send(t, alice, bob, 'old');
    const oldPosition = (await first.waitForEvent(old)).position!;
    first.close();
    t.clock.advance(3601 * 1000);
    const fresh = await send(t, alice, bob, 'fresh');
    const run = await t.app.get(RetentionService).runOnce();
    expect(run.failed).toEqual([]);
    const rows = (await t.app
      .get(DataSource)
      .query('SELECT event_id FROM outbox_events WHERE event_id IN (?, ?)', [old, fresh])) as Array<{
      event_id: string;
    }>;
    expect(rows.map((r) => r.event_id)).toEqual([fresh]);
    const late = await connect(url, { auth: { token: bob.token, position: oldPosition } });
    expect(await late.waitForReady()).toMatchObject({ resumed: false, replayed: 0 });
    expect(late.of()).toEqual([]);
    late.close();
  });
});
