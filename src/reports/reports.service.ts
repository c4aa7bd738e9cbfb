import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { Scrubber } from '../common/scrubbing/scrub';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ErrorCode } from '../common/error-code';
import { ConversationAccessService } from '../conversation-views/conversation-access.service';
import { isSeqVisible } from '../conversations/visibility';
import { isUniqueViolation } from '../database/db-errors';
import { GroupDirectory } from '../groups/group-directory.service';
import { AuthUser } from '../common/auth-user';
import { UsersService } from '../users/users.service';
import type { Message } from '../conversations/message';
import { MessageReply } from '../messages/message.mapper';
import { toMessageReply } from '../conversations/message-reply';
import { MessageHistory } from '../conversations/message-history.service';
import { GroupReportDto, ReportFieldsDto, UserReportDto } from './dto/create-report.dto';
import type { Report, ReportTargetType } from './report';
import { ReportReply, toReportReply } from './report.mapper';
import { ReportsRepository } from './reports.repository';
import type { ReportCreatedEvent } from '../contract/reports';
import { OutboxWriter } from '../outbox/outbox-writer';
import { TransactionRunner } from '../database/transaction-runner';

/** What a retry must repeat: target, reason, description and evidence. */
interface ReportContent {
  targetType: ReportTargetType;
  targetPublicId: string;
  reasonCode: number;
  description: string;
  conversationId: string;
  messageIds: string;
}

interface ResolvedTarget {
  targetUserId: string | null;
  targetGroupId: string | null;
}

function reportCreatedEvent(
  reporter: AuthUser,
  content: ReportContent,
  createdAt: number,
  requestId: string,
): ReportCreatedEvent {
  return {
    report: {
      request_id: requestId,
      reporter_id: reporter.externalId,
      target_type: content.targetType,
      target_id: content.targetPublicId,
      reason_code: content.reasonCode,
      description: content.description,
      conversation_id: content.conversationId || null,
      message_ids: JSON.parse(content.messageIds) as string[],
      created_at: createdAt,
    },
  };
}

function sortedIds(ids: readonly string[]): string[] {
  return [...ids].sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
}

const MAX_DESCRIPTION = 1000;

/** `description` is stored scrubbed of credentials, so a retry compares scrubbed with scrubbed. */
function contentOf(
  targetType: ReportTargetType,
  targetPublicId: string,
  dto: ReportFieldsDto,
  scrubber: Scrubber,
): ReportContent {
  return {
    targetType,
    targetPublicId,
    reasonCode: dto.reason_code,
    description: scrubber.field(dto.description ?? '', MAX_DESCRIPTION),
    conversationId: dto.conversation_id ?? '',
    messageIds: JSON.stringify(sortedIds(dto.message_ids ?? [])),
  };
}

function sameContent(report: Report, content: ReportContent): boolean {
  return (
    report.targetType === content.targetType &&
    report.targetPublicId === content.targetPublicId &&
    report.reasonCode === content.reasonCode &&
    report.description === content.description &&
    report.conversationId === content.conversationId &&
    report.messageIds === content.messageIds
  );
}

@Injectable()
export class ReportsService {
  private readonly scrubber: Scrubber;

  constructor(
    private readonly reports: ReportsRepository,
    private readonly users: UsersService,
    private readonly groups: GroupDirectory,
    private readonly access: ConversationAccessService,
    private readonly messages: MessageHistory,
    private readonly outbox: OutboxWriter,
    private readonly tx: TransactionRunner,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.scrubber = Scrubber.forConfig(config);
  }

  reportGroup(reporter: AuthUser, dto: GroupReportDto): Promise<ReportReply> {
    return this.submit(reporter, dto, contentOf('group', dto.group_id, dto, this.scrubber), () =>
      this.resolveGroup(reporter, dto.group_id),
    );
  }

  reportUser(reporter: AuthUser, dto: UserReportDto): Promise<ReportReply> {
    return this.submit(reporter, dto, contentOf('user', dto.user_id, dto, this.scrubber), () =>
      this.resolveUser(reporter, dto.user_id),
    );
  }

