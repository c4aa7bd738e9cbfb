// The open conversation: its window (spec 4.7, kept by the SDK), the local echo of sends, read
// marks, typing, images, recall, and the send form. A refused message's text goes back into
// the input; one that could not reach the service stays as "Not sent" and goes again when the
// connection is back (same client_message_id: the service stores it once).
import { $, attempt, avatar, clearStatus, fill, h, presenceDot, problem, say } from './dom.js';
import { localMessage, storedMessage } from './message-view.js';

/** How long a failed send waits before it goes again while the connection is up. */
const RETRY_MS = 5000;

/** Errors that sending again cannot fix: the text goes back to the input instead. */
const REFUSALS = new Set(['rejected', 'invalid', 'disabled', 'auth', 'identity_changed']);

export function createChat(app) {
  const { client, people } = app;
  const peerRead = new Map();
  const imageUrls = new Map();
  /** Failed sends found stored after all, sent again once to settle them. */
  const settling = new Set();
  let open = null;

  client.on('conversation.peer_read', ({ data }) => {
    const seq = BigInt(data.read_seq);
    if (seq > (peerRead.get(data.conversation_id) ?? 0n)) peerRead.set(data.conversation_id, seq);
    if (open?.conversation.conversation_id === data.conversation_id) render();
  });
  /** Conversations where a send of this page failed: their failed sends go again on reconnect. */
  const failedIn = new Set();
  const onLocal = (message) => {
    if (message.status === 'failed') failedIn.add(message.conversation_id);
    if (open?.conversation.conversation_id === message.conversation_id) render();
  };
  client.on('message.pending', onLocal);
  client.on('message.failed', onLocal);
  client.on('message.sent', ({ local }) => onLocal(local));
  // Sends that could not reach the service go again once it is back, and again a little later
  // while it still fails them (a service that has just started may not answer everything yet).
  let later = null;
  function retryFailed() {
    clearTimeout(later);
    later = null;
    if (app.ended) return;
    for (const conversationId of failedIn) for (const message of failedRetryable(conversationId)) void retry(message);
  }
  function retryLater() {
    if (later !== null || app.ended) return;
    later = setTimeout(() => {
      later = null;
      // Offline, the connection's return retries them.
      if (client.connected) retryFailed();
    }, RETRY_MS);
  }
  client.on('connection.ready', retryFailed);
  people.subscribe(() => open && render());
  client.presence.subscribe(() => open && renderHeader());
  client.typing.subscribe(() => open && renderTyping());

  function failedRetryable(conversationId) {
    return client.messages.pending(conversationId).filter((m) => m.status === 'failed' && !REFUSALS.has(m.error?.kind));
  }

  /** Shows a conversation: `{conversation_id, type, title, avatar, peer_user_id, group_id}`. */
  function show(conversation) {
    close();
    const list = h('ol', { id: 'messages', 'aria-label': 'Messages' });
    const input = h('input', { name: 'text', 'aria-label': 'Message', autocomplete: 'off' });
    input.addEventListener('input', () => {
      if (input.value.trim()) void client.typing.notify(conversation.conversation_id);
    });
    const form = h(
      'form',
      { class: 'send', 'aria-label': 'Send a message' },
      input,
      h('button', { type: 'submit' }, 'Send'),
      h(
        'label',
        { class: 'image' },
        'Send an image',
        h('input', { type: 'file', name: 'image', accept: 'image/*', onchange: (e) => sendImage(e.target) }),
      ),
      h('progress', { id: 'upload', max: 100, value: 0, 'aria-label': 'Upload', hidden: true }),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void sendText(input);
    });
    const older = h(
      'button',
      { type: 'button', class: 'link older', hidden: true, onclick: loadOlder },
      'Older messages',
    );
    $('chat').replaceChildren(
      h('div', { id: 'chat-head' }),
      h('div', { id: 'chat-extra' }),
      older,
      list,
      h('p', { id: 'typing', 'aria-live': 'polite' }),
      form,
    );
    const opened = { conversation, list, older, input, state: null, window: null };
    open = opened;
    opened.window = client.openWindow(conversation.conversation_id, (state) => {
      if (open !== opened) return;
      opened.state = state;
      render();
    });
    renderHeader();
    renderTyping();
    app.onChatOpened?.(conversation);
  }

  function close() {
    if (open) client.closeWindow(open.window);
    open = null;
    $('chat').replaceChildren(h('p', { class: 'empty' }, 'Pick a conversation, or find friends in Contacts.'));
  }

  function renderHeader() {
    if (app.ended) return;
    const c = open.conversation;
    const presence = c.type === 'direct' && c.peer_user_id ? client.presence.get(c.peer_user_id) : undefined;
    fill(
      $('chat-head'),
      h('button', { type: 'button', class: 'back', onclick: () => app.showList() }, 'Back'),
      avatar(c.title, c.avatar, 'medium'),
      h('h2', { id: 'chat-title', tabindex: -1 }, c.title || c.conversation_id, ' ', presenceDot(presence)),
      h(
        'button',
        { type: 'button', onclick: () => app.calls.start(c.conversation_id), disabled: c.is_member === false },
        'Audio call',
      ),
      c.type === 'group'
        ? h(
            'button',
            {
              type: 'button',
              id: 'members-toggle',
              'aria-controls': 'chat-extra',
              'aria-expanded': String(app.groups.isOpen(c)),
              onclick: () => app.groups.toggle(c),
            },
            'Members',
          )
        : null,
    );
  }

  function renderTyping() {
    if (app.ended) return;
    const c = open.conversation;
    const who = client.typing.usersIn(c.conversation_id).filter((id) => id !== app.me);
    const names = who.map((id) => people.name(id));
    $('typing').textContent =
      names.length === 0 ? '' : names.length === 1 ? `${names[0]} is typing…` : `${names.join(', ')} are typing…`;
  }

  function render() {
    if (app.ended) return;
    const { list, state, conversation, older } = open;
    const stored = state?.messages ?? [];
    const view = {
      me: app.me,
      people,
      isGroup: conversation.type === 'group',
      peerReadSeq: peerRead.get(conversation.conversation_id) ?? 0n,
      image,
      recall,
      retry,
      discard,
    };
    // Stay at the newest message when the reader was there (or has just sent one).
    const atEnd = list.scrollHeight - list.scrollTop - list.clientHeight < 48;
    // A send whose reply was lost may be stored all the same (its message arrived by the real-time
    // connection): shown once, and sent again under its ID, which settles it with the stored one.
    const storedIds = new Set(stored.filter((m) => m.sender_id === app.me).map((m) => m.client_message_id));
    const local = client.messages.pending(conversation.conversation_id).filter((m) => {
      if (!storedIds.has(m.client_message_id)) return true;
      if (m.status === 'failed' && client.connected && !settling.has(m.client_message_id)) {
        settling.add(m.client_message_id);
        void retry(m);
      }
      return false;
    });
    list.replaceChildren(...stored.map((m) => storedMessage(m, view)), ...local.map((m) => localMessage(m, view)));
    older.hidden = !state?.hasMoreBefore;
    if (atEnd || list.dataset.rendered !== 'yes') list.scrollTop = list.scrollHeight;
    list.dataset.rendered = 'yes';
    const last = stored.at(-1);
    if (last && document.visibilityState === 'visible')
      void open.window.markSeen(BigInt(last.conversation_seq)).catch(() => undefined);
  }

  async function loadOlder() {
    const first = open.list.firstElementChild;
    await attempt(() => open.window.loadOlder());
    first?.scrollIntoView();
  }

  async function sendText(input) {
    const text = input.value.trim();
    if (!text) return;
    const conversationId = open.conversation.conversation_id;
    const id = crypto.randomUUID();
    input.value = '';
    try {
      await client.messages.sendText(conversationId, text, { client_message_id: id });
      clearStatus();
    } catch (error) {
      refusedOrKept(error, id, () => {
        // The text comes back for another try, unless the user has started writing something else.
        if (open?.input === input && input.value === '') input.value = text;
      });
    }
  }

  /** A refusal drops the echo (the caller restores what was sent); anything else keeps it as "Not sent". */
  function refusedOrKept(error, clientMessageId, restore) {
    if (REFUSALS.has(error?.kind)) {
      client.messages.discard(clientMessageId);
      if (open) render();
      restore();
      say(problem(error));
    } else {
      retryLater();
      say(
        error?.kind === 'network'
          ? 'Not sent: the service cannot be reached. It goes again once the connection is back.'
          : `Not sent: ${problem(error)}`,
      );
    }
  }

  async function sendImage(input) {
    const file = input.files?.[0];
    input.value = '';
    if (!file) return;
    const progress = $('upload');
    progress.hidden = false;
    progress.value = 0;
    try {
      await client.messages.sendImage(open.conversation.conversation_id, file, {
        name: file.name,
        onProgress: ({ loaded, total }) => (progress.value = total > 0 ? Math.round((loaded / total) * 100) : 0),
      });
      clearStatus();
    } catch (error) {
      say(problem(error));
    } finally {
      progress.hidden = true;
    }
  }

  async function retry(message) {
    try {
      await client.messages.retry(message.client_message_id);
      clearStatus();
    } catch (error) {
      // Already going again (the connection came back while the user pressed Retry): nothing to say.
      if (error?.kind === 'invalid') return;
      refusedOrKept(error, message.client_message_id, () => {
        const input = open?.conversation.conversation_id === message.conversation_id ? open.input : null;
        if (input && input.value === '' && message.type === 'text') input.value = String(message.content.text ?? '');
      });
    }
  }

  function discard(message) {
    client.messages.discard(message.client_message_id);
    if (open) render();
  }

  async function recall(message) {
    await attempt(() => client.messages.recall(open.conversation.conversation_id, message.mid));
  }

  /** Images need the IM token: their bytes come through the SDK, shown from an object URL. */
  function image(mediaId) {
    const img = h('img', { alt: 'Image', class: 'image', 'data-media': mediaId });
    // Known URLs are set at once, so a re-render does not blank the pictures already shown.
    const known = imageUrls.get(mediaId);
    if (known) img.src = known;
    else
      client.media
        .objectUrl(mediaId)
        .then((url) => {
          imageUrls.set(mediaId, url);
          img.src = url;
        })
        .catch(() => (img.alt = 'Image unavailable'));
    return img;
  }

  return {
    show,
    close,
    /** Draws the messages again (the page became visible: what is on screen is now seen). */
    refresh() {
      if (open) render();
    },
    get current() {
      return open?.conversation ?? null;
    },
    /** The conversation's title or avatar changed (a rename, a new profile). */
    update(conversation) {
      if (!open || open.conversation.conversation_id !== conversation.conversation_id) return;
      const before = open.conversation;
      open.conversation = { ...before, ...conversation };
      // Drawn again only when it shows differently (a focused button would lose its focus).
      if (['title', 'avatar', 'is_member'].some((field) => before[field] !== open.conversation[field])) renderHeader();
    },
  };
}
