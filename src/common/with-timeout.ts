/**
 * `work`'s answer, or `fallback` when it has not answered within `ms` or failed. The work itself
 * is not cancelled: use it for checks whose late answer can be ignored.
 */
export async function withTimeout<T>(ms: number, fallback: T, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  try {
    return await Promise.race([work().catch(() => fallback), late]);
  } finally {
    clearTimeout(timer);
  }
}
