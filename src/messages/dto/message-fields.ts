import { TextRules } from '../../common/validation/text-field.decorator';

export const CONVERSATION_ID_RULES: TextRules = { min: 1, max: 256, noControl: true };
/** A sequence or ID position as a decimal string; "0" allowed where it means "before the first". */
export const SEQ_RULES: TextRules = {
  min: 1,
  max: 19,
  pattern: { regex: /^(0|[1-9][0-9]{0,18})$/, description: 'a decimal string (no sign, no leading zero)' },
};
export const MID_RULES: TextRules = {
  min: 1,
  max: 19,
  pattern: { regex: /^[1-9][0-9]{0,18}$/, description: 'a positive decimal string' },
};
export const CLIENT_MESSAGE_ID_RULES: TextRules = {
  min: 1,
  max: 64,
  pattern: { regex: /^[A-Za-z0-9._:-]+$/, description: 'letters, digits, ".", "_", ":" or "-"' },
};
