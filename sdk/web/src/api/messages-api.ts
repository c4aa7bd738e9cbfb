import type {
  MessageChangeReply,
  MessageReply,
  MessageWindowReply,
  ReadReply,
  SearchPageReply,
  SendReply,
} from '../../../../src/contract/index.js';
import { ImError } from '../errors.js';
import type { ApiTransport, UploadOptions, UploadProgress } from './transport.js';
import type { MediaApi } from './media-api.js';

/** A message this client is sending, before the service stored it (the local echo). */
export interface LocalMessage {
  /** The idempotency key: a retry sends the same one, so the service stores the message once. */
  client_message_id: string;
  conversation_id: string;
  type: SendRequest['type'];
  content: Record<string, unknown>;
  /** `sending` while in flight; `failed` once refused or unreachable (see `error`). */
  status: 'sending' | 'failed';
  /** When the app asked to send it (local clock). */
  created_at: number;
  error?: ImError;
  /**
   * Image and file sends: the upload's progress while it runs (`content` then holds the local
   * `file_name`, `size` and `mime_type` until the service names the media).
   */
  progress?: UploadProgress;
}

/** What `send` takes: the spec's send request. `client_message_id` is made when absent. */
export interface SendRequest {
  conversation_id: string;
  type: 'text' | 'image' | 'file' | 'custom';
  content: Record<string, unknown>;
  client_message_id?: string;
}

/**
 * `GET /app/sdk/messages` query (spec 4.7): exactly one of the calibration trio of the window the
 * client holds (the reply may then be `unchanged`), `before_seq` (older history), `after_seq`
 * (newer) or `around_mid` (locate a message).
 */
export type MessageWindowQuery = { conversation_id: string } & (
  | { known_last_seq: string; known_updated_at: string; known_deletion_revision: string }
  | { before_seq: string }
  | { after_seq: string }
  | { around_mid: string }
);

/** `GET /app/sdk/messages/search` query: newest first, `before_mid` pages on. */
export interface MessageSearchQuery {
  conversation_id: string;
  keyword: string;
  before_mid?: string;
}

/** An image or file send's bytes, kept until the message is stored. */
interface Attachment {
  file: Blob;
  kind: 'image' | 'file';
  name: string;
  options: UploadOptions & { width?: number; height?: number };
  /** Set once the upload succeeded: a retry then only sends. */
  mediaId: string | null;
}

/** The client's side of a send: the local echo and the reply applied to windows, home and events. */
export interface MessageHooks {
  pending(message: LocalMessage): void;
  /** An image or file send's upload moved on (the message is `sending`, `progress` set). */
  progress(message: LocalMessage): void;
  /** The app dropped a failed message. */
  discarded(message: LocalMessage): void;
  sent(message: LocalMessage, reply: SendReply): void;
  failed(message: LocalMessage): void;
  /** A local message found stored by its real-time echo (its send's reply was lost). */
  settled(message: LocalMessage, stored: MessageReply): void;
  changed(action: 'recall' | 'delete', conversationId: string, reply: MessageChangeReply): void;
}

