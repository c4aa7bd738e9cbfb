// Checks shared by the push providers' settings (src/config/push/*-config.ts).

/** Reads an optional CA file for a provider; a problem (naming the variable) when it cannot be read. */
export function readCaFile(
  variable: string,
  path: string | undefined,
  read: (path: string) => string,
  problems: string[],
): string | null {
  if (!path) return null;
  try {
    const pem = read(path);
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
      problems.push(`${variable} (${path}) does not contain a PEM certificate`);
      return null;
    }
    return pem;
  } catch (error) {
    problems.push(`${variable} (${path}) cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    return null;
  }
}

/** Checks an endpoint variable: an https URL without credentials in it. */
export function checkHttpsUrl(variable: string, value: string, problems: string[]): string {
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:') problems.push(`${variable} must be an https:// URL`);
    if (url.username || url.password) problems.push(`${variable} must not contain credentials`);
  } catch {
    problems.push(`${variable} is not a valid URL`);
  }
  return value.replace(/\/+$/, '');
}
