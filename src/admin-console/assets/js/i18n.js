// The console's strings: one table per language (i18n/en.js, i18n/zh-CN.js), chosen per
// administrator (their account's locale). A key missing from a language falls back to English.
import en from './i18n/en.js';
import zhCN from './i18n/zh-CN.js';

const TABLES = { en, 'zh-CN': zhCN };

/** The languages an administrator can choose, each named in itself. */
export const LOCALES = [
  ['en', 'English'],
  ['zh-CN', '简体中文'],
];

let current = 'en';

export function setLocale(locale) {
  current = Object.hasOwn(TABLES, locale) ? locale : 'en';
  document.documentElement.lang = current;
}

export const currentLocale = () => current;

/** The string for `key` in the administrator's language, with `{name}` placeholders filled from `params`. */
export function t(key, params = {}) {
  const text = TABLES[current][key] ?? en[key];
  if (text === undefined) return key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (Object.hasOwn(params, name) ? String(params[name]) : whole));
}
