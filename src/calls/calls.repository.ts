import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, FindOperator, In, IsNull, LessThanOrEqual, Not, Repository } from 'typeorm';
import { insertRow, insertRows } from '../database/insert-row';
import { CallEntity } from './call.entity';
import { CallParticipantEntity } from './call-participant.entity';
import { dialectOf } from '../database/sql-dialect';

const LIVE_STATES = ['ringing', 'ongoing'];

/** A call a timer pass has work for: its row ID, and its call ID to name it in the logs. */
export type DueCall = Pick<CallEntity, 'id' | 'callId'>;

/**
 * The calls tables. Every state change reads the call row with a lock first (`lock*`), so concurrent changes of one
 * call run one after another.
 */
@Injectable()
export class CallsRepository {
  constructor(
    @InjectRepository(CallEntity) private readonly calls: Repository<CallEntity>,
    @InjectRepository(CallParticipantEntity) private readonly participants: Repository<CallParticipantEntity>,
  ) {}

  async insertCall(manager: EntityManager, call: Omit<CallEntity, 'id'>): Promise<CallEntity> {
    const id = await insertRow(manager, CallEntity, call);
    return { ...call, id };
  }

  async insertParticipants(manager: EntityManager, rows: Array<Omit<CallParticipantEntity, 'id'>>): Promise<void> {
    await insertRows(manager, CallParticipantEntity, rows);
  }

  findByCallId(callId: string, manager: EntityManager = this.calls.manager): Promise<CallEntity | null> {
    return manager.getRepository(CallEntity).findOneBy({ callId });
  }

  /**
   * Analytics: calls that ended at or before `endedBy`, after the (ended_at, id) cursor, in that
   * order (index IDX_calls_ended).
   */
  async finishedAfter(
    at: number,
    id: string,
    endedBy: number,
    limit: number,
  ): Promise<Array<{ id: string; media: string; acceptedAt: number | null; endedAt: number }>> {
    const rows = (await this.calls.query(
      'SELECT id, media, accepted_at, ended_at FROM calls WHERE ended_at IS NOT NULL AND ended_at <= ? AND (ended_at > ? OR (ended_at = ? AND id > ?)) ORDER BY ended_at, id LIMIT ?',
      [endedBy, at, at, id, limit],
    )) as Array<{ id: string | number; media: string; accepted_at: string | number | null; ended_at: string | number }>;
    return rows.map((row) => ({
      id: String(row.id),
      media: row.media,
      acceptedAt: row.accepted_at === null ? null : Number(row.accepted_at),
      endedAt: Number(row.ended_at),
    }));
  }

  findById(rowId: string): Promise<CallEntity | null> {
    return this.calls.findOneBy({ id: rowId });
  }

  findByCallerClientId(callerId: string, clientCallId: string): Promise<CallEntity | null> {
    return this.calls.findOneBy({ callerId, clientCallId });
  }

  findLiveInConversation(
    conversationId: string,
    manager: EntityManager = this.calls.manager,
  ): Promise<CallEntity | null> {
    return manager.getRepository(CallEntity).findOneBy({ liveConversationId: conversationId });
  }

  findByLiveRoom(roomId: string, manager: EntityManager = this.calls.manager): Promise<CallEntity | null> {
    return manager.getRepository(CallEntity).findOneBy({ liveRoomId: roomId });
  }

  /** The calls holding any of these rooms (one statement for a batch of room events). */
  findByLiveRooms(roomIds: readonly string[]): Promise<CallEntity[]> {
    if (roomIds.length === 0) return Promise.resolve([]);
    if (roomIds.length === 1) return this.calls.findBy({ liveRoomId: roomIds[0] });
    return this.calls.findBy({ liveRoomId: In([...roomIds]) });
  }

  /** The call row, locked until the transaction ends (MySQL; SQLite transactions are serial). */
  async lock(manager: EntityManager, rowId: string): Promise<CallEntity | null> {
    return dialectOf(manager)
      .lockForWrite(manager.createQueryBuilder(CallEntity, 'c').where('c.id = :rowId', { rowId }))
      .getOne();
  }

