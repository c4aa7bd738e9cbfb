import type { SyncReply, UnreadTotals } from '../../../../src/contract/index.js';
import { Coalescer } from '../coalescer.js';
import { ImError } from '../errors.js';
import type { ConversationListItem } from './list-item-updates.js';
import { ListEvent, ListNeed, ListState } from './list-state.js';
import { Observable } from './observable.js';
import type { StoreDeps } from './store-deps.js';

export type { ConversationListItem } from './list-item-updates.js';

/** Where the first page stands: not asked yet, on its way (nothing shown yet), shown, or its last load failed. */
export type ConversationListStatus = 'idle' | 'loading' | 'ready' | 'error';

/** What {@link ConversationListStore} shows: a new object at every change. */
export interface ConversationListSnapshot {
  /** The home list in display order: pinned first, then by last activity. Hidden conversations are left out. */
  items: readonly ConversationListItem[];
  /**
   * Unread over all the user's conversations (not only the pages loaded): `total_unmuted` is
   * the badge (muted conversations left out). Exact, not capped (the client's `badge` is the
   * capped form).
   */
  unread: UnreadTotals;
  /** Where the first page stands (see {@link ConversationListStatus}). */
  status: ConversationListStatus;
  /** Why the last load of the first page failed; null after a success. */
  error: ImError | null;
  /** More conversations exist after the loaded pages: {@link ConversationListStore.loadMore}. */
  hasMore: boolean;
  /** A {@link ConversationListStore.loadMore} is under way. */
  loadingMore: boolean;
  /** A first page is on its way (a recovery or a pull to refresh); the items shown stay meanwhile. */
  refreshing: boolean;
}

/** How a first page is taken in: `replace` (recovery) or `merge` (a conversation the list did not hold). */
type PageMode = 'replace' | 'merge';

const EMPTY: ConversationListSnapshot = Object.freeze({
  items: Object.freeze([]) as readonly ConversationListItem[],
  unread: Object.freeze({ total: 0, total_unmuted: 0 }),
  status: 'idle',
  error: null,
  hasMore: false,
  loadingMore: false,
  refreshing: false,
});

/** `unread` replies in a row that crossed events moving unread before the store waits for the next trigger. */
const RECALIBRATION_TRIES = 3;

/** The server events that move the list. */
const LIST_EVENTS = [
  'message.new',
  'message.recalled',
  'message.deleted',
  'conversation.read',
  'conversation.updated',
  'group.created',
  'group.updated',
  'group.owner_transferred',
  'group.dismissed',
  'group.members_added',
  'group.members_removed',
  'group.member_left',
  'group.member_joined',
  'friend.added',
  'user.profile_updated',
] as const;

/**
 * The home list kept current from events, as an application binds to it (React:
 * `useSyncExternalStore(store.subscribe, store.getSnapshot)`).
 *
 * - Loads the first page (`sync`) at each recovery the client runs (login, reconnect,
 *   foreground, online; spec 4.7), so the list converges to the service's: after login or a
 *   connection that did not resume (events may have been missed) it replaces the list; after
 *   a resumed one it is merged, keeping the pages loaded after the first. More pages on demand
 *   ({@link loadMore}).
 * - Between loads, events move it: `message.new` / `recalled` / `deleted` (last message,
 *   order, unread), `conversation.read`, `conversation.updated` (pin, mute, hide), group events
 *   (name and avatar; leaving, removal and dismissal make the user a former member, whose
 *   last message and unread of that time stay), `user.profile_updated` (a peer's name and
 *   avatar), and the local echo of this client's sends (`message.pending` / `failed`) as the
 *   item's `pending` preview.
 * - Events that arrive while a first page is on its way are applied again on top of it, so an
 *   older page never overwrites a newer message (spec 4.7 rule 6). Duplicates and events
 *   already in the page change nothing (by sequence, content version and read position).
 * - What events cannot say is asked, not guessed: a conversation the list does not hold (a new
 *   friend or group, a hidden one that came back, one beyond the loaded pages) reloads the
 *   first page and merges it; an unread change it cannot compute asks `unread` for the
 *   absolute values.
 * - `friend.deleted` and `friend.blocked` leave the list as the service does: the one-to-one
 *   conversation and its history stay.
 */
