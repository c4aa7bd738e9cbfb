import { readInteger } from './env-values';

/** The admin console: its sessions, login limits and first administrator. */
export interface AdminConfig {
  /** A session unused this long ends (sliding). */
  sessionIdleSeconds: number;
  /** A session ends this long after login however active it is. */
  sessionAbsoluteSeconds: number;
  /** Login attempts per account and per client address within `loginWindowSeconds`; more answer as a wrong password. */
  loginAttemptsPerAccount: number;
  loginAttemptsPerAddress: number;
  loginWindowSeconds: number;
  /** Creates an owner with these credentials at start when no administrator exists; null when unset. */
  bootstrap: { username: string; password: string } | null;
  /**
   * How often each instance re-reads the runtime settings (admin console → Settings): a change
   * made on one instance applies on every other within this many milliseconds.
   */
  settingsRefreshMs: number;
}

export const ADMIN_USERNAME_PATTERN = /^[a-z0-9][a-z0-9._-]{2,31}$/;
export const ADMIN_PASSWORD_MIN = 12;

export function loadAdminConfig(env: NodeJS.ProcessEnv, problems: string[]): AdminConfig {
  const sessionIdleSeconds = readInteger(env, 'ADMIN_SESSION_IDLE_SECONDS', 1800, 60, 86_400, problems);
  const sessionAbsoluteSeconds = readInteger(env, 'ADMIN_SESSION_ABSOLUTE_SECONDS', 43_200, 300, 2_592_000, problems);
  if (sessionAbsoluteSeconds < sessionIdleSeconds)
    problems.push('ADMIN_SESSION_ABSOLUTE_SECONDS must not be shorter than ADMIN_SESSION_IDLE_SECONDS');
  const password = env.ADMIN_BOOTSTRAP_PASSWORD ?? '';
  const username = env.ADMIN_BOOTSTRAP_USERNAME || 'admin';
  if (password !== '' && password.length < ADMIN_PASSWORD_MIN)
    problems.push(`ADMIN_BOOTSTRAP_PASSWORD must be at least ${ADMIN_PASSWORD_MIN} characters`);
  if (!ADMIN_USERNAME_PATTERN.test(username))
    problems.push('ADMIN_BOOTSTRAP_USERNAME must be 3-32 characters of a-z, 0-9, ".", "_" or "-"');
  return {
    sessionIdleSeconds,
    sessionAbsoluteSeconds,
    loginAttemptsPerAccount: readInteger(env, 'ADMIN_LOGIN_ATTEMPTS_PER_ACCOUNT', 10, 1, 1000, problems),
    loginAttemptsPerAddress: readInteger(env, 'ADMIN_LOGIN_ATTEMPTS_PER_ADDRESS', 50, 1, 100_000, problems),
    loginWindowSeconds: readInteger(env, 'ADMIN_LOGIN_WINDOW_SECONDS', 900, 10, 86_400, problems),
    bootstrap: password ? { username, password } : null,
    settingsRefreshMs: readInteger(env, 'SETTINGS_REFRESH_MS', 2000, 100, 60_000, problems),
  };
}
