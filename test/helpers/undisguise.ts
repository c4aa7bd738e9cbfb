/**
 * Test oracle for the scrubbing tests (unit and e2e): `text` with every disguise undone (white
 * space and invisible characters, JSON/JavaScript escapes, HTML references, percent-encoding at
 * any depth), decoded independently of the code under test.
 */
export function undisguise(text: string): string {
  let out = text;
  for (let pass = 0; pass < 8; pass++) {
    const before = out;
    out = out
      .replace(/[\s\p{Cf}\p{Default_Ignorable_Code_Point}]/gu, '')
      .replace(
        /\\+(?:u\{([0-9a-fA-F]+)\}|u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|([nrt]))/g,
        (_m, braced?: string, unit?: string, byte?: string) =>
          braced || unit || byte ? String.fromCodePoint(parseInt((braced ?? unit ?? byte) as string, 16)) : '',
      )
      .replace(/&(?:amp;)*#(?:[xX]([0-9a-fA-F]+)|(\d+));?/g, (_m, hex?: string, decimal?: string) =>
        String.fromCodePoint(hex ? parseInt(hex, 16) : Number(decimal)),
      )
      .replace(/&(?:amp;)*period;/g, '.')
      .replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
        try {
          return decodeURIComponent(run);
        } catch {
          return run.replace(/%([0-9a-fA-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
        }
      });
    if (out === before) break;
  }
  return out;
}
