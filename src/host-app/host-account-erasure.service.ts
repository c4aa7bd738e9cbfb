import { Inject, Injectable } from '@nestjs/common';
import { HostAccountsRepository } from './host-accounts.repository';
import { HostSessionStore } from './host-session-store';

/**
 * The bundled host application's side of erasing an IM user (server API): the account linked
 * to that user (phone number, password hash, nickname) is deleted with every session of it, so
 * nobody stays signed in and the phone number may sign up again as a new user.
 */
@Injectable()
export class HostAccountErasure {
  constructor(
    private readonly accounts: HostAccountsRepository,
    @Inject(HostSessionStore) private readonly sessions: HostSessionStore,
  ) {}

  /** Whether an account was linked to the user (by their external ID before anonymisation). */
  async deleteLinkedTo(imUserId: string): Promise<boolean> {
    const account = await this.accounts.findByImUserId(imUserId);
    if (!account) return false;
    // Sessions first: a failure in between leaves an account nobody is signed in to.
    await this.sessions.deleteOfAccount({ id: account.id, imUserId: account.imUserId });
    await this.accounts.deleteById(account.id);
    return true;
  }
}
