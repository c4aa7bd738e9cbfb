/**
 * Reconnect delays as Stream's clients do it: from 0.25 s doubling to a 25 s cap, each drawn at
 * random from the upper half of its range, so clients that lost the connection together do not
 * come back together.
 */
export function reconnectDelay(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(25_000, 250 * 2 ** Math.min(attempt, 10));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Waits for a 1005 (too fast): 0.5, 1 and 2 s with jitter; after that the error reaches the app. */
export const TOO_FAST_RETRIES = 3;
export function tooFastDelay(attempt: number, random: () => number = Math.random): number {
  const base = 500 * 2 ** attempt;
  return Math.round(base * (0.75 + random() * 0.5));
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
