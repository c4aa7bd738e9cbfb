import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository, IsNull } from 'typeorm';
import { hasEdgeWhitespace } from '../common/text';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { insertRow } from '../database/insert-row';
import { UserEntity } from './user.entity';
import { USER_COLUMNS, User, UserAuthState, UserRow, userFromRow } from './user';
import { dialectOf } from '../database/sql-dialect';

export interface NewUser {
  externalId: string;
  username: string | null;
  nickname: string;
  avatar: string;
  signature: string;
  now: number;
}

export type ProfileChanges = Partial<Pick<User, 'username' | 'nickname' | 'avatar' | 'signature'>>;

/** A disable's end (Unix ms; null: for good) and the reason shown to the user's client. */
export interface DisableTerms {
  until: number | null;
  reason: string | null;
}

const AUTH_CACHE_MAX_ENTRIES = 100_000;

const AUTH_STATE_COLUMNS = 'id, external_id, token_version, disabled, disabled_until, disabled_reason';

interface AuthStateRow {
  id: string | number;
  external_id: string;
  token_version: number | string;
  disabled: number | boolean;
  disabled_until: number | string | null;
  disabled_reason: string | null;
}

function authStateOf(row: AuthStateRow): UserAuthState {
  return {
    id: String(row.id),
    externalId: row.external_id,
    tokenVersion: Number(row.token_version),
    disabled: Boolean(Number(row.disabled)),
    disabledUntil: row.disabled_until === null ? null : Number(row.disabled_until),
    disabledReason: row.disabled_reason,
  };
}

@Injectable()
export class UsersRepository {
  /**
   * Token version and disabled flag per user, for AUTH_CACHE_MS: every SDK request checks them.
   * Changes made here (disable, forced logout) drop the entry at once, so on one instance they
   * apply immediately; other instances see them within AUTH_CACHE_MS.
   */
  private readonly authCache = new Map<string, { state: UserAuthState; until: number }>();

  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private repo(manager?: EntityManager): Repository<UserEntity> {
    return manager ? manager.getRepository(UserEntity) : this.users;
  }

  /** Plain SQL, as findByExternalId: a lookup by key on the paths of sends, recalls and calls. */
  async findById(id: string, manager?: EntityManager): Promise<User | null> {
    const rows = (await (manager ?? this.users.manager).query(`SELECT ${USER_COLUMNS} FROM users WHERE id = ?`, [
      id,
    ])) as UserRow[];
    return rows[0] ? userFromRow(rows[0]) : null;
  }

  /**
   * Locks both users' rows until commit, lowest ID first (so two callers naming the same pair
   * cannot deadlock): the serialisation point of a change between two users that no unique key
   * can guard, such as two friend requests crossing. It must be the transaction's first read:
   * InnoDB takes a transaction's snapshot at its first plain read, and reads after the lock then
   * see what the previous holder committed. SQLite runs one writer at a time, so it needs none.
   */
  async lockPair(manager: EntityManager, userA: string, userB: string): Promise<void> {
    const dialect = dialectOf(manager);
    if (!dialect.locksRows) return;
    await manager.query(`SELECT id FROM users WHERE id IN (?, ?) ORDER BY id${dialect.forUpdate}`, [userA, userB]);
  }

  /**
   * Exact lookup. MySQL's PAD SPACE collations would match "alice " to "alice"; no stored ID
   * or username has edge whitespace (creation refuses it), so such a value matches nobody.
   */
  async findByExternalId(externalId: string, manager?: EntityManager): Promise<User | null> {
    if (hasEdgeWhitespace(externalId)) return null;
    // Plain SQL: this is on the path of every token request and report.
    const rows = (await (manager ?? this.users.manager).query(
      `SELECT ${USER_COLUMNS} FROM users WHERE external_id = ?`,
      [externalId],
    )) as UserRow[];
    return rows[0] ? userFromRow(rows[0]) : null;
  }

  /**
   * The user's row, locked until commit: two changes of the same user's status in flight at once
   * run one after the other, each reading what the other committed (so each audits its true
   * `before`); on MariaDB a locking read sees the latest committed row, whatever the snapshot.
   * SQLite runs one writer at a time; there it is a plain read.
   */
  async lockByExternalId(manager: EntityManager, externalId: string): Promise<User | null> {
    if (hasEdgeWhitespace(externalId)) return null;
    const rows = (await manager.query(
      `SELECT ${USER_COLUMNS} FROM users WHERE external_id = ?${dialectOf(manager).forUpdate}`,
      [externalId],
    )) as UserRow[];
    return rows[0] ? userFromRow(rows[0]) : null;
  }

