import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ApiClient, Body, IssuedUser } from '../helpers/api-client';
import { expectOk, groupEventCount, recipientIds, storedEvent } from '../helpers/assertions';
import { Factories } from '../helpers/factories';
import type { TestApp } from '../helpers/test-app';

/** A fresh group ID a client may choose. */
export const gid = (): string => `g.${randomBytes(6).toString('hex')}`;

export const DEFAULT_AVATAR = 'http://im.test/static/default-avatar.svg';

/**
 * What no endpoint shows: the stored group, membership and conversation rows, and a group
 * event with its recipients, read from the app `app()` returns (set in the spec's beforeAll).
 */
export function storedGroupRows(app: () => TestApp) {
  const row = async <T = Body>(sql: string, params: unknown[]): Promise<T | undefined> =>
    ((await app().app.get(DataSource).query(sql, params)) as T[])[0];
  const groupRow = (publicId: string) =>
    row<{ id: string | number; owner_id: string | number; dismissed_at: string | number | null; disabled: unknown }>(
      'SELECT * FROM `groups` WHERE public_id = ?',
      [publicId],
    );
  const internalGroupId = async (publicId: string): Promise<string> => String((await groupRow(publicId))!.id);
  const conversationOf = async (publicId: string): Promise<{ id: string; lastSeq: string }> => {
    const conv = await row<{ id: string | number; last_seq: string | number }>(
      'SELECT id, last_seq FROM conversations WHERE group_id = ?',
      [await internalGroupId(publicId)],
    );
    return { id: String(conv!.id), lastSeq: String(conv!.last_seq) };
  };
  const membership = async (publicId: string, user: IssuedUser) =>
    row<{ role: string; status: string; muted_until: string | number; left_at: string | number | null }>(
      'SELECT role, status, muted_until, left_at FROM group_members WHERE group_id = ? AND user_id = ?',
      [await internalGroupId(publicId), user.id],
    );
  const convMember = async (publicId: string, user: IssuedUser) => {
    const conv = await conversationOf(publicId);
    const r = await row<{
      visible_from_seq: string | number;
      visible_to_seq: string | number | null;
      read_seq: string | number;
    }>(
      'SELECT visible_from_seq, visible_to_seq, read_seq FROM conversation_members WHERE conversation_id = ? AND user_id = ?',
      [conv.id, user.id],
    );
    return r
      ? { from: String(r.visible_from_seq), to: r.visible_to_seq === null ? null : String(r.visible_to_seq) }
      : null;
  };
  /** The event with its type, payload and the sorted internal IDs of its recipients (group events carry no private part). */
  const event = async (eventId: unknown) => {
    const e = await storedEvent(app(), eventId);
    expect([...e.recipients.values()].every((p) => p === null)).toBe(true);
    return { type: e.type, payload: e.payload, recipients: recipientIds(e) };
  };
  const ids = (...list: IssuedUser[]): string[] => list.map((u) => u.id).sort();
  const eventCount = (type: string, publicId: string): Promise<number> => groupEventCount(app(), type, publicId);
  return { row, groupRow, internalGroupId, conversationOf, membership, convMember, event, ids, eventCount };
}

/** owner O, admin A, members M and T (a target), non-member N, former member F (left). */
export interface GroupFixture {
  publicId: string;
  owner: IssuedUser;
  admin: IssuedUser;
  member: IssuedUser;
  target: IssuedUser;
  outsider: IssuedUser;
  former: IssuedUser;
}

export async function groupFixture(api: ApiClient, factories: Factories): Promise<GroupFixture> {
  const [owner, admin, member, target, outsider, former] = await api.users(6);
  const publicId = await factories.group(owner, [admin, member, target, former]);
  expectOk(await api.raw.groupPost(owner, '/admins/set', { group_id: publicId, user_id: admin.userId, admin: true }));
  expectOk(await api.raw.groupPost(former, '/leave', { group_id: publicId }));
  return { publicId, owner, admin, member, target, outsider, former };
}
