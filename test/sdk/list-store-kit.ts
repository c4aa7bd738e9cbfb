// The conversation list store's unit specs share this: a fresh store over fake deps for each
// test, items and events built by hand (sdk/web/src/stores/conversation-list-*.spec.ts).
import type { ConversationItem } from '../../src/contract/index';
import type { ServerEventOf } from '../../sdk/web/src/events';
import { ConversationListStore } from '../../sdk/web/src/stores/conversation-list-store';
import { FakeStoreDeps, item, message, page, settle } from './store-fakes';

export const group = (id: string, fields: Partial<ConversationItem> = {}) => item(`group_${id}`, fields);
export const direct = (peer: string, fields: Partial<ConversationItem> = {}) => item(`friend_${peer}`, fields);

/** A group as group events carry it. */
export const groupSummary = (id: string, name: string) => ({
  group_id: id,
  conversation_id: `group_${id}`,
  name,
  avatar: `https://avatar.test/${name}.png`,
  introduction: '',
  owner_user_id: 'owner',
  member_count: 3,
  created_at: 1,
  updated_at: 2,
  dismissed: false,
});

export interface ListKit {
  deps: FakeStoreDeps;
  store: ConversationListStore;
  /** The conversation IDs shown, in order. */
  ids(): string[];
  /** A recovery with this first page answered. */
  loaded(items: ConversationItem[], options?: Parameters<typeof page>[1]): Promise<void>;
  /** A group message of `sender` at `seq`. */
  groupMessage(id: string, seq: string, sender?: string, at?: number): ServerEventOf<'message.new'>;
  /** A one-to-one message from (or to) `peer` at `seq`, with the recipient's exact unread. */
  directMessage(peer: string, seq: string, unread: number, sender?: string, at?: number): ServerEventOf<'message.new'>;
}

/** Registers a beforeEach that gives the kit a fresh store and deps. */
export function useListStore(): ListKit {
  const kit = {
    ids: () => kit.store.getSnapshot().items.map((i) => i.conversation_id),
    async loaded(items, options = {}) {
      kit.deps.sdk('recover', { reasons: ['login'] });
      kit.deps.lists[kit.deps.lists.length - 1].answer(page(items, options));
      await settle();
    },
    groupMessage(id, seq, sender = 'someone', at = 5_000) {
      return kit.deps.event('message.new', {
        conversation_id: `group_${id}`,
        unread: null,
        by: sender,
        message: message({
          conversation_id: `group_${id}`,
          conversation_seq: seq,
          sender_id: sender,
          created_at: at,
          updated_at: at,
        }),
      });
    },
    directMessage(peer, seq, unread, sender = peer, at = 5_000) {
      return kit.deps.event('message.new', {
        conversation_id: `friend_${peer}`,
        unread,
        by: sender,
        message: message({ conversation_seq: seq, sender_id: sender, created_at: at, updated_at: at }),
      });
    },
  } as ListKit;
  beforeEach(() => {
    kit.deps = new FakeStoreDeps();
    kit.store = new ConversationListStore(kit.deps);
  });
  return kit;
}
