import type { SyncReply } from '../../../src/contract/index.js';
import type { AuthSession } from './auth-session.js';
import type { SyncPage } from './client-types.js';
import type { ImMessage } from './conversation-window.js';
import { isHomePage, withTombstone } from './home-cache.js';
import type { StateStore } from './state-store.js';

/** The readable cache's keys of the current login's user; writes of an earlier login are dropped. */
export interface LoginKeys {
  prefix: string;
  save(key: string, value: unknown): void;
}

export function loginKeys(store: StateStore, session: AuthSession): LoginKeys | null {
  const user = session.user?.user_id;
  const generation = session.generation;
  return user === undefined
    ? null
    : {
        prefix: `${user}/`,
        save: (key, value) => {
          if (generation === session.generation) void store.save(`${user}/${key}`, value).catch(() => undefined);
        },
      };
}

/** The last first `sync` page of the login, kept in the readable cache and patched by tombstones in order. */
export class CachedHome {
  private home: { generation: number; page: SyncPage } | null = null;

  constructor(
    private readonly store: StateStore,
    private readonly session: AuthSession,
  ) {}

  /** A first page of the home list, as the service answered it. */
  save(page: SyncPage): void {
    const keys = loginKeys(this.store, this.session);
    if (!keys) return;
    this.home = { generation: this.session.generation, page };
    keys.save('home', page);
  }

  /** The page as last saved for this user (before any network after a reload). */
  async load(): Promise<SyncReply | undefined> {
    const keys = loginKeys(this.store, this.session);
    return keys ? ((await this.store.load(`${keys.prefix}home`)) as SyncReply | undefined) : undefined;
  }

  /**
   * A tombstone into the cached page (see withTombstone). The page in memory is patched at once
   * so that patches and a `sync` landing meanwhile save in order; before the first `sync` of
   * this login, the stored page (from before a reload) is read first.
   */
  patch(conversationId: string, message: ImMessage): void {
    const keys = loginKeys(this.store, this.session);
    if (!keys) return;
    const generation = this.session.generation;
    const apply = (page: SyncPage) => {
      const next = withTombstone(page, conversationId, message);
      if (!next) return;
      this.home = { generation, page: next };
      keys.save('home', next);
    };
    if (this.home?.generation === generation) return apply(this.home.page);
    void this.store
      .load(`${keys.prefix}home`)
      .then((stored) => {
        if (generation !== this.session.generation) return;
        if (this.home?.generation === generation) apply(this.home.page);
        else if (isHomePage(stored)) apply(stored as SyncPage);
      })
      .catch(() => undefined);
  }

  reset(): void {
    this.home = null;
  }
}