export class ConversationListStore extends Observable<ConversationListSnapshot> {
  private state: ListState;
  private cursor: string | null = null;
  private status: ConversationListStatus = 'idle';
  private error: ImError | null = null;
  private hasMore = false;
  /** `loadMore` brought pages after the first since the first was last replaced: a merge keeps their cursor. */
  private loadedBeyondFirst = false;
  /** Changes at reset: replies of an earlier login are dropped. */
  private generation = 0;
  /** Changes with every first page that replaced the list: a `loadMore` started before it is dropped. */
  private replaceEpoch = 0;
  /**
   * Events may have been missed since the list was last replaced: at login, and after a
   * connection that did not resume (`connection.ready` with `resumed: false`). A recovery then
   * replaces the list; otherwise the stream was whole and it merges, keeping the pages loaded
   * after the first.
   */
  private missedEvents = true;
  /** Events received while a first page is on its way, applied again on top of it. */
  private replay: ListEvent[] | null = null;
  private readonly firstPage = new Coalescer<PageMode>((modes) => {
    const run = this.loadFirstPage(modes.includes('replace') ? 'replace' : 'merge');
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.firstPageLoading = settled;
    this.publish();
    void settled.then(() => {
      if (this.firstPageLoading === settled) this.firstPageLoading = null;
      this.publish();
    });
    return run;
  });
  /** The first page on its way (settles, never rejects), or null. */
  private firstPageLoading: Promise<void> | null = null;
  private more: Promise<void> | null = null;
  private readonly recalibration = new Coalescer<true>(() => this.recalibrateNow());

  /**
   * The client makes its stores (`client.conversationList`, `presence`, `typing`, `callState`).
   * @hidden
   */
  constructor(private readonly deps: StoreDeps) {
    super(EMPTY);
    this.state = new ListState(deps.userId);
    deps.on('connection.ready', (ready) => {
      if (!ready.resumed) this.missedEvents = true;
    });
    deps.on('recover', () => {
      void this.firstPage.trigger(this.missedEvents ? 'replace' : 'merge').catch(() => undefined);
    });
    for (const type of LIST_EVENTS) deps.on(type, (event) => this.onEvent(event));
    deps.on('message.pending', (message) => this.changed(() => this.state.local(message)));
    deps.on('message.failed', (message) => this.changed(() => this.state.local(message)));
    deps.on('message.sent', ({ local }) => this.changed(() => this.state.sent(local)));
    deps.on('message.discarded', (message) => this.changed(() => this.state.sent(message)));
  }

  /**
   * Loads the first page again (`sync`) and replaces the list with it; the client does this at
   * every recovery, so an app calls it only for pull to refresh. Calls while one runs share it
   * (at most one more follows). Rejects with the load's error, which the snapshot also holds.
   */
  load(): Promise<void> {
    return this.firstPage.trigger('replace');
  }

  /**
   * Loads the next page after those shown (nothing when {@link ConversationListSnapshot.hasMore}
   * is false); after a first page that is on its way, which decides where the next one starts.
   * Calls while one runs share it.
   */
  loadMore(): Promise<void> {
    if (this.more) return this.more;
    if (this.status === 'idle') return Promise.resolve();
    const generation = this.generation;
    this.more = this.nextPage(generation).finally(() => {
      if (generation !== this.generation) return;
      this.more = null;
      this.publish();
    });
    this.publish();
    return this.more;
  }

  /** One conversation as the list holds it (hidden ones too), or undefined. */
  get(conversationId: string): ConversationListItem | undefined {
    return this.state.get(conversationId);
  }

  /** Forgets everything (logout, or another user logged in); replies still on their way are dropped. */
  reset(): void {
    this.generation += 1;
    this.state = new ListState(this.deps.userId);
    this.cursor = null;
    this.status = 'idle';
    this.error = null;
    this.hasMore = false;
    this.loadedBeyondFirst = false;
    this.missedEvents = true;
    this.replay = null;
    this.more = null;
    this.firstPageLoading = null;
    this.set(EMPTY);
  }