  /** The users that exist among these external IDs (at most a page of them: one IN list). */
  async findByExternalIds(externalIds: readonly string[]): Promise<User[]> {
    const unique = [...new Set(externalIds)].filter((id) => !hasEdgeWhitespace(id));
    if (!unique.length) return [];
    const rows = (await this.users.query(
      `SELECT ${USER_COLUMNS} FROM users WHERE external_id IN (${unique.map(() => '?').join(', ')})`,
      unique,
    )) as UserRow[];
    return rows.map((row) => userFromRow(row));
  }

  async findByIds(ids: readonly string[]): Promise<User[]> {
    const unique = [...new Set(ids)];
    if (!unique.length) return [];
    const rows = (await this.users.query(
      `SELECT ${USER_COLUMNS} FROM users WHERE id IN (${unique.map(() => '?').join(', ')})`,
      unique,
    )) as UserRow[];
    return rows.map((row) => userFromRow(row));
  }

  findByUsername(username: string): Promise<User | null> {
    if (username === '' || hasEdgeWhitespace(username)) return Promise.resolve(null);
    return this.users.findOneBy({ username });
  }

  /** One indexed lookup on every SDK request, so it is plain SQL rather than a built query. */
  async findAuthState(id: string): Promise<UserAuthState | null> {
    const now = Date.now();
    const cached = this.authCache.get(id);
    if (cached && cached.until > now) return cached.state;
    const rows = (await this.users.query(`SELECT ${AUTH_STATE_COLUMNS} FROM users WHERE id = ?`, [
      id,
    ])) as AuthStateRow[];
    const row = rows[0];
    if (!row) return null;
    const state = authStateOf(row);
    if (this.config.authCacheMs > 0) {
      if (this.authCache.size >= AUTH_CACHE_MAX_ENTRIES) this.authCache.clear();
      this.authCache.set(id, { state, until: now + this.config.authCacheMs });
    }
    return state;
  }

  /** findAuthState for many users, always from the database (live connections re-check them). */
  async findAuthStates(ids: readonly string[]): Promise<Map<string, UserAuthState>> {
    const states = new Map<string, UserAuthState>();
    for (let i = 0; i < ids.length; i += 500) {
      const batch = ids.slice(i, i + 500);
      const rows = (await this.users.query(
        `SELECT ${AUTH_STATE_COLUMNS} FROM users WHERE id IN (${batch.map(() => '?').join(', ')})`,
        batch,
      )) as AuthStateRow[];
      for (const row of rows) states.set(String(row.id), authStateOf(row));
    }
    return states;
  }

  /** Inserts a user; a unique violation (external ID or username) propagates to the caller. */
  async insert(user: NewUser): Promise<User> {
    const entity = this.users.create({
      externalId: user.externalId,
      username: user.username,
      nickname: user.nickname,
      avatar: user.avatar,
      signature: user.signature,
      profileUpdatedAt: user.now,
      tokenVersion: 0,
      disabled: false,
      disabledUntil: null,
      disabledReason: null,
      lastActiveAt: null,
      erasedAt: null,
      createdAt: user.now,
      updatedAt: user.now,
    });
    entity.id = await insertRow(this.users.manager, UserEntity, entity);
    return entity;
  }

  async updateProfile(id: string, changes: ProfileChanges, now: number, manager?: EntityManager): Promise<void> {
    await this.repo(manager).update({ id }, { ...changes, profileUpdatedAt: now, updatedAt: now });
  }

  /**
   * An erased user is never enabled again, whatever raced with the erasure's last step, and never
   * gains an end to their disable either. Enabling clears the end and the reason.
   */
  async setDisabled(
    id: string,
    disabled: boolean,
    now: number,
    manager?: EntityManager,
    terms: DisableTerms = { until: null, reason: null },
  ): Promise<void> {
    const repo = this.repo(manager);
    const values = disabled
      ? { disabled, disabledUntil: terms.until, disabledReason: terms.reason, updatedAt: now }
      : { disabled, disabledUntil: null, disabledReason: null, updatedAt: now };
    await repo.update({ id, erasedAt: IsNull() }, values);
    this.authCache.delete(String(id));
  }

