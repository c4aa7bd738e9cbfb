import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { EntityManager, Repository } from 'typeorm';
import { executeCounted, executeCountedAlone } from '../database/execute-counted';
import { insertRow } from '../database/insert-row';
import { dialectOf } from '../database/sql-dialect';
import { PushRegistrationEntity } from './push.entities';

/** Registrations kept per user (Stream keeps 25 devices a user too). */
export const MAX_REGISTRATIONS_PER_USER = 25;

const REGISTRATION_COLUMNS =
  'id, user_id, device_id, provider, token, token_hash, platform, package_name, app_version, locale, token_version, created_at, updated_at';

type RegistrationRow = Record<string, string | number | null>;

function registrationOf(row: RegistrationRow): PushRegistrationEntity {
  const text = (value: string | number | null): string | null => (value === null ? null : String(value));
  return {
    id: String(row.id),
    userId: String(row.user_id),
    deviceId: String(row.device_id),
    provider: String(row.provider),
    token: String(row.token),
    tokenHash: String(row.token_hash),
    platform: String(row.platform),
    packageName: text(row.package_name),
    appVersion: text(row.app_version),
    locale: text(row.locale),
    tokenVersion: Number(row.token_version),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export interface RegistrationValues {
  userId: string;
  deviceId: string;
  provider: string;
  token: string;
  platform: string;
  packageName: string | null;
  appVersion: string | null;
  locale: string | null;
  tokenVersion: number;
}

/** The device registrations: one per provider token (the database's unique key), and one per user, device and provider. */
@Injectable()
export class PushRegistrationsRepository {
  constructor(@InjectRepository(PushRegistrationEntity) private readonly rows: Repository<PushRegistrationEntity>) {}

  /**
   * Registers a token for a user's device, in the caller's transaction: the device's earlier
   * token for the provider is dropped, and a token registered before (by this or another user)
   * moves to this user and device. A concurrent registration of the same token fails on the
   * unique key (the caller retries).
   */
  async register(manager: EntityManager, values: RegistrationValues, now: number): Promise<PushRegistrationEntity> {
    const hash = tokenHash(values.token);
    await manager.query(
      'DELETE FROM push_registrations WHERE user_id = ? AND device_id = ? AND provider = ? AND token_hash <> ?',
      [values.userId, values.deviceId, values.provider, hash],
    );
    const existing = await dialectOf(manager)
      .lockForWrite(
        manager
          .getRepository(PushRegistrationEntity)
          .createQueryBuilder('r')
          .where('r.provider = :provider AND r.token_hash = :hash', { provider: values.provider, hash }),
      )
      .getOne();
    const fields = {
      userId: values.userId,
      deviceId: values.deviceId,
      platform: values.platform,
      packageName: values.packageName,
      appVersion: values.appVersion,
      locale: values.locale,
      tokenVersion: values.tokenVersion,
      updatedAt: now,
    };
    let saved: PushRegistrationEntity;
    if (existing) {
      await manager.getRepository(PushRegistrationEntity).update({ id: existing.id }, fields);
      saved = { ...existing, ...fields };
    } else {
      const row = { ...fields, provider: values.provider, token: values.token, tokenHash: hash, createdAt: now };
      saved = { id: await insertRow(manager, PushRegistrationEntity, row), ...row };
    }
    await this.keepNewest(manager, values.userId);
    return saved;
  }

  /**
   * At most MAX_REGISTRATIONS_PER_USER registrations a user, the least recently registered
   * dropped: every registration costs a provider request per notification, and a user could
   * otherwise register any number of device IDs.
   */
  private async keepNewest(manager: EntityManager, userId: string): Promise<void> {
    const rows = (await manager.query(
      'SELECT id FROM push_registrations WHERE user_id = ? ORDER BY updated_at DESC, id DESC',
      [userId],
    )) as Array<{ id: string | number }>;
    const extra = rows.slice(MAX_REGISTRATIONS_PER_USER).map((row) => String(row.id));
    if (extra.length > 0)
      await manager.query(`DELETE FROM push_registrations WHERE id IN (${extra.map(() => '?').join(', ')})`, extra);
  }

  /** Removes the user's registrations of a device (one provider's or all); how many. */
  async unregister(manager: EntityManager, userId: string, deviceId: string, provider: string | null): Promise<number> {
    return executeCounted(
      manager,
      `DELETE FROM push_registrations WHERE user_id = ? AND device_id = ?${provider ? ' AND provider = ?' : ''}`,
      provider ? [userId, deviceId, provider] : [userId, deviceId],
    );
  }

  /** Every registration of a user (revoked, disabled, erased); how many. */
  deleteForUser(userId: string): Promise<number> {
    return executeCountedAlone(this.rows.manager.connection, 'DELETE FROM push_registrations WHERE user_id = ?', [
      userId,
    ]);
  }

  /** Registrations whose user's tokens were revoked after they were made. */
  deleteStale(userId: string, tokenVersion: number): Promise<number> {
    return executeCountedAlone(
      this.rows.manager.connection,
      'DELETE FROM push_registrations WHERE user_id = ? AND token_version < ?',
      [userId, tokenVersion],
    );
  }

  /** A token the provider called dead, unless it was registered again since the answer's request. */
  deleteDead(id: string, hash: string, registeredBefore: number): Promise<number> {
    return executeCountedAlone(
      this.rows.manager.connection,
      'DELETE FROM push_registrations WHERE id = ? AND token_hash = ? AND updated_at <= ?',
      [id, hash, registeredBefore],
    );
  }

  forUser(userId: string): Promise<PushRegistrationEntity[]> {
    return this.rows.find({ where: { userId }, order: { id: 'ASC' } });
  }

  /**
   * Callers pass at most a few hundred IDs at a time (PushFanout reads in chunks of 500). Plain
   * SQL: the dispatcher reads this for every batch of events.
   */
  async forUsers(userIds: readonly string[]): Promise<PushRegistrationEntity[]> {
    if (userIds.length === 0) return [];
    const rows = (await this.rows.query(
      `SELECT ${REGISTRATION_COLUMNS} FROM push_registrations WHERE user_id IN (${userIds.map(() => '?').join(', ')}) ORDER BY id`,
      [...userIds],
    )) as RegistrationRow[];
    return rows.map(registrationOf);
  }

  /** Registrations by provider, for the console. */
  async countByProvider(): Promise<Map<string, number>> {
    const rows = (await this.rows.query(
      'SELECT provider, COUNT(*) AS n FROM push_registrations GROUP BY provider',
    )) as Array<{ provider: string; n: string | number }>;
    return new Map(rows.map((row) => [row.provider, Number(row.n)]));
  }
}
