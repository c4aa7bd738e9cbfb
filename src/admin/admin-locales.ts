/**
 * The console's languages, one strings file each (src/admin-console/assets/js/i18n/<locale>.js).
 * A language added there is added here too, or no administrator can choose it.
 */
export const ADMIN_LOCALES = ['en', 'zh-CN'] as const;

export type AdminLocale = (typeof ADMIN_LOCALES)[number];

/** The stored language, or English for a value this build no longer offers. */
export const adminLocaleOf = (stored: string | null | undefined): AdminLocale =>
  (ADMIN_LOCALES as readonly string[]).includes(stored ?? '') ? (stored as AdminLocale) : 'en';
