import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { parseConversationId } from '../conversations/conversation-id';
import type { Message } from '../conversations/message';
import { MessageHistory } from '../conversations/message-history.service';
import type { EntityManager } from 'typeorm';
import { TransactionRunner } from '../database/transaction-runner';
import { MAX_MUTE_SECONDS } from '../groups/dto/group.dto';
import type { Report, ReportStatus } from '../reports/report';
import { ReportQueue } from '../reports/report-queue.service';
import { UsersService } from '../users/users.service';
import type { AdminActor } from './admin-actor';
import { AdminAuditService } from './admin-audit.service';
import type { ReportLink } from './report-link';
import { AdminDirectoryService } from './admin-directory.service';
import { AdminGroupMembersService } from './admin-group-members.service';
import { AdminMessagesService } from './admin-messages.service';
import { toAdminReportReply } from './admin-moderation.reply';
import { ReportAction, ReportActionDto } from './admin-report-actions.dto';
import { AdminReportActionReply } from './admin-report-actions.reply';

type Field = 'user_id' | 'duration_seconds' | 'reason' | 'message_ids' | 'note';

/** The optional fields each action reads; any other one sent is refused, so nothing is silently ignored. */
const FIELDS: Record<ReportAction, readonly Field[]> = {
  disable_user: ['user_id', 'duration_seconds', 'reason'],
  mute_member: ['user_id', 'duration_seconds'],
  recall_messages: ['message_ids'],
  delete_messages: ['message_ids'],
  disable_group: [],
  dismiss_group: [],
  close: ['note'],
};

/** What an action changes, resolved and checked against the report before anything changes. */
type Plan =
  | { action: 'disable_user'; userId: string; durationSeconds?: number; reason: string }
  | { action: 'mute_member'; groupId: string; userId: string; durationSeconds: number }
  | { action: 'recall_messages' | 'delete_messages'; conversationRef: string; messageIds: string[] }
  | { action: 'disable_group' | 'dismiss_group'; groupId: string }
  | { action: 'close'; note: string };

/**
 * Moderation from a report: one action on what the report names (its user, its group, its
 * messages), made through the console's own services so each is audited exactly as from the
 * user or group page, with the report's ID on the audit row; then the report moves on (pending
 * → reviewed, or → closed for `close`), audited too. An action that does not fit the report is
 * 1004 naming the field, before anything changes.
 *
 * The report's move runs in the action's own transaction (a ReportLink), so the two commit
 * together. It is a compare-and-set from pending: two moderators acting at once move the report
 * once, and an action whose move did not happen (another came first) still stands and is in the
 * history.
 */
