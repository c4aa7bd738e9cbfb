import { USER_ID_RULES } from './field-rules';
import { IsTextList } from './text-list.decorator';

/**
 * A JSON array of `min`–`max` distinct external user IDs; the message names the first
 * offending item by index.
 */
export function AreUserIds(min: number, max: number): PropertyDecorator {
  return IsTextList({ min, max, item: USER_ID_RULES, unique: true, of: 'user IDs' });
}
