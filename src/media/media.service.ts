import { Inject, Injectable, Logger, StreamableFile } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { isDecimalId } from '../common/ids';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { isSeqVisible } from '../conversations/visibility';
import { ConversationStore } from '../conversations/conversation-store.service';
import { AuthUser } from '../common/auth-user';
import { UploadMediaDto } from './dto/upload-media.dto';
import { sanitizeFileName } from './file-name';
import { tooLargeMessage, uploadLimitFor } from './media-limits';
import { MediaEntity } from './media.entity';
import { MediaUploadReply, toMediaDownload, toMediaReply } from './media.mapper';
import { MediaRepository } from './media.repository';
import { IMAGE_MIME_TYPES, isImageMimeType, sniffMimeType } from './sniff';
import { MediaStorage, newStorageKey } from './storage/media-storage';
import { UPLOAD_FILE_FIELD } from './upload-options';

/** The part multer keeps in memory (the fields of multer's File that are used here). */
export interface ReceivedFile {
  fieldname: string;
  originalname: string;
  size: number;
  buffer: Buffer;
}

@Injectable()
export class MediaService {
  private readonly logger = new Logger(MediaService.name);

  constructor(
    private readonly media: MediaRepository,
    private readonly conversations: ConversationStore,
    private readonly storage: MediaStorage,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /**
   * Checks the bytes (never the client's type or name), stores them, then records them. The
   * bytes are written first, so a failure leaves at most an unreferenced object, never a row
   * without its bytes.
   */
  async upload(user: AuthUser, file: ReceivedFile | undefined, dto: UploadMediaDto): Promise<MediaUploadReply> {
    if (!file || !Buffer.isBuffer(file.buffer)) {
      throw AppError.invalid(
        UPLOAD_FILE_FIELD,
        `is required: send multipart/form-data with one file in the form field "${UPLOAD_FILE_FIELD}"`,
      );
    }
    const kind = dto.kind ?? 'file';
    const data = file.buffer;
    if (data.length === 0) throw AppError.invalid(UPLOAD_FILE_FIELD, 'is empty');
    if (data.length > uploadLimitFor(this.config, kind))
      throw new AppError(ErrorCode.INVALID_PARAMETER, tooLargeMessage(this.config, kind));
    const mimeType = sniffMimeType(data);
    if (kind === 'image' && !isImageMimeType(mimeType))
      throw AppError.invalid(UPLOAD_FILE_FIELD, `not an image (accepted: ${IMAGE_MIME_TYPES.join(', ')})`);

    const storageKey = newStorageKey();
    await this.storage.put(storageKey, data);
    try {
      const media = await this.media.insert({
        ownerId: user.internalId,
        kind,
        mimeType,
        size: data.length,
        sha256: createHash('sha256').update(data).digest('hex'),
        storageKey,
        fileName: sanitizeFileName(file.originalname),
        createdAt: this.clock.now(),
      });
      return { media: toMediaReply(media) };
    } catch (error) {
      await this.storage
        .remove(storageKey)
        .catch((removeError: unknown) =>
          this.logger.warn(`could not remove unrecorded media object: ${String(removeError)}`),
        );
      throw error;
    }
  }

  /**
   * The bytes, for the uploader or anyone who may see a message that carries the media (the
   * window of a member who joined later or left starts or ends there). Any other case, an
   * unknown ID included, gets the same 1207.
   */
  async download(user: AuthUser, mediaId: string): Promise<StreamableFile> {
    if (!isDecimalId(mediaId))
      throw AppError.invalid('media_id', 'must be a positive decimal string of at most 19 digits');
    const media = await this.media.findById(mediaId);
    if (!media || !(await this.mayRead(user.internalId, media)))
      throw new AppError(ErrorCode.MESSAGE_ABSENT, 'media_id: media absent or not accessible');
    return toMediaDownload(media, await this.storage.open(media.storageKey));
  }

  private async mayRead(userId: string, media: MediaEntity): Promise<boolean> {
    if (media.ownerId === userId) return true;
    // One membership read per conversation, however often the media was sent into it.
    const members = new Map<string, Awaited<ReturnType<ConversationStore['findMember']>>>();
    for (const link of await this.media.findLinks(media.id)) {
      if (!members.has(link.conversationId))
        members.set(link.conversationId, await this.conversations.findMember(link.conversationId, userId));
      const member = members.get(link.conversationId);
      if (member && isSeqVisible(member, link.seq)) return true;
    }
    return false;
  }
}
