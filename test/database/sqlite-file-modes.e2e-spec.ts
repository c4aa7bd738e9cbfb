// The SQLite database holds password hashes, two-factor secrets and every message: started on a
// fresh path under the common umask 022, the service creates its directory and files for its
// own user only (the driver alone would create the database 0644).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestApp, issueUser, startTestApp } from '../helpers/test-app';

const modeOf = (path: string): string => (statSync(path).mode & 0o777).toString(8);

describe('SQLite file permissions', () => {
  let dir: string;
  let umask: number;
  let t: TestApp | undefined;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'im-sqlite-modes-'));
    umask = process.umask(0o022);
  });
  afterAll(async () => {
    await t?.close();
    process.umask(umask);
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates the data directory 0750 and the database, its WAL and shared-memory files 0600', async () => {
    const path = join(dir, 'data', 'im.sqlite');
    t = await startTestApp({ DATABASE_URL: `sqlite:${path}`, MIGRATIONS_RUN: 'true' });
    // A write, so that the write-ahead log surely exists.
    await issueUser(t);
    expect(modeOf(join(dir, 'data'))).toBe('750');
    expect({ db: modeOf(path), wal: modeOf(`${path}-wal`), shm: modeOf(`${path}-shm`) }).toEqual({
      db: '600',
      wal: '600',
      shm: '600',
    });
  }, 120_000);
});
