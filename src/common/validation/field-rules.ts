import { TextRules } from './text-field.decorator';

/** Field rules shared by several DTOs (spec 2.1, 2.3, 8). */
export const USER_ID_RULES: TextRules = { min: 1, max: 64, noControl: true, noEdgeWhitespace: true };
export const NICKNAME_RULES: TextRules = { min: 1, max: 80, noControl: true, noEdgeWhitespace: true };
/** '' is accepted where the field is optional and means "no username". */
export const USERNAME_RULES: TextRules = { min: 0, max: 64, noControl: true, noEdgeWhitespace: true };
export const AVATAR_RULES: TextRules = {
  min: 0,
  max: 1024,
  noControl: true,
  pattern: {
    regex: /^https?:\/\/[^\s]+$/i,
    description: 'an http(s) URL without spaces, or empty for the default avatar',
  },
};
export const SIGNATURE_RULES: TextRules = { min: 0, max: 255, noControl: true };
export const GROUP_ID_RULES: TextRules = {
  min: 1,
  max: 32,
  pattern: { regex: /^[A-Za-z0-9._-]+$/, description: '1–32 characters of letters, digits, ".", "_" or "-"' },
};