  participantsOf(callRowId: string, manager: EntityManager = this.calls.manager): Promise<CallParticipantEntity[]> {
    return manager.getRepository(CallParticipantEntity).find({ where: { callRowId }, order: { id: 'ASC' } });
  }

  async updateCall(manager: EntityManager, rowId: string, changes: Partial<CallEntity>): Promise<void> {
    await manager.getRepository(CallEntity).update({ id: rowId }, changes);
  }

  async updateParticipant(
    manager: EntityManager,
    participantId: string,
    changes: Partial<CallParticipantEntity>,
  ): Promise<void> {
    await manager.getRepository(CallParticipantEntity).update({ id: participantId }, changes);
  }

  /**
   * Those of the users who have joined a call that is still ringing or ongoing in another
   * conversation. A live call in the same conversation is not busy but the other side calling
   * at the same moment: the start converges on it (the live-conversation key refuses a second one).
   */
  async busyAmong(userIds: string[], conversationId: string): Promise<Set<string>> {
    if (userIds.length === 0) return new Set();
    const rows = (await this.calls.query(
      `SELECT DISTINCT p.user_id FROM call_participants p JOIN calls c ON c.id = p.call_row_id WHERE p.user_id IN (${userIds.map(() => '?').join(', ')}) AND p.state = 'joined' AND c.state IN ('ringing', 'ongoing') AND c.conversation_id <> ?`,
      [...userIds, conversationId],
    )) as Array<{ user_id: string | number }>;
    return new Set(rows.map((row) => String(row.user_id)));
  }

  /** Live calls the user takes part in (invited, ringing or joined), newest first. */
  async liveCallsOf(userId: string): Promise<CallEntity[]> {
    const ids = (await this.calls.query(
      "SELECT c.id FROM call_participants p JOIN calls c ON c.id = p.call_row_id WHERE p.user_id = ? AND p.state IN ('invited', 'ringing', 'joined') AND c.state IN ('ringing', 'ongoing') ORDER BY c.id DESC LIMIT 50",
      [userId],
    )) as Array<{ id: string | number }>;
    if (ids.length === 0) return [];
    const calls = await this.calls.findBy({ id: In(ids.map((row) => String(row.id))) });
    return calls.sort((a, b) => Number(BigInt(b.id) - BigInt(a.id)));
  }

  /** Ringing calls whose ring time is over, but for the row IDs in `skip` (backing off after a failure). */
  dueRinging(now: number, limit: number, skip: readonly string[]): Promise<DueCall[]> {
    return this.calls.find({
      select: { id: true, callId: true },
      where: { state: 'ringing', ringDeadline: LessThanOrEqual(now), ...notIn(skip) },
      take: limit,
    });
  }

  /** Ongoing calls whose room has been empty since `cutoff` or before, but for `skip`. */
  dueEmpty(cutoff: number, limit: number, skip: readonly string[]): Promise<DueCall[]> {
    return this.calls.find({
      select: { id: true, callId: true },
      where: { state: 'ongoing', emptySince: LessThanOrEqual(cutoff), ...notIn(skip) },
      take: limit,
    });
  }

  /** Ended calls still holding their room (someone stayed in it), ended at `cutoff` or before, but for `skip`. */
  roomsHeldAfterEnd(cutoff: number, limit: number, skip: readonly string[]): Promise<DueCall[]> {
    return this.calls.find({
      select: { id: true, callId: true },
      where: { state: 'ended', liveRoomId: Not(IsNull()), endedAt: LessThanOrEqual(cutoff), ...notIn(skip) },
      take: limit,
    });
  }

  isLive(call: CallEntity): boolean {
    return LIVE_STATES.includes(call.state);
  }
}

function notIn(ids: readonly string[]): { id?: FindOperator<string> } {
  return ids.length ? { id: Not(In([...ids])) } : {};
}
