import { DataSource } from 'typeorm';
import { queryPrepared } from '../../src/database/prepared-query';
import { TransactionRunner } from '../../src/database/transaction-runner';
import { UsersRepository } from '../../src/users/users.repository';
import { TestApp, issueUser, startTestApp } from '../helpers/test-app';

describe('TransactionRunner', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('refuses a pooled query inside a transaction (it could stall the pool under load)', async () => {
    const user = await issueUser(t);
    const tx = t.app.get(TransactionRunner);
    const users = t.app.get(UsersRepository);
    await expect(tx.run(() => users.findById(user.id))).rejects.toThrow(
      'pooled query was started inside a transaction',
    );
    await expect(tx.run((manager) => users.findById(user.id, manager))).resolves.toMatchObject({
      externalId: user.userId,
    });
    await expect(users.findById(user.id)).resolves.toMatchObject({ externalId: user.userId });
  });

  it('refuses a prepared read inside a transaction, through either manager', async () => {
    const user = await issueUser(t);
    const tx = t.app.get(TransactionRunner);
    const pooled = t.app.get(DataSource).manager;
    const read = 'SELECT external_id FROM users WHERE id = ?';
    await expect(tx.run(async () => queryPrepared(pooled, read, [user.id]))).rejects.toThrow(
      'queryPrepared runs outside transactions',
    );
    await expect(tx.run(async (manager) => queryPrepared(manager, read, [user.id]))).rejects.toThrow(
      'queryPrepared runs outside transactions',
    );
    await expect(queryPrepared(pooled, read, [user.id])).resolves.toEqual([{ external_id: user.userId }]);
  });

  it('rolls the whole unit back when any statement fails', async () => {
    const user = await issueUser(t);
    const tx = t.app.get(TransactionRunner);
    const ds = t.app.get(DataSource);
    await expect(
      tx.run(async (manager) => {
        await manager.query('UPDATE users SET nickname = ? WHERE id = ?', ['changed', user.id]);
        await manager.query('INSERT INTO users (id) VALUES (?)', [user.id]);
      }),
    ).rejects.toThrow();
    const [row] = (await ds.query('SELECT nickname FROM users WHERE id = ?', [user.id])) as Array<{ nickname: string }>;
    expect(row.nickname).not.toBe('changed');
  });
});