  /**
   * Idempotent per (reporter, request_id), enforced by a unique key: a retry with the same
   * content answers the stored report with `created: false`; other content is refused. Access
   * to the target and the evidence is checked before a new report is stored.
   */
  private async submit(
    reporter: AuthUser,
    dto: ReportFieldsDto,
    content: ReportContent,
    resolveTarget: () => Promise<ResolvedTarget>,
  ): Promise<ReportReply> {
    // An idempotency key is stored as sent: one holding a credential is refused, not altered.
    if (this.scrubber.hasCredential(dto.request_id))
      throw AppError.invalid('request_id', 'must not contain a token or a secret');
    const hasEvidence = (dto.message_ids ?? []).length > 0;
    if (hasEvidence && !content.conversationId)
      throw AppError.invalid('conversation_id', 'is required when message_ids are sent');

    const existing = await this.reports.findByRequestId(reporter.internalId, dto.request_id);
    if (existing) return this.replay(existing, content);

    const target = await resolveTarget();
    let conversationRef: string | null = null;
    if (content.conversationId) {
      const view = await this.access.resolveForViewer(reporter.internalId, content.conversationId);
      await this.access.assertMessagesVisible(view, dto.message_ids ?? []);
      conversationRef = view.conversation.id;
    }
    try {
      const now = this.clock.now();
      // The report and its host-only event (webhooks) commit together.
      const report = await this.tx.run(async (manager) => {
        const stored = await this.reports.insert(manager, {
          reporterId: reporter.internalId,
          requestId: dto.request_id,
          ...content,
          ...target,
          conversationRef,
          createdAt: now,
        });
        await this.outbox.append(
          manager,
          {
            type: 'report.created',
            payload: reportCreatedEvent(reporter, content, now, dto.request_id),
            recipients: [],
          },
          now,
        );
        return stored;
      });
      return toReportReply(report, true);
    } catch (error) {
      if (!isUniqueViolation(error, 'reporter')) throw error;
      const winner = await this.reports.findByRequestId(reporter.internalId, dto.request_id);
      if (!winner) throw error;
      return this.replay(winner, content);
    }
  }

  /**
   * The evidence of a report as its reporter can see it now (the admin console's detail): the
   * same conversation access rules as submission; recalled or deleted messages come back as
   * tombstones, messages outside the reporter's visible range are left out. Null when the
   * reporter no longer has access to the conversation (or the report has none).
   */
  async evidenceAsReporterSees(report: Report): Promise<MessageReply[] | null> {
    if (!report.conversationId) return null;
    let view;
    try {
      view = await this.access.resolveForViewer(report.reporterId, report.conversationId);
    } catch (error) {
      if (error instanceof AppError) return null;
      throw error;
    }
    const ids = JSON.parse(report.messageIds) as string[];
    const messages = (await Promise.all(ids.map((id) => this.messages.findById(id)))).filter(
      (m): m is Message => m !== null && m.conversationId === view.conversation.id && isSeqVisible(view.member, m.seq),
    );
    const senders = new Map((await this.users.findByIds(messages.map((m) => m.senderId))).map((u) => [u.id, u]));
    return messages.map((m) => toMessageReply(m, report.conversationId, senders.get(m.senderId)?.externalId ?? ''));
  }

  private replay(existing: Report, content: ReportContent): ReportReply {
    if (!sameContent(existing, content))
      throw AppError.invalid('request_id', 'was already used for a report with different content');
    return toReportReply(existing, false);
  }

  private async resolveUser(reporter: AuthUser, externalId: string): Promise<ResolvedTarget> {
    if (externalId === reporter.externalId) throw AppError.invalid('user_id', 'you cannot report yourself');
    const user = await this.users.findByExternalId(externalId);
    if (!user) throw new AppError(ErrorCode.PROFILE_INACCESSIBLE, 'user_id: no such user');
    return { targetUserId: String(user.id), targetGroupId: null };
  }

  /** The group must exist and the reporter must be or have been a member; a disabled group answers 1218. */
  private async resolveGroup(reporter: AuthUser, publicId: string): Promise<ResolvedTarget> {
    const group = await this.groups.findByPublicId(publicId);
    const membership = group ? await this.groups.findMembership(group.id, reporter.internalId) : null;
    if (!group || !membership)
      throw new AppError(ErrorCode.GROUP_OPERATION_FORBIDDEN, 'group_id: group absent or you were never a member');
    if (group.disabled) throw new AppError(ErrorCode.GROUP_DISABLED, 'group_id: group is disabled');
    return { targetUserId: null, targetGroupId: String(group.id) };
  }
}