@Injectable()
export class AdminReportActionsService {
  constructor(
    private readonly reports: ReportQueue,
    private readonly users: UsersService,
    private readonly messages: MessageHistory,
    private readonly directory: AdminDirectoryService,
    private readonly members: AdminGroupMembersService,
    private readonly adminMessages: AdminMessagesService,
    private readonly audit: AdminAuditService,
    private readonly tx: TransactionRunner,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async act(actor: AdminActor, dto: ReportActionDto): Promise<AdminReportActionReply> {
    const report = await this.require(dto.report_id);
    const plan = await this.plan(report, dto);
    let moved = false;
    const link: ReportLink = {
      id: report.id,
      linked: async (manager) => {
        moved = await this.markReviewed(manager, actor, report.id, plan.action);
      },
    };
    if (plan.action === 'close') moved = await this.close(actor, report, plan.note);
    else await this.perform(actor, plan, link);
    const current = (await this.reports.findById(report.id)) ?? report;
    const reporter = (await this.users.findByIds([report.reporterId]))[0];
    return {
      report: toAdminReportReply(current, reporter?.externalId ?? ''),
      action: plan.action,
      ...this.changed(plan, report),
      status_changed: moved,
    };
  }

  private async plan(report: Report, dto: ReportActionDto): Promise<Plan> {
    for (const field of ['user_id', 'duration_seconds', 'reason', 'message_ids', 'note'] as const)
      if (dto[field] !== undefined && !FIELDS[dto.action].includes(field))
        throw AppError.invalid(field, `is not used by ${dto.action}`);
    switch (dto.action) {
      case 'disable_user': {
        if (dto.reason === undefined)
          throw AppError.invalid('reason', "is required: the user's client shows it when refused");
        const userId = await this.userOf(report, dto.user_id);
        return { action: 'disable_user', userId, durationSeconds: dto.duration_seconds, reason: dto.reason };
      }
      case 'mute_member': {
        if (dto.duration_seconds === undefined) throw AppError.invalid('duration_seconds', 'is required for a mute');
        if (dto.duration_seconds > MAX_MUTE_SECONDS)
          throw AppError.invalid('duration_seconds', `must be at most ${MAX_MUTE_SECONDS} for a mute (30 days)`);
        const groupId = this.groupOf(report, 'mute_member');
        const userId = await this.userOf(report, dto.user_id);
        return { action: 'mute_member', groupId, userId, durationSeconds: dto.duration_seconds };
      }
      case 'recall_messages':
      case 'delete_messages':
        return { action: dto.action, ...this.messagesOf(report, dto.action, dto.message_ids) };
      case 'disable_group':
      case 'dismiss_group':
        // A user report's evidence group is where one member misbehaved, not what was reported.
        if (report.targetType !== 'group')
          throw AppError.invalid('action', `${dto.action} needs a group report; this report is about a user`);
        return { action: dto.action, groupId: report.targetPublicId };
      case 'close':
        if (report.status === 'closed') throw AppError.invalid('action', 'the report is already closed');
        return { action: 'close', note: dto.note ?? '' };
    }
  }

  private async perform(actor: AdminActor, plan: Exclude<Plan, { action: 'close' }>, link: ReportLink): Promise<void> {
    switch (plan.action) {
      case 'disable_user':
        await this.directory.setUserDisabled(actor, plan.userId, {
          disabled: true,
          durationSeconds: plan.durationSeconds,
          reason: plan.reason,
          report: link,
        });
        return;
      case 'mute_member':
        await this.members.mute(actor, plan.groupId, plan.userId, plan.durationSeconds, link);
        return;
      case 'recall_messages':
        await this.adminMessages.recall(actor, plan.conversationRef, plan.messageIds, link);
        return;
      case 'delete_messages':
        await this.adminMessages.delete(actor, plan.conversationRef, plan.messageIds, link);
        return;
      case 'disable_group':
        await this.directory.setGroupDisabled(actor, plan.groupId, true, link);
        return;
      case 'dismiss_group':
        await this.directory.dismissGroup(actor, plan.groupId, link);
        return;
    }
  }

  /** In the action's transaction: a pending report becomes reviewed, audited; false when it was not pending. */
  private async markReviewed(
    manager: EntityManager,
    actor: AdminActor,
    reportId: string,
    action: ReportAction,
  ): Promise<boolean> {
    if (!(await this.reports.transition(manager, reportId, 'pending', 'reviewed', this.clock.now()))) return false;
    await this.audit.record(manager, actor, {
      action: 'report.transitioned',
      targetType: 'report',
      targetId: reportId,
      before: { status: 'pending' },
      after: { status: 'reviewed', by_action: action },
      reportId,
    });
    return true;
  }

  /**
   * `close` closes the report from pending or reviewed, whichever it is when the move is made
   * (compare-and-set, retried when another move came between); closed already is 1004.
   */
  private async close(actor: AdminActor, report: Report, note: string): Promise<boolean> {
    let from: ReportStatus = report.status;
    for (let attempt = 0; attempt < 3 && from !== 'closed'; attempt += 1) {
      const status = from;
      const moved = await this.tx.run(async (manager) => {
        if (!(await this.reports.transition(manager, report.id, status, 'closed', this.clock.now()))) return false;
        await this.audit.record(manager, actor, {
          action: 'report.transitioned',
          targetType: 'report',
          targetId: report.id,
          before: { status },
          after: { status: 'closed', note },
          reportId: report.id,
        });
        return true;
      });
      if (moved) return true;
      from = (await this.require(report.id)).status;
    }
    throw AppError.invalid('action', 'the report is already closed');
  }

  /**
   * The user an action on a person takes: the reported user by default; another only when they
   * sent one of the report's messages (a group report names messages, not a user).
   */
  private async userOf(report: Report, userId: string | undefined): Promise<string> {
    if (userId === undefined) {
      if (report.targetType === 'user') return report.targetPublicId;
      throw AppError.invalid('user_id', "is required: a group report names no user (send a reported message's sender)");
    }
    if (report.targetType === 'user' && userId === report.targetPublicId) return userId;
    const senders = await this.senders(report);
    if (!senders.has(userId))
      throw AppError.invalid('user_id', "is neither the reported user nor the sender of one of the report's messages");
    return userId;
  }

  private async senders(report: Report): Promise<Set<string>> {
    const ids = JSON.parse(report.messageIds) as string[];
    if (report.conversationRef === null || ids.length === 0) return new Set();
    // findInConversation reads no sender; a report names at most 20 messages.
    const found = (await Promise.all(ids.map((id) => this.messages.findById(id)))).filter(
      (m): m is Message => m !== null && m.conversationId === report.conversationRef,
    );
    const users = await this.users.findByIds([...new Set(found.map((m) => m.senderId))]);
    return new Set(users.map((u) => u.externalId));
  }

  /** The group a mute takes place in: the reported group, or the group conversation a user report's evidence is from. */
  private groupOf(report: Report, action: ReportAction): string {
    if (report.targetType === 'group') return report.targetPublicId;
    const ref = report.conversationId ? parseConversationId(report.conversationId) : null;
    if (ref?.type === 'group') return ref.publicGroupId;
    throw AppError.invalid('action', `${action} needs a group, and this user report names none`);
  }

  private messagesOf(
    report: Report,
    action: ReportAction,
    chosen: string[] | undefined,
  ): { conversationRef: string; messageIds: string[] } {
    const reported = JSON.parse(report.messageIds) as string[];
    if (report.conversationRef === null || reported.length === 0)
      throw AppError.invalid('action', `${action} needs reported messages, and this report names none`);
    const outside = (chosen ?? []).find((id) => !reported.includes(id));
    if (outside !== undefined) throw AppError.invalid('message_ids', `${outside} is not one of the report's messages`);
    return { conversationRef: report.conversationRef, messageIds: chosen ?? reported };
  }

  private changed(
    plan: Plan,
    report: Report,
  ): Pick<AdminReportActionReply, 'target_type' | 'target_id' | 'message_ids'> {
    switch (plan.action) {
      case 'disable_user':
      case 'mute_member':
        return { target_type: 'user', target_id: plan.userId, message_ids: [] };
      case 'recall_messages':
      case 'delete_messages':
        return { target_type: 'conversation', target_id: report.conversationId, message_ids: plan.messageIds };
      case 'disable_group':
      case 'dismiss_group':
        return { target_type: 'group', target_id: plan.groupId, message_ids: [] };
      case 'close':
        return { target_type: 'report', target_id: report.id, message_ids: [] };
    }
  }

  private async require(reportId: string): Promise<Report> {
    const report = await this.reports.findById(reportId);
    if (!report) throw AppError.invalid('report_id', 'no such report');
    return report;
  }
}
