import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { OutboxSequencer } from '../../src/outbox/outbox-sequencer';
import { OutboxWriter } from '../../src/outbox/outbox-writer';
import { StoreKit, barrier, eventually, newUsers, onMysql, outboxEvent, sql, startStoreKit } from './store-kit';

// TransactionRunner.afterCommit, and OutboxWriter, which wakes the sequencer through it.
describe('TransactionRunner.afterCommit and OutboxWriter', () => {
  let kit: StoreKit;
  beforeAll(async () => {
    kit = await startStoreKit();
  });
  afterAll(() => kit.close());

  const nickname = async (userId: string) =>
    (await sql<{ nickname: string }>(kit, 'SELECT nickname FROM users WHERE id = ?', [userId]))[0].nickname;

  it('runs a hook once, after the commit, and once even if registered twice', async () => {
    const [user] = await newUsers(kit, 1);
    const seen: string[] = [];
    let reads: Promise<string> | undefined;
    const hook = () => {
      seen.push('hook');
      // Through the pool: another connection sees the change only once it committed.
      reads = nickname(user.internalId);
    };
    await kit.tx.run(async (m) => {
      await m.query('UPDATE users SET nickname = ? WHERE id = ?', ['after-commit', user.internalId]);
      kit.tx.afterCommit(m, hook);
      kit.tx.afterCommit(m, hook);
      expect(seen).toEqual([]);
      seen.push('work done');
    });
    expect(seen).toEqual(['work done', 'hook']);
    expect(await reads).toBe('after-commit');
  });

  it('never runs a hook of a transaction that rolls back', async () => {
    const [user] = await newUsers(kit, 1);
    const hook = jest.fn();
    await expect(
      kit.tx.run(async (m) => {
        await m.query('UPDATE users SET nickname = ? WHERE id = ?', ['rolled-back', user.internalId]);
        kit.tx.afterCommit(m, hook);
        throw new Error('unit failed');
      }),
    ).rejects.toThrow('unit failed');
    await new Promise((resolve) => setImmediate(resolve));
    expect(hook).not.toHaveBeenCalled();
    expect(await nickname(user.internalId)).not.toBe('rolled-back');
  });

  it('runs a hook at once outside a transaction, refuses a foreign transaction’s manager, and survives a failing hook', async () => {
    const ran = jest.fn();
    kit.tx.afterCommit(kit.tx.manager, ran);
    expect(ran).toHaveBeenCalledTimes(1);
    await expect(kit.t.app.get(DataSource).transaction(async (m) => kit.tx.afterCommit(m, ran))).rejects.toThrow(
      'afterCommit needs the manager of TransactionRunner.run',
    );
    expect(ran).toHaveBeenCalledTimes(1);

    const after = jest.fn();
    await expect(
      kit.tx.run(async (m) => {
        kit.tx.afterCommit(m, () => {
          throw new Error('listener failed');
        });
        kit.tx.afterCommit(m, after);
        return 'committed';
      }),
    ).resolves.toBe('committed');
    expect(after).toHaveBeenCalledTimes(1);
  });

  // Two units that lock two rows in opposite orders: MariaDB rolls one back (deadlock, 1213) and
  // the runner runs it again. Each attempt registers a hook of its own.
  (onMysql ? it : it.skip)(
    'after a deadlock retry, runs only the hooks of the attempt that committed (MySQL)',
    async () => {
      const [x, y] = await newUsers(kit, 2);
      const meet = barrier(2);
      const attempts = { first: 0, second: 0 };
      const ran: string[] = [];
      const unit = (name: 'first' | 'second', rows: [string, string]) =>
        kit.tx.run(async (m) => {
          const attempt = ++attempts[name];
          await m.query('UPDATE users SET nickname = ? WHERE id = ?', [`${name}-${attempt}`, rows[0]]);
          kit.tx.afterCommit(m, () => ran.push(`${name} attempt ${attempt}`));
          if (attempt === 1) await meet();
          await m.query('UPDATE users SET nickname = ? WHERE id = ?', [`${name}-${attempt}`, rows[1]]);
        });
      const retriesBefore = kit.tx.retries;
      await Promise.all([unit('first', [x.internalId, y.internalId]), unit('second', [y.internalId, x.internalId])]);

      expect(kit.tx.retries - retriesBefore).toBeGreaterThanOrEqual(1);
      const retried = attempts.first === 2 ? 'first' : 'second';
      const other = retried === 'first' ? 'second' : 'first';
      expect({ [retried]: 2, [other]: 1 }).toEqual(attempts);
      expect(ran.sort()).toEqual([`${other} attempt 1`, `${retried} attempt 2`].sort());
      // The retried unit committed last: both rows carry its second attempt's value.
      expect([await nickname(x.internalId), await nickname(y.internalId)]).toEqual([`${retried}-2`, `${retried}-2`]);
    },
  );

  describe('OutboxWriter', () => {
    /** Kicks of the sequencer made by an after-commit hook (not by its own poll). */
    function watchKicks(): { fromCommit: () => number; restore: () => void } {
      const sequencer = kit.t.app.get(OutboxSequencer);
      const kick = sequencer.kick.bind(sequencer);
      const stacks: string[] = [];
      const limit = Error.stackTraceLimit;
      const spy = jest.spyOn(sequencer, 'kick').mockImplementation(() => {
        Error.stackTraceLimit = 50;
        stacks.push(new Error('kick').stack ?? '');
        Error.stackTraceLimit = limit;
        kick();
      });
      return { fromCommit: () => stacks.filter((s) => s.includes('runHook')).length, restore: () => spy.mockRestore() };
    }

    const profileEvent = (userId: string) => ({
      type: 'user.profile_updated' as const,
      payload: {
        user: {
          id: userId,
          user_id: 'someone',
          username: '',
          nickname: 'n',
          avatar: '',
          signature: '',
          profile_updated_at: 1,
        },
      },
      recipients: [{ userId }],
    });

    it('an append in a transaction that rolls back leaves no event and does not wake the sequencer', async () => {
      const [user] = await newUsers(kit, 1);
      const writer = kit.t.app.get(OutboxWriter);
      await kit.t.app.get(OutboxSequencer).flush();
      const kicks = watchKicks();
      const eventId = randomUUID();
      try {
        await expect(
          kit.tx.run(async (m) => {
            await writer.append(m, profileEvent(user.internalId), kit.t.clock.now(), eventId);
            expect(await m.query('SELECT id FROM outbox_events WHERE event_id = ?', [eventId])).toHaveLength(1);
            throw new Error('unit failed');
          }),
        ).rejects.toThrow('unit failed');
        expect(kicks.fromCommit()).toBe(0);
      } finally {
        kicks.restore();
      }
      expect(await outboxEvent(kit, eventId)).toBeNull();
      const recipients = await sql(kit, 'SELECT r.user_id FROM outbox_recipients r WHERE r.user_id = ?', [
        user.internalId,
      ]);
      expect(recipients).toEqual([]);
    });

    it('an append in a transaction that commits wakes the sequencer once and gets a position soon', async () => {
      const [user] = await newUsers(kit, 1);
      const writer = kit.t.app.get(OutboxWriter);
      const kicks = watchKicks();
      const first = randomUUID();
      const second = randomUUID();
      try {
        await kit.tx.run(async (m) => {
          await writer.append(m, profileEvent(user.internalId), kit.t.clock.now(), first);
          await writer.append(m, profileEvent(user.internalId), kit.t.clock.now(), second);
          expect(kicks.fromCommit()).toBe(0);
        });
        // Two appends, one transaction: one wake-up.
        expect(kicks.fromCommit()).toBe(1);
      } finally {
        kicks.restore();
      }
      const positions = await eventually(async () => {
        const [a, b] = [await outboxEvent(kit, first), await outboxEvent(kit, second)];
        return a?.position && b?.position ? [BigInt(a.position), BigInt(b.position)] : null;
      });
      expect(positions[1]).toBeGreaterThan(positions[0]);
      const recipients = await sql<{ user_id: number | string }>(
        kit,
        'SELECT r.user_id FROM outbox_recipients r JOIN outbox_events e ON e.id = r.event_row_id WHERE e.event_id = ?',
        [first],
      );
      expect(recipients.map((r) => String(r.user_id))).toEqual([user.internalId]);
    });
  });
});
