/**
 * The before-send hook (WEBHOOK_BEFORE_SEND_URL): the JSON body the service POSTs to the host
 * before a user's message is stored, and the answers it understands. Every ID is an external one.
 */

/** The conversation the message is sent into. */
export type BeforeSendConversation =
  | {
      type: 'direct';
      /** The conversation's ID as the sender names it (`friend_…`). */
      conversation_id: string;
      /** External user ID of the other member. */
      peer_id: string;
    }
  | {
      type: 'group';
      /** `group_<group_id>`. */
      conversation_id: string;
      group_id: string;
    };

export interface BeforeSendRequest {
  type: 'message.before_send';
  data: {
    /** External user ID of the sender. */
    sender_id: string;
    conversation: BeforeSendConversation;
    message: {
      /** `text`, `image`, `file` or `custom`. */
      type: string;
      /**
       * The content as it would be stored: the client's fields after validation (unknown ones
       * dropped), and for `image` and `file` the upload's `mime_type`, `size`, `file_name` and `url`.
       */
      content: Record<string, unknown>;
      client_message_id: string;
    };
  };
}

/**
 * The host's answer (HTTP 2xx, JSON). `replace` carries new content of the message's own type,
 * in the form a client sends it (`{text}`, `{media_id, width?, height?}`, `{media_id}`,
 * `{data, description?}`), validated like a client's.
 */
export type BeforeSendAnswer =
  { action: 'allow' } | { action: 'reject'; reason?: string } | { action: 'replace'; content: Record<string, unknown> };
