// The console's strings files (issue 25): every language has exactly English's keys, with the
// same {placeholders}, none empty, none given twice; every key the pages ask t() for exists.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { CONSOLE_JS, consoleLocales, consoleStrings } from '../../test/helpers/console-strings';
import { ADMIN_LOCALES } from '../admin/admin-locales';

const placeholders = (text: string): string[] => [...new Set(text.match(/\{\w+\}/g) ?? [])].sort();

function scripts(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'i18n' ? [] : scripts(path);
    return name.endsWith('.js') ? [path] : [];
  });
}

describe('admin console strings', () => {
  const en = consoleStrings('en');
  const others = consoleLocales().filter((locale) => locale !== 'en');

  it('has a strings file for exactly the languages an administrator may choose', () => {
    expect(consoleLocales().sort()).toEqual([...ADMIN_LOCALES].sort());
    const i18n = readFileSync(join(CONSOLE_JS, 'i18n.js'), 'utf8');
    for (const locale of ADMIN_LOCALES) expect(i18n).toContain(`['${locale}',`);
  });

  it.each(consoleLocales())('%s: no empty string, no key given twice', (locale) => {
    const table = consoleStrings(locale);
    expect(Object.entries(table).filter(([, text]) => typeof text !== 'string' || text.trim() === '')).toEqual([]);
    const text = readFileSync(join(CONSOLE_JS, 'i18n', `${locale}.js`), 'utf8');
    const keys = [...text.matchAll(/^\s*['"]([^'"]+)['"]:/gm)].map((m) => m[1]);
    expect(keys.filter((key, i) => keys.indexOf(key) !== i)).toEqual([]);
    expect(keys.length).toBe(Object.keys(table).length);
  });

  it.each(others)('%s has the same keys as English, with the same placeholders', (locale) => {
    const table = consoleStrings(locale);
    expect(Object.keys(table).filter((key) => !(key in en))).toEqual([]);
    expect(Object.keys(en).filter((key) => !(key in table))).toEqual([]);
    const differing = Object.keys(en)
      .filter((key) => key in table)
      .filter((key) => placeholders(en[key]).join() !== placeholders(table[key]).join())
      .map((key) => `${key}: ${placeholders(en[key]).join()} vs ${placeholders(table[key]).join()}`);
    expect(differing).toEqual([]);
  });

  it('zh-CN is translated: no value is the English one except names and codes', () => {
    const zh = consoleStrings('zh-CN');
    // Brand and protocol names, identifiers and bare placeholders read the same in Chinese.
    const same = Object.keys(en).filter(
      (key) => zh[key] === en[key] && /[a-z]{4,}/.test(en[key].replace(/\{\w+\}/g, '')),
    );
    expect(same).toEqual([]);
  });

  it("every literal key the console's scripts pass to t() exists in English", () => {
    const missing: string[] = [];
    for (const file of scripts(CONSOLE_JS)) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/\bt\(\s*(['"])([^'"]+)\1/g))
        if (!(match[2] in en)) missing.push(`${relative(CONSOLE_JS, file)}: ${match[2]}`);
      // The shell's page titles are keys too, looked up when shown.
      for (const match of text.matchAll(/\btitle:\s*'((?:shell|[a-z-]+)\.[\w.-]+)'/g))
        if (!(match[1] in en)) missing.push(`${relative(CONSOLE_JS, file)}: ${match[1]}`);
    }
    expect(missing).toEqual([]);
  });
});
