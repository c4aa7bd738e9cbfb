import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger as PinoRoot } from 'pino';
import { prepareSqliteFile } from './sqlite-file';
import { waitForDatabase } from './wait-for-database';

const modeOf = (path: string): string => (statSync(path).mode & 0o777).toString(8);

describe('prepareSqliteFile', () => {
  let dir: string;
  let umask: number;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'im-sqlite-file-'));
    // The common default, under which the driver would create the database 0644.
    umask = process.umask(0o022);
  });
  afterEach(() => {
    process.umask(umask);
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates the directory 0750 and the empty database file 0600', () => {
    const path = join(dir, 'data', 'im.sqlite');
    expect(prepareSqliteFile(path)).toEqual([]);
    expect(modeOf(join(dir, 'data'))).toBe('750');
    expect(modeOf(path)).toBe('600');
    expect(statSync(path).size).toBe(0);
  });

  it('tightens an existing database and its companions open to others, and says which', () => {
    const path = join(dir, 'im.sqlite');
    for (const [suffix, mode] of [
      ['', 0o644],
      ['-wal', 0o640],
      ['-shm', 0o600],
    ] as const) {
      writeFileSync(`${path}${suffix}`, 'x');
      chmodSync(`${path}${suffix}`, mode);
    }
    expect(prepareSqliteFile(path)).toEqual([
      { file: path, was: '644' },
      { file: `${path}-wal`, was: '640' },
    ]);
    for (const suffix of ['', '-wal', '-shm']) expect(modeOf(`${path}${suffix}`)).toBe('600');
    // Nothing left to say on the next start.
    expect(prepareSqliteFile(path)).toEqual([]);
  });

  it('is logged at start-up when a file was tightened', async () => {
    const path = join(dir, 'im.sqlite');
    writeFileSync(path, '');
    chmodSync(path, 0o644);
    const warnings: string[] = [];
    const log = { warn: (_fields: unknown, msg: string) => void warnings.push(msg) } as unknown as PinoRoot;
    const database = { type: 'sqlite', path } as const;
    await waitForDatabase(database, {} as never, log, () => undefined);
    expect(warnings).toEqual([`SQLite file ${path} was open to other users (mode 644); its mode is now 600`]);
    expect(modeOf(path)).toBe('600');
  });
});
