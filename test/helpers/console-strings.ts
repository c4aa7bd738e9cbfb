// The admin console's strings files (ES modules served to the browser) read from Node: each is
// one `export default { ... }` object literal of plain strings, evaluated as such.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const CONSOLE_JS = join(__dirname, '../../src/admin-console/assets/js');

export function consoleStrings(locale: string): Record<string, string> {
  const text = readFileSync(join(CONSOLE_JS, 'i18n', `${locale}.js`), 'utf8');
  if (/^\s*import\b/m.test(text)) throw new Error(`i18n/${locale}.js must hold only its table`);
  return new Function(text.replace(/^export default\s*/m, 'return '))() as Record<string, string>;
}

/** The languages there are files for, by name (en, zh-CN, …). */
export const consoleLocales = (): string[] =>
  readdirSync(join(CONSOLE_JS, 'i18n'))
    .filter((f) => f.endsWith('.js'))
    .map((f) => f.slice(0, -3));