  private async nextPage(generation: number): Promise<void> {
    while (this.firstPageLoading && generation === this.generation) await this.firstPageLoading;
    if (generation !== this.generation || !this.hasMore || this.cursor === null) return;
    const epoch = this.replaceEpoch;
    const page = await this.deps.conversations.list({ cursor: this.cursor });
    // A list replaced meanwhile starts again from its own first page.
    if (generation !== this.generation || epoch !== this.replaceEpoch) return;
    this.state.takeMorePage(page);
    this.cursor = page.conversations.next_cursor;
    this.hasMore = page.conversations.has_more;
    this.loadedBeyondFirst = true;
  }

  private async loadFirstPage(mode: PageMode): Promise<void> {
    const generation = this.generation;
    this.replay = [];
    // A connection that fails to resume from now on is caught by the next recovery.
    if (mode === 'replace') this.missedEvents = false;
    if (this.status === 'idle') {
      this.status = 'loading';
      this.publish();
    }
    let page: SyncReply;
    try {
      page = await this.deps.conversations.list();
    } catch (error) {
      if (generation !== this.generation) return;
      // The events that came meanwhile were applied as they came; there is no page to apply them to again.
      this.replay = null;
      if (mode === 'replace') this.missedEvents = true;
      this.status = 'error';
      this.error = error instanceof ImError ? error : new ImError('network', 0, String(error));
      this.publish();
      throw this.error;
    }
    if (generation !== this.generation) return;
    const buffered = this.replay ?? [];
    this.replay = null;
    this.state.takeFirstPage(page, mode);
    if (mode === 'replace' || !this.loadedBeyondFirst) {
      this.cursor = page.conversations.next_cursor;
      this.hasMore = page.conversations.has_more;
      this.loadedBeyondFirst = false;
    }
    if (mode === 'replace') this.replaceEpoch += 1;
    this.status = 'ready';
    this.error = null;
    for (const event of buffered) this.settle(this.state.apply(event), true);
    this.publish();
  }

  private onEvent(event: ListEvent): void {
    this.replay?.push(event);
    // Before the first load, the first page will hold it.
    if (this.status === 'idle') return;
    this.settle(this.state.apply(event), false);
    this.publish();
  }

  /**
   * Asks the service what an event left open. `replayed`: the event was applied again on top of
   * a first page that was on its way when it came.
   */
  private settle(need: ListNeed, replayed: boolean): void {
    // A first page on its way answers all of it; the event is applied again on top of it.
    if (need === null || (this.replay && !replayed)) return;
    if (need === 'unread') this.recalibrate();
    else void this.firstPage.trigger('merge').catch(() => undefined);
  }

  private recalibrate(): void {
    void this.recalibration.trigger(true).catch(() => undefined);
  }

  /** `unread` (absolute) into the list; asked again when an event moved unread while it was on its way. */
  private async recalibrateNow(): Promise<void> {
    const generation = this.generation;
    for (let attempt = 0; attempt < RECALIBRATION_TRIES; attempt += 1) {
      const epoch = this.state.unreadEpoch;
      const reply = await this.deps.conversations.unread();
      if (generation !== this.generation) return;
      if (epoch !== this.state.unreadEpoch) continue;
      this.state.takeUnread(reply);
      this.publish();
      return;
    }
  }

  private changed(change: () => void): void {
    if (this.status === 'idle') return;
    change();
    this.publish();
  }

  /** A new snapshot, when anything shown changed; unchanged parts keep their identity. */
  private publish(): void {
    const current = this.getSnapshot();
    const shown = this.state.shown();
    const unread = this.state.unread;
    const sameItems =
      current.items.length === shown.length && current.items.every((item, index) => item === shown[index]);
    const next: ConversationListSnapshot = {
      items: sameItems ? current.items : shown,
      unread:
        current.unread.total === unread.total && current.unread.total_unmuted === unread.total_unmuted
          ? current.unread
          : unread,
      status: this.status,
      error: this.error,
      hasMore: this.hasMore,
      loadingMore: this.more !== null,
      refreshing: this.firstPageLoading !== null,
    };
    const unchanged = (Object.keys(next) as Array<keyof ConversationListSnapshot>).every(
      (key) => next[key] === current[key],
    );
    if (!unchanged) this.set(next);
  }
}
