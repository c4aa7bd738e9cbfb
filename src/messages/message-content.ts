import { AppError } from '../common/app-error';
import { isDecimalId } from '../common/ids';
import { charLength } from '../common/text';

export const MESSAGE_TYPES = ['text', 'image', 'file', 'custom'] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

export const MAX_TEXT_LENGTH = 5000;
export const MAX_CUSTOM_DATA_LENGTH = 8192;
export const MAX_CUSTOM_DESCRIPTION_LENGTH = 200;
const MAX_IMAGE_SIDE = 100_000;

/** A message body after validation: only known fields, ready to store. */
export interface ParsedContent {
  content: Record<string, unknown>;
  /** Lower-cased text the keyword search looks in; null when there is none. */
  searchText: string | null;
  /** Text the keyword list is checked against. */
  moderatedText: string;
  /** Media referenced by image and file messages. */
  mediaId: string | null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function optionalSide(content: Record<string, unknown>, field: 'width' | 'height'): number | undefined {
  const value = content[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_IMAGE_SIDE) {
    throw AppError.invalid(`content.${field}`, `must be a JSON integer from 1 to ${MAX_IMAGE_SIDE}`);
  }
  return value;
}

function mediaId(content: Record<string, unknown>): string {
  const value = content.media_id;
  if (typeof value !== 'string' || !isDecimalId(value))
    throw AppError.invalid('content.media_id', 'must be the media_id of an uploaded file (decimal string)');
  return value;
}

/**
 * Checks a message body against its type. Unknown fields are dropped (never stored); errors
 * name the field, e.g. `content.text`.
 */
export function parseMessageContent(type: MessageType, content: unknown): ParsedContent {
  if (!isObject(content)) throw AppError.invalid('content', 'must be a JSON object');
  switch (type) {
    case 'text': {
      const text = content.text;
      if (typeof text !== 'string' || text.trim() === '' || charLength(text) > MAX_TEXT_LENGTH) {
        throw AppError.invalid('content.text', `must be a non-blank string of at most ${MAX_TEXT_LENGTH} characters`);
      }
      return { content: { text }, searchText: text.toLowerCase(), moderatedText: text, mediaId: null };
    }
    case 'image': {
      const id = mediaId(content);
      const width = optionalSide(content, 'width');
      const height = optionalSide(content, 'height');
      return {
        content: { media_id: id, ...(width ? { width } : {}), ...(height ? { height } : {}) },
        searchText: null,
        moderatedText: '',
        mediaId: id,
      };
    }
    case 'file':
      return {
        content: { media_id: mediaId(content) },
        searchText: null,
        moderatedText: '',
        mediaId: mediaId(content),
      };
    case 'custom': {
      const data = content.data;
      if (!isObject(data)) throw AppError.invalid('content.data', 'must be a JSON object');
      if (JSON.stringify(data).length > MAX_CUSTOM_DATA_LENGTH)
        throw AppError.invalid('content.data', `must serialise to at most ${MAX_CUSTOM_DATA_LENGTH} characters`);
      const description = content.description ?? '';
      if (typeof description !== 'string' || charLength(description) > MAX_CUSTOM_DESCRIPTION_LENGTH) {
        throw AppError.invalid(
          'content.description',
          `must be a string of at most ${MAX_CUSTOM_DESCRIPTION_LENGTH} characters`,
        );
      }
      return {
        content: { data, description },
        searchText: description ? description.toLowerCase() : null,
        moderatedText: description,
        mediaId: null,
      };
    }
  }
}

/** The first configured keyword contained in `text` (case-insensitive), or null. */
export function findBlockedKeyword(text: string, keywords: readonly string[]): string | null {
  if (!text || keywords.length === 0) return null;
  const lower = text.toLowerCase();
  return keywords.find((keyword) => lower.includes(keyword)) ?? null;
}

/**
 * A system notice's body (server API only: clients can never send type `notice`, the send DTO
 * refuses it): {text (1–5000 characters, not blank), data? (object, ≤ 8192 characters as JSON)}.
 * Errors name the field under `content.`.
 */
export function parseNoticeContent(content: unknown): ParsedContent {
  if (!isObject(content)) throw AppError.invalid('content', 'must be a JSON object');
  const text = content.text;
  if (typeof text !== 'string' || text.trim() === '' || charLength(text) > MAX_TEXT_LENGTH) {
    throw AppError.invalid('content.text', `must be a non-blank string of at most ${MAX_TEXT_LENGTH} characters`);
  }
  const data = content.data;
  if (data !== undefined && data !== null) {
    if (!isObject(data)) throw AppError.invalid('content.data', 'must be a JSON object');
    if (JSON.stringify(data).length > MAX_CUSTOM_DATA_LENGTH)
      throw AppError.invalid('content.data', `must serialise to at most ${MAX_CUSTOM_DATA_LENGTH} characters`);
  }
  return {
    content: data === undefined || data === null ? { text } : { text, data },
    searchText: text.toLowerCase(),
    moderatedText: text,
    mediaId: null,
  };
}
