import { Injectable, Logger } from '@nestjs/common';

/** Why a user's live sessions end: disabled (1003) or their tokens revoked (1102). */
export type AccessChange = 'disabled' | 'revoked';

/**
 * Tells whoever holds live sessions (the real-time gateway) that a user's access changed, so
 * their connections close at once rather than at the next periodic check.
 */
@Injectable()
export class UserAccessEvents {
  private readonly logger = new Logger('UserAccessEvents');
  private readonly listeners: Array<(userId: string, change: AccessChange, msg?: string) => void> = [];

  subscribe(listener: (userId: string, change: AccessChange, msg?: string) => void): void {
    this.listeners.push(listener);
  }

  /** `msg`: for a disable, what the user's client is told (the operator's reason, when given). */
  changed(userId: string, change: AccessChange, msg?: string): void {
    for (const listener of this.listeners) {
      try {
        listener(userId, change, msg);
      } catch (error) {
        this.logger.error(`an access listener failed: ${(error as Error).message}`);
      }
    }
  }
}
