import { Stats, chmodSync, closeSync, constants, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** The database holds password hashes, two-factor secrets and every message: its owner's only. */
export const SQLITE_FILE_MODE = 0o600;
/** Like the media directory: the owner and its group (a backup user) may list it. */
export const SQLITE_DIRECTORY_MODE = 0o750;

/** SQLite's own files beside the database (write-ahead log, shared memory index). */
const COMPANIONS = ['', '-wal', '-shm'];

export interface TightenedFile {
  file: string;
  /** The permissions it had, in octal (`644`). */
  was: string;
}

/**
 * Creates the SQLite database's directory (0750) and the empty database file (0600) before the
 * driver opens it: the driver would create it with the umask's permissions (0644 under umask 022,
 * readable by every local user). SQLite gives its -wal and -shm files the database file's
 * permissions. A file that already exists, belongs to this process's user and is readable by
 * others (created by an older version) is tightened to 0600; the paths tightened are returned
 * so that the caller can say so. Directories that already exist are left as they are: they are
 * the operator's.
 */
export function prepareSqliteFile(path: string): TightenedFile[] {
  mkdirSync(dirname(path), { recursive: true, mode: SQLITE_DIRECTORY_MODE });
  try {
    closeSync(openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, SQLITE_FILE_MODE));
    // The umask may have taken more than it should leave; never less than the owner's read and write.
    chmodSync(path, SQLITE_FILE_MODE);
    return [];
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const uid = process.getuid?.();
  if (uid === undefined) return [];
  const tightened: TightenedFile[] = [];
  for (const file of COMPANIONS.map((suffix) => `${path}${suffix}`)) {
    const stat = statOrNull(file);
    if (!stat || !stat.isFile() || stat.uid !== uid || (stat.mode & 0o077) === 0) continue;
    chmodSync(file, SQLITE_FILE_MODE);
    tightened.push({ file, was: (stat.mode & 0o777).toString(8) });
  }
  return tightened;
}

function statOrNull(file: string): Stats | null {
  try {
    return statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
