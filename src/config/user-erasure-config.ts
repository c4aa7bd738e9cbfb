/** The server API's user erasure (POST /app/server/users/erase). */
export interface UserErasureConfig {
  /**
   * ERASE_KEEPS_MESSAGES: true keeps an erased user's messages, shown under the anonymised
   * profile; false (the default) turns each into a tombstone, as a delete for everyone would,
   * and deletes their uploads.
   */
  keepsMessages: boolean;
}

export function loadUserErasureConfig(env: NodeJS.ProcessEnv, problems: string[]): UserErasureConfig {
  const raw = env.ERASE_KEEPS_MESSAGES;
  if (raw === undefined || raw === '') return { keepsMessages: false };
  if (raw !== 'true' && raw !== 'false') {
    problems.push(`ERASE_KEEPS_MESSAGES must be true or false (got "${raw.slice(0, 20)}")`);
    return { keepsMessages: false };
  }
  return { keepsMessages: raw === 'true' };
}
