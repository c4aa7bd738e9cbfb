import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ADMIN_LOCALES, AdminLocale, adminLocaleOf } from './admin-locales';
import { ADMIN_ROLES, AdminRole } from './admin-roles';
import type { AdminAccountEntity, AdminAuditEntity } from './admin.entities';

export class AdminReply {
  @ApiProperty({ example: 'alice' }) username: string;
  @ApiProperty({ enum: ADMIN_ROLES }) role: AdminRole;
  @ApiProperty() disabled: boolean;
  @ApiProperty({ description: 'Two-factor sign-in (TOTP) is on.' }) totp_enabled: boolean;
  @ApiProperty({ enum: ADMIN_LOCALES, description: "The console's language for this administrator." })
  locale: AdminLocale;
  @ApiProperty({ description: 'Unix ms.' }) created_at: number;
  @ApiProperty({ description: 'Unix ms.' }) updated_at: number;
}

export class AdminMeReply {
  @ApiProperty({ type: AdminReply }) admin: AdminReply;
}

export class AdminListReply {
  @ApiProperty({ type: [AdminReply] }) items: AdminReply[];
}

export class TotpSetupReply {
  @ApiProperty({ description: 'The new secret (base32), for an authenticator app; shown once.' }) secret: string;
  @ApiProperty({ description: 'The same as an otpauth:// URI (SHA-1, 6 digits, 30 s).' }) otpauth_uri: string;
  @ApiProperty({
    description: 'otpauth_uri as a QR code: an SVG image as a data: URL, for an <img>.',
    example: 'data:image/svg+xml;base64,PHN2ZyB4bWxucz0i…',
  })
  qr_code: string;
}

export class AdminDoneReply {
  @ApiProperty({ example: true }) done: boolean;
}

export class AuditItemReply {
  @ApiProperty({ description: 'Audit row ID (decimal string).' }) id: string;
  @ApiProperty({ description: 'Username of the administrator at the time; "(host)" for the host backend.' })
  admin: string;
  @ApiProperty({
    enum: ['admin', 'host'],
    description: 'admin: a console account; host: the host backend through the server API (/app/server).',
  })
  actor_kind: string;
  @ApiProperty({ example: 'user.disabled' }) action: string;
  @ApiProperty({ enum: ['admin', 'report', 'user', 'group', 'settings', 'conversation'] }) target_type: string;
  @ApiProperty() target_id: string;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true }) before: Record<string, unknown> | null;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true }) after: Record<string, unknown> | null;
  @ApiProperty({ description: 'X-Request-Id of the request that made the change.' }) trace_id: string;
  @ApiProperty({ description: 'Unix ms.' }) created_at: number;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "The report the action was taken from (listed in that report's history too); null when none.",
  })
  report_id: string | null;
}

export class AuditPageReply {
  @ApiProperty({ type: [AuditItemReply] }) items: AuditItemReply[];
  @ApiProperty({ type: String, nullable: true }) next_cursor: string | null;
  @ApiProperty() has_more: boolean;
}

export function toAdminReply(account: AdminAccountEntity): AdminReply {
  return {
    username: account.username,
    role: account.role,
    disabled: account.disabled,
    totp_enabled: account.totpSecret !== null,
    locale: adminLocaleOf(account.locale),
    created_at: account.createdAt,
    updated_at: account.updatedAt,
  };
}

const parsed = (json: string | null): Record<string, unknown> | null =>
  json === null ? null : (JSON.parse(json) as Record<string, unknown>);

export function toAuditItemReply(row: AdminAuditEntity): AuditItemReply {
  return {
    id: String(row.id),
    admin: row.adminUsername,
    actor_kind: row.actorKind,
    action: row.action,
    target_type: row.targetType,
    target_id: row.targetId,
    before: parsed(row.beforeJson),
    after: parsed(row.afterJson),
    trace_id: row.traceId,
    created_at: row.createdAt,
    report_id: row.reportId ?? null,
  };
}

/** One bucket of a time series. */
export class CountBucketReply {
  @ApiProperty({ description: 'Start of the bucket, Unix ms (UTC).' }) start: number;
  @ApiProperty() count: number;
}

export class DashboardReply {
  @ApiProperty({ description: 'IM users known to the service.' }) users: number;
  @ApiProperty({ description: 'Reports still pending.' }) open_reports: number;
  @ApiProperty({
    type: [CountBucketReply],
    description:
      'Messages per UTC day, the last 14 days, oldest first (from the analytics rollup, about a minute behind).',
  })
  messages_per_day: CountBucketReply[];
  @ApiProperty({
    type: [CountBucketReply],
    description: 'Client error occurrences per hour, the last 24 hours, oldest first.',
  })
  client_errors_per_hour: CountBucketReply[];
  @ApiProperty({ description: 'Authenticated socket connections on every instance that answered within a second.' })
  connected_sockets: number;
  @ApiProperty({ description: 'Instances counted in connected_sockets (this one included).' })
  connected_instances: number;
  @ApiProperty({ description: 'False when an instance did not answer in time: connected_sockets is then a floor.' })
  connected_sockets_complete: boolean;
  @ApiProperty({ description: 'Users active today (UTC): an SDK request or a socket connection.' }) dau: number;
  @ApiProperty({ description: 'Distinct users active in the 30 days ending today.' }) mau: number;
  @ApiPropertyOptional({ description: 'Unix ms the counts were taken at.' }) generated_at: number;
}

/** Every bucket from `start` on, `size` wide, `count` of them, zero where the map has none. */
export function toBuckets(counts: Map<number, number>, start: number, size: number, count: number): CountBucketReply[] {
  return Array.from({ length: count }, (_, i) => ({
    start: start + i * size,
    count: counts.get(start + i * size) ?? 0,
  }));
}