  /**
   * A disable whose end has passed is flipped back (the flag cleared with its end and reason), so
   * lists and filters read the truth. Only rows still carrying that lapsed end are touched, so a
   * new disable written in between is kept. Returns the IDs flipped.
   */
  async clearLapsedDisables(now: number, limit: number): Promise<string[]> {
    const rows = (await this.users.query(
      'SELECT id FROM users WHERE disabled_until IS NOT NULL AND disabled_until <= ? AND erased_at IS NULL ORDER BY disabled_until LIMIT ?',
      [now, limit],
    )) as Array<{ id: string | number }>;
    const cleared: string[] = [];
    for (const row of rows) {
      const id = String(row.id);
      const result = await this.users
        .createQueryBuilder()
        .update(UserEntity)
        .set({ disabled: false, disabledUntil: null, disabledReason: null, updatedAt: now })
        .where('id = :id AND disabled_until IS NOT NULL AND disabled_until <= :now', { id, now })
        .execute();
      if ((result.affected ?? 0) > 0) cleared.push(id);
      this.authCache.delete(id);
    }
    return cleared;
  }

  /** Atomic increment, so two concurrent forced logouts both take effect. */
  async incrementTokenVersion(id: string, now: number, manager?: EntityManager): Promise<void> {
    await this.repo(manager)
      .createQueryBuilder()
      .update()
      .set({ tokenVersion: () => 'token_version + 1', updatedAt: now })
      .where('id = :id', { id })
      .execute();
    this.authCache.delete(String(id));
  }

  /**
   * Erasure's first step: every token stops working (1102) and no new one is issued (the user is
   * disabled for good), in one statement so a concurrent forced logout still counts.
   */
  async lockOutForErasure(manager: EntityManager, id: string, now: number): Promise<void> {
    await manager.query(
      'UPDATE users SET token_version = token_version + 1, disabled = 1, disabled_until = NULL, updated_at = ? WHERE id = ?',
      [now, id],
    );
    this.authCache.delete(String(id));
  }

  /**
   * Erasure's last step: the profile is emptied and the host's external ID replaced by a
   * tombstone, only if it still carries `externalId` (a concurrent erasure that got there first
   * makes this one a no-op: false).
   */
  async anonymise(
    manager: EntityManager,
    id: string,
    externalId: string,
    changes: { externalId: string; nickname: string },
    now: number,
  ): Promise<boolean> {
    const result = await manager
      .createQueryBuilder()
      .update(UserEntity)
      .set({
        externalId: changes.externalId,
        nickname: changes.nickname,
        username: null,
        avatar: '',
        signature: '',
        // The operator's words about the person and when they were last seen go with the rest.
        disabledUntil: null,
        disabledReason: null,
        lastActiveAt: null,
        profileUpdatedAt: now,
        erasedAt: now,
        updatedAt: now,
      })
      .where('id = :id AND external_id = :externalId', { id, externalId })
      .execute();
    this.authCache.delete(String(id));
    return (result.affected ?? 0) > 0;
  }

  /** After a transaction that changed the user's access committed: no cached state may outlive it. */
  forgetAuthState(id: string): void {
    this.authCache.delete(String(id));
  }

  count(): Promise<number> {
    return this.users.count();
  }

  /** Users active at or after `since` (a range of IDX_users_last_active): today's MAU, counted live. */
  async countActiveSince(since: number): Promise<number> {
    const [row] = (await this.users.query('SELECT COUNT(*) AS n FROM users WHERE last_active_at >= ?', [
      since,
    ])) as Array<{
      n: string | number;
    }>;
    return Number(row?.n ?? 0);
  }

  /**
   * Marks users active at `at` in one statement (the activity tracker's batch); a later time
   * already stored is kept, so instances flushing out of order never move it back.
   */
  async touchLastActive(ids: readonly string[], at: number): Promise<void> {
    if (ids.length === 0) return;
    await this.users
      .createQueryBuilder()
      .update()
      .set({ lastActiveAt: at })
      .where('id IN (:...ids)', { ids })
      .andWhere('(last_active_at IS NULL OR last_active_at < :at)', { at })
      .execute();
  }
}
