import type {
  GroupReportRequest,
  ReportFieldsRequest,
  ReportReasonCode,
  ReportReply,
  UserReportRequest,
} from '../../../../src/contract/index.js';
import { randomMessageId } from './messages-api.js';
import type { ApiTransport } from './transport.js';

/**
 * Abuse reports (spec 4.3, 4.4). Besides its target and reason, a report takes `options`: its
 * `request_id` (made when absent) and an optional description and message evidence. A report
 * is stored once per `request_id`: a retry with the same key and the same fields answers the
 * stored report with `created: false`; other fields under a used key are 1004.
 */
export class ReportsApi {
  /** @hidden */
  constructor(private readonly transport: ApiTransport) {}

  /**
   * Reports a group this user is or was a member of (1209 otherwise; 1218 when it is disabled).
   * Message evidence (`message_ids`, at most 20) needs the `conversation_id` it was sent in and
   * must be visible to this user (1207).
   */
  reportGroup(
    groupId: string,
    reasonCode: ReportReasonCode,
    options: Partial<Omit<ReportFieldsRequest, 'reason_code'>> = {},
  ): Promise<ReportReply> {
    const body: GroupReportRequest = { ...this.fields(reasonCode, options), group_id: groupId };
    return this.transport.post<ReportReply>('/app/sdk/reports/group', body);
  }

  /** Reports another user (1204 when there is no such user; oneself is 1004). Evidence as for groups. */
  reportUser(
    userId: string,
    reasonCode: ReportReasonCode,
    options: Partial<Omit<ReportFieldsRequest, 'reason_code'>> = {},
  ): Promise<ReportReply> {
    const body: UserReportRequest = { ...this.fields(reasonCode, options), user_id: userId };
    return this.transport.post<ReportReply>('/app/sdk/reports/user', body);
  }

  private fields(
    reasonCode: ReportReasonCode,
    options: Partial<Omit<ReportFieldsRequest, 'reason_code'>>,
  ): ReportFieldsRequest {
    return { ...options, request_id: options.request_id ?? randomMessageId(), reason_code: reasonCode };
  }
}
