import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { AdminActor } from '../admin/admin-actor';
import { AdminAuditService } from '../admin/admin-audit.service';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { generateWebhookSecret } from '../common/security/standard-webhook';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { webhookUrlProblem } from '../config/webhook-delivery-config';
import { isUniqueViolation } from '../database/db-errors';
import { TransactionRunner } from '../database/transaction-runner';
import { EventStream } from '../outbox/event-stream.service';
import { keyFingerprint } from '../settings/runtime-settings';
import { CreateWebhookDto, ReplayWebhookDto, UpdateWebhookDto, WebhookDeliveriesQueryDto } from './webhook-admin.dto';
import {
  WebhookDeliveriesReply,
  WebhookEndpointReply,
  WebhookEndpointsReply,
  WebhookEndpointWrapReply,
  WebhookReplayReply,
  WebhookSecretReply,
  toWebhookDeliveryReply,
  toWebhookEndpointReply,
} from './webhook-admin.reply';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDispatcher } from './webhook-dispatcher.service';
import { EndpointChanges, WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { breakerState } from './webhook-policy';
import type { WebhookEndpointEntity } from './webhook.entities';

const PAGE = 50;

/** What the audit log keeps of an endpoint: never a secret, only fingerprints. */
function audited(row: WebhookEndpointEntity): Record<string, unknown> {
  return {
    url: row.url,
    description: row.description,
    event_types: row.eventTypes === null ? null : (JSON.parse(row.eventTypes) as unknown),
    paused: row.paused,
    secret_fingerprint: keyFingerprint(row.secret),
  };
}

/**
 * The console's Webhooks page: owners change endpoints, every admin role reads them. Each
 * change is written with its audit row in one transaction; the instance delivering to the
 * endpoint notices within a third of the lease (a pause, a deletion) or at its next attempt.
 */
@Injectable()
export class WebhookAdminService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(Clock) private readonly clock: Clock,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly stream: EventStream,
    private readonly audit: AdminAuditService,
    private readonly tx: TransactionRunner,
    private readonly dispatcher: WebhookDispatcher,
  ) {}

  async list(): Promise<WebhookEndpointsReply> {
    const rows = await this.endpoints.list();
    const head = BigInt(await this.stream.head());
    const endpoints: WebhookEndpointReply[] = [];
    for (const row of rows) endpoints.push(await this.reply(row, head));
    return { endpoints };
  }

  async create(actor: AdminActor, dto: CreateWebhookDto): Promise<WebhookSecretReply> {
    this.checkUrl(dto.url);
    const secret = generateWebhookSecret();
    const head = await this.stream.head();
    const now = this.clock.now();
    const id = await this.unique(() =>
      this.tx.run(async (manager) => {
        const created = await this.endpoints.insert(manager, {
          url: dto.url,
          description: dto.description ?? '',
          eventTypes: typesJson(dto.event_types),
          secret,
          cursorPosition: head,
          now,
        });
        const row = (await this.endpoints.findById(created, manager))!;
        await this.record(manager, actor, 'webhook.created', row, null, audited(row));
        return created;
      }),
    );
    this.dispatcher.scan();
    return { endpoint: await this.replyOf(id), secret };
  }

  async update(actor: AdminActor, dto: UpdateWebhookDto): Promise<WebhookEndpointWrapReply> {
    if (dto.url !== undefined) this.checkUrl(dto.url);
    const changes: EndpointChanges = {};
    if (dto.url !== undefined) changes.url = dto.url;
    if (dto.description !== undefined) changes.description = dto.description;
    if (dto.event_types !== undefined) changes.eventTypes = typesJson(dto.event_types);
    if (Object.keys(changes).length === 0)
      throw AppError.invalid('url', 'send at least one of url, description, event_types');
    await this.change(actor, dto.id, 'webhook.updated', changes);
    return { endpoint: await this.replyOf(dto.id) };
  }

  async pause(actor: AdminActor, id: string): Promise<WebhookEndpointWrapReply> {
    await this.change(actor, id, 'webhook.paused', { paused: true });
    return { endpoint: await this.replyOf(id) };
  }

  async resume(actor: AdminActor, id: string): Promise<WebhookEndpointWrapReply> {
    await this.tx.run(async (manager) => {
      const before = await this.locked(manager, id);
      if (!before.paused) return;
      await this.endpoints.resume(manager, id, this.clock.now());
      await this.record(manager, actor, 'webhook.resumed', before, audited(before), { paused: false });
    });
    this.dispatcher.scan();
    return { endpoint: await this.replyOf(id) };
  }

  async remove(actor: AdminActor, id: string): Promise<WebhookEndpointWrapReply> {
    const reply = await this.replyOf(id);
    await this.tx.run(async (manager) => {
      const before = await this.locked(manager, id);
      await this.deliveries.deleteForEndpoint(manager, id);
      await this.endpoints.delete(manager, id);
      await this.record(manager, actor, 'webhook.deleted', before, audited(before), null);
    });
    return { endpoint: reply };
  }

  async rotateSecret(actor: AdminActor, id: string): Promise<WebhookSecretReply> {
    const secret = generateWebhookSecret();
    const now = this.clock.now();
    await this.tx.run(async (manager) => {
      const before = await this.locked(manager, id);
      const changes = {
        secret,
        previousSecret: before.secret,
        previousSecretUntil: now + this.config.webhookDelivery.rotationMs,
      };
      await this.endpoints.update(manager, id, changes, now);
      await this.record(manager, actor, 'webhook.secret_rotated', before, audited(before), {
        secret_fingerprint: keyFingerprint(secret),
        previous_secret_until: changes.previousSecretUntil,
      });
    });
    return { endpoint: await this.replyOf(id), secret };
  }

  async listDeliveries(query: WebhookDeliveriesQueryDto): Promise<WebhookDeliveriesReply> {
    if (!(await this.endpoints.findById(query.endpoint_id)))
      throw AppError.invalid('endpoint_id', 'no such webhook endpoint');
    const rows = await this.deliveries.list(query.endpoint_id, query.status ?? null, query.cursor ?? null, PAGE + 1);
    const page = rows.slice(0, PAGE);
    return {
      items: page.map((row) => toWebhookDeliveryReply(row)),
      next_cursor: rows.length > PAGE ? page[page.length - 1].id : null,
    };
  }

  async replay(actor: AdminActor, dto: ReplayWebhookDto): Promise<WebhookReplayReply> {
    const ids = [...new Set(dto.delivery_ids)];
    const queued = await this.tx.run(async (manager) => {
      const endpoint = await this.lockedAs(manager, dto.endpoint_id, 'endpoint_id');
      if ((await this.deliveries.countOf(manager, dto.endpoint_id, ids)) !== ids.length)
        throw AppError.invalid('delivery_ids', 'every ID must be a delivery of this endpoint');
      const marked = await this.deliveries.markReplaying(manager, dto.endpoint_id, ids, this.clock.now());
      // Thrown inside the transaction: nothing stays marked when one of them is not a dead letter.
      if (marked !== ids.length) throw AppError.invalid('delivery_ids', 'only dead deliveries can be replayed');
      await this.record(manager, actor, 'webhook.replayed', endpoint, null, { delivery_ids: ids });
      return marked;
    });
    return { queued };
  }

  private checkUrl(url: string): void {
    const problem = webhookUrlProblem(url, this.config.nodeEnv === 'production');
    if (problem) throw AppError.invalid('url', problem);
  }

  private async change(actor: AdminActor, id: string, action: string, changes: EndpointChanges): Promise<void> {
    await this.unique(() =>
      this.tx.run(async (manager) => {
        const before = await this.locked(manager, id);
        const after = { ...before, ...changes };
        if (JSON.stringify(audited(after)) === JSON.stringify(audited(before))) return;
        await this.endpoints.update(manager, id, changes, this.clock.now());
        await this.record(manager, actor, action, before, audited(before), audited(after));
      }),
    );
  }

  private async unique<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isUniqueViolation(error)) throw AppError.invalid('url', 'another webhook endpoint has this URL');
      throw error;
    }
  }

  private locked(manager: EntityManager, id: string): Promise<WebhookEndpointEntity> {
    return this.lockedAs(manager, id, 'id');
  }

  private async lockedAs(manager: EntityManager, id: string, field: string): Promise<WebhookEndpointEntity> {
    const row = await this.endpoints.lockById(manager, id);
    if (!row) throw AppError.invalid(field, 'no such webhook endpoint');
    return row;
  }

  private record(
    manager: EntityManager,
    actor: AdminActor,
    action: string,
    row: WebhookEndpointEntity,
    before: unknown,
    after: unknown,
  ): Promise<void> {
    return this.audit.record(manager, actor, { action, targetType: 'webhook', targetId: row.id, before, after });
  }

  private async replyOf(id: string): Promise<WebhookEndpointReply> {
    const row = await this.endpoints.findById(id);
    if (!row) throw AppError.invalid('id', 'no such webhook endpoint');
    return this.reply(row, BigInt(await this.stream.head()));
  }

  private async reply(row: WebhookEndpointEntity, head: bigint): Promise<WebhookEndpointReply> {
    const now = this.clock.now();
    const cursor = BigInt(row.cursorPosition);
    const oldest = cursor < head ? await this.stream.firstCreatedAfter(row.cursorPosition) : null;
    const { breakerThreshold } = this.config.webhookDelivery;
    return toWebhookEndpointReply(row, {
      breaker: breakerState(row.consecutiveFailures, row.breakerOpenUntil, breakerThreshold, now),
      lagEvents: Number(cursor < head ? head - cursor : 0n),
      lagMs: oldest === null ? 0 : Math.max(0, now - oldest),
      now,
    });
  }
}

function typesJson(types: readonly string[] | null | undefined): string | null {
  return types === null || types === undefined ? null : JSON.stringify([...new Set(types)]);
}