/** A client_message_id for a send (retries of one send must reuse it). */
export function randomMessageId(): string {
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  return crypto?.randomUUID
    ? crypto.randomUUID()
    : `c-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

/**
 * Messages: sending with a local echo and retry under the same `client_message_id`, recall,
 * delete, search, the window endpoint and read marks.
 */
export class MessagesApi {
  private readonly local = new Map<string, LocalMessage>();
  /** The bytes of image and file sends until they are stored, so a failed one can be retried. */
  private readonly attachments = new Map<string, Attachment>();

  constructor(
    private readonly transport: ApiTransport,
    private readonly media: MediaApi,
    private readonly hooks: MessageHooks,
    private readonly now: () => number,
  ) {}

  /**
   * Sends a message. It is shown at once as a {@link LocalMessage} (`message.pending`), then as
   * the stored message (`message.new`, once: its real-time echo is skipped); a refusal or a
   * lost network leaves it `failed` (`message.failed`) for {@link retry}. A retry with the same
   * `client_message_id` answers the original message.
   */
  async send(request: SendRequest): Promise<SendReply> {
    const message: LocalMessage = {
      client_message_id: request.client_message_id ?? randomMessageId(),
      conversation_id: request.conversation_id,
      type: request.type,
      content: request.content,
      status: 'sending',
      created_at: this.now(),
    };
    return this.deliver(message);
  }

  /** Sends a text message. */
  sendText(conversationId: string, text: string, options: { client_message_id?: string } = {}): Promise<SendReply> {
    return this.send({ conversation_id: conversationId, type: 'text', content: { text }, ...options });
  }

  /** Sends application data the SDK does not interpret (`{data, description?}`). */
  sendCustom(
    conversationId: string,
    data: Record<string, unknown>,
    options: { description?: string; client_message_id?: string } = {},
  ): Promise<SendReply> {
    const content: Record<string, unknown> = { data };
    if (options.description !== undefined) content.description = options.description;
    return this.send({
      conversation_id: conversationId,
      type: 'custom',
      content,
      client_message_id: options.client_message_id,
    });
  }

  /** Uploads an image and sends it; `width`/`height` help the receiver lay it out before it loads. */
  sendImage(
    conversationId: string,
    file: Blob,
    options: UploadOptions & { name?: string; width?: number; height?: number; client_message_id?: string } = {},
  ): Promise<SendReply> {
    return this.sendMedia(conversationId, 'image', file, options);
  }

  /** Uploads a file and sends it. */
  sendFile(
    conversationId: string,
    file: Blob,
    options: UploadOptions & { name?: string; client_message_id?: string } = {},
  ): Promise<SendReply> {
    return this.sendMedia(conversationId, 'file', file, options);
  }

  /**
   * Sends a failed message again under its `client_message_id`: the service stores it at most
   * once, whatever reached it before.
   */
  retry(clientMessageId: string): Promise<SendReply> {
    const message = this.local.get(clientMessageId);
    if (!message || message.status !== 'failed')
      return Promise.reject(new ImError('invalid', 0, `no failed message ${clientMessageId} to retry`));
    const again: LocalMessage = { ...message, status: 'sending', error: undefined };
    delete again.error;
    return this.attachments.has(clientMessageId) ? this.deliverMedia(again) : this.deliver(again);
  }

  /** Drops a failed message from the local echo without sending it. */
  discard(clientMessageId: string): void {
    const message = this.local.get(clientMessageId);
    if (message?.status !== 'failed') return;
    this.local.delete(clientMessageId);
    this.attachments.delete(clientMessageId);
    this.hooks.discarded(message);
  }

  /**
   * The service's `message.new` of a send this client holds as sending or failed (its reply was
   * lost, but the message was stored): the local echo is settled by it, as by the reply.
   * Answers whether it was one of this client's.
   */
  settle(stored: MessageReply): boolean {
    const message = this.local.get(stored.client_message_id);
    if (!message || stored.sender_id !== this.transport.userId()) return false;
    this.local.delete(stored.client_message_id);
    this.attachments.delete(stored.client_message_id);
    this.hooks.settled(message, stored);
    return true;
  }

  /** Messages being sent or failed, oldest first: of one conversation, or of all (to retry them after a reconnect). */
  pending(conversationId?: string): LocalMessage[] {
    const all = [...this.local.values()];
    return conversationId === undefined ? all : all.filter((m) => m.conversation_id === conversationId);
  }

  /** Recalls one's own message (within the recall window) or, as a group owner or admin, anyone's. */
  async recall(conversationId: string, mid: string): Promise<MessageChangeReply> {
    return this.change('recall', conversationId, mid);
  }

  /** Deletes one's own message for everyone (or, as a group owner or admin, anyone's). */
  async delete(conversationId: string, mid: string): Promise<MessageChangeReply> {
    return this.change('delete', conversationId, mid);
  }

  /** Marks the conversation read up to `readSeq` (never backwards). */
  read(conversationId: string, readSeq: string): Promise<ReadReply> {
    return this.transport.post<ReadReply>('/app/sdk/messages/read', {
      conversation_id: conversationId,
      read_seq: readSeq,
    });
  }

  /** The latest window of a conversation (a calibration against nothing held: always `reset`). */
  latest(conversationId: string): Promise<MessageWindowReply> {
    return this.list({
      conversation_id: conversationId,
      known_last_seq: '0',
      known_updated_at: '0',
      known_deletion_revision: '0',
    });
  }

  /** One window of messages (spec 4.7); most apps use `client.openWindow` instead, which calibrates itself. */
  list(query: MessageWindowQuery): Promise<MessageWindowReply> {
    return this.transport.get<MessageWindowReply>('/app/sdk/messages', { ...query });
  }

  /** Searches the text of messages the user can see, newest first. */
  search(query: MessageSearchQuery): Promise<SearchPageReply> {
    return this.transport.get<SearchPageReply>('/app/sdk/messages/search', { ...query });
  }

  /** Forgets the local echo (logout). */
  reset(): void {
    this.local.clear();
    this.attachments.clear();
  }

  /**
   * An image or file: shown at once as a local message (its name, size and type) whose
   * `progress` follows the upload, then sent naming the upload. A failed upload or send leaves
   * it `failed` with its bytes kept, so `retry` uploads (if needed) and sends again under the
   * same `client_message_id`.
   */
  private sendMedia(
    conversationId: string,
    kind: 'image' | 'file',
    file: Blob,
    options: UploadOptions & { name?: string; width?: number; height?: number; client_message_id?: string },
  ): Promise<SendReply> {
    const name = options.name ?? (file as { name?: string }).name ?? 'upload';
    const content: Record<string, unknown> = { file_name: name, size: file.size, mime_type: file.type };
    if (kind === 'image' && options.width !== undefined) content.width = options.width;
    if (kind === 'image' && options.height !== undefined) content.height = options.height;
    const message: LocalMessage = {
      client_message_id: options.client_message_id ?? randomMessageId(),
      conversation_id: conversationId,
      type: kind,
      content,
      status: 'sending',
      created_at: this.now(),
    };
    this.attachments.set(message.client_message_id, { file, kind, name, options, mediaId: null });
    return this.deliverMedia(message);
  }

  private async deliverMedia(message: LocalMessage): Promise<SendReply> {
    const attachment = this.attachments.get(message.client_message_id)!;
    if (attachment.mediaId === null) {
      this.local.set(message.client_message_id, message);
      this.hooks.pending(message);
      try {
        const { media } = await this.media.upload(attachment.file, {
          kind: attachment.kind,
          name: attachment.name,
          signal: attachment.options.signal,
          onProgress: (progress) => {
            attachment.options.onProgress?.(progress);
            const current = this.local.get(message.client_message_id);
            if (current?.status !== 'sending') return;
            const moved = { ...current, progress };
            this.local.set(message.client_message_id, moved);
            this.hooks.progress(moved);
          },
        });
        attachment.mediaId = media.media_id;
      } catch (error) {
        this.fail(this.local.get(message.client_message_id) ?? message, error);
        throw error;
      }
    }
    const content: Record<string, unknown> = { media_id: attachment.mediaId };
    const { width, height } = attachment.options;
    if (attachment.kind === 'image' && width !== undefined) content.width = width;
    if (attachment.kind === 'image' && height !== undefined) content.height = height;
    const echo = this.local.get(message.client_message_id) ?? message;
    const reply = await this.deliver({ ...echo, content: { ...echo.content, ...content } }, content);
    this.attachments.delete(message.client_message_id);
    return reply;
  }

  /** Sends `message` (as `content` when given: an upload's local echo keeps its own fields). */
  private async deliver(message: LocalMessage, content = message.content): Promise<SendReply> {
    this.local.set(message.client_message_id, message);
    this.hooks.pending(message);
    try {
      const reply = await this.transport.post<SendReply>('/app/sdk/messages/send', {
        conversation_id: message.conversation_id,
        type: message.type,
        content,
        client_message_id: message.client_message_id,
      });
      // Settled meanwhile by its real-time echo: the app already heard it stored.
      if (this.local.delete(message.client_message_id)) this.hooks.sent(message, reply);
      return reply;
    } catch (error) {
      this.fail(message, error);
      throw error;
    }
  }

  private fail(message: LocalMessage, error: unknown): void {
    const failed: LocalMessage = {
      ...message,
      status: 'failed',
      error: error instanceof ImError ? error : new ImError('network', 0, String(error)),
    };
    delete failed.progress;
    // A stale reply belongs to an earlier login: nothing of it is kept.
    if (failed.error?.kind === 'stale') {
      this.local.delete(message.client_message_id);
      this.attachments.delete(message.client_message_id);
      return;
    }
    this.local.set(message.client_message_id, failed);
    this.hooks.failed(failed);
  }

  private async change(action: 'recall' | 'delete', conversationId: string, mid: string): Promise<MessageChangeReply> {
    const reply = await this.transport.post<MessageChangeReply>(`/app/sdk/messages/${action}`, {
      conversation_id: conversationId,
      mid,
    });
    this.hooks.changed(action, conversationId, reply);
    return reply;
  }
}

/** A stored message of a send (re-exported for apps that type their views). */
export type { MessageReply };
