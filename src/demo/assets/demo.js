// A small chat on the Web SDK: the bundled host application's login, the home list with
// badges, one conversation with history, live messages, read state, recall and calls.
import { createClient } from '@im-sdk/web';
import { callResult, callSummary, isNewer } from './call-record.js';

const $ = (id) => document.getElementById(id);
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
    else if (value !== undefined && value !== false) el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) if (child !== null && child !== undefined) el.append(child);
  return el;
}
/** A status line: it clears by itself after a while, and at once with the next success. */
const STATUS_MS = 8000;
let statusTimer = null;
function say(text) {
  clearTimeout(statusTimer);
  $('status').textContent = text;
  statusTimer = setTimeout(clearStatus, STATUS_MS);
}
function clearStatus() {
  clearTimeout(statusTimer);
  statusTimer = null;
  $('status').textContent = '';
}

async function host(path, body) {
  const response = await fetch(`/app/auth/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    credentials: 'same-origin',
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const envelope = await response.json();
  if (envelope.code !== 0) throw new Error(envelope.msg);
  return envelope.data;
}

let client = null;
let account = null;
let openChat = null;
let peerRead = new Map();
let call = null;

function showLogin() {
  const form = h(
    'form',
    { class: 'auth', 'aria-label': 'Log in' },
    h('h1', {}, 'Log in'),
    h('label', {}, 'Phone', h('input', { name: 'phone', autocomplete: 'tel', required: true })),
    h('label', {}, 'Password', h('input', { name: 'password', type: 'password', required: true })),
    h('button', { type: 'submit' }, 'Log in'),
    h('button', { type: 'button', class: 'link', onclick: showSignup }, 'Create an account'),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    try {
      account = (await host('login', { phone: data.get('phone'), password: data.get('password') })).account;
      await start();
    } catch (error) {
      say(error.message);
    }
  });
  $('main').replaceChildren(form);
}

function showSignup() {
  const form = h(
    'form',
    { class: 'auth', 'aria-label': 'Create an account' },
    h('h1', {}, 'Create an account'),
    h('label', {}, 'Phone', h('input', { name: 'phone', required: true })),
    h('label', {}, 'Nickname', h('input', { name: 'nickname', required: true })),
    h(
      'label',
      {},
      'Password (8 or more characters)',
      h('input', { name: 'password', type: 'password', required: true }),
    ),
    h('label', {}, 'Code from the SMS', h('input', { name: 'code', inputmode: 'numeric' })),
    h('button', { type: 'button', onclick: () => sendCode(form) }, 'Send code'),
    h('button', { type: 'submit' }, 'Create account'),
    h('button', { type: 'button', class: 'link', onclick: showLogin }, 'Back to log in'),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const data = Object.fromEntries(new FormData(form).entries());
    try {
      account = (await host('signup', data)).account;
      await start();
    } catch (error) {
      say(error.message);
    }
  });
  $('main').replaceChildren(form);
}

async function sendCode(form) {
  const phone = new FormData(form).get('phone');
  try {
    await host('sms/send', { phone, purpose: 'signup' });
    // Development only: the log driver keeps the code in an inbox the demo may read.
    const inbox = await host(`dev/sms-inbox?phone=${encodeURIComponent(phone)}`);
    const code = inbox.items.find((item) => item.purpose === 'signup')?.code;
    if (code) form.elements.namedItem('code').value = code;
    say('Code sent');
  } catch (error) {
    say(error.message);
  }
}

async function start() {
  client = createClient({ baseUrl: location.origin, authProvider: () => host('token', {}) });
  client.onBadge(({ count, capped }) => ($('badge').textContent = count === 0 ? '' : capped ? '99+' : String(count)));
  client.setRecovery(() => renderHome());
  client.on('event', (event) => {
    if (event.type === 'conversation.peer_read') {
      peerRead.set(event.data.conversation_id, BigInt(event.data.read_seq));
      if (openChat) renderMessages(openChat.window.state);
    }
    if (event.type.startsWith('message.') || event.type.startsWith('conversation.') || event.type.startsWith('friend.'))
      void renderHome();
  });
  client.on('event', (event) => {
    if (!event.type.startsWith('call.') || !event.data.call || !isNewer(call, event.data.call)) return;
    call = { ...event.data.call, conversation_id: event.data.conversation_id };
    renderCall();
  });
  client.on('session.ended', ({ code }) => say(`Session ended (${code})`));
  const user = await client.login();
  $('me').textContent = `${user.nickname} (${user.user_id})`;
  $('main').replaceChildren(
    h('nav', { id: 'home', 'aria-label': 'Conversations' }),
    h('section', { id: 'chat', 'aria-label': 'Chat' }),
  );
}

let homeRun = 0;
async function renderHome() {
  // Events re-render the list in bursts: a page that was overtaken by a later one is not shown.
  const run = ++homeRun;
  const page = await client.sync();
  if (run !== homeRun) return;
  const list = h(
    'ul',
    {},
    page.conversations.items.map((item) =>
      h(
        'li',
        {},
        h(
          'button',
          { type: 'button', 'data-conversation': item.conversation_id, onclick: () => open(item) },
          h('span', {}, item.title || item.conversation_id, h('br'), h('small', {}, summarize(item.last_message))),
          item.unread ? h('span', { class: 'badge' }, String(item.unread)) : null,
        ),
      ),
    ),
  );
  $('home')?.replaceChildren(h('h2', {}, 'Chats'), list);
}

/** A message in words: the home list's preview, and the chat's bubble for every type but images. */
const summarize = (m) =>
  !m
    ? ''
    : m.status !== 'normal'
      ? `(${m.status})`
      : m.type === 'call'
        ? callSummary(m.content)
        : (m.content?.text ?? `[${m.type}]`);

function open(item) {
  if (openChat) client.closeWindow(openChat.window);
  const list = h('ol', { id: 'messages', 'aria-label': 'Messages' });
  const form = h(
    'form',
    { class: 'send', 'aria-label': 'Send a message' },
    h('input', { name: 'text', 'aria-label': 'Message', autocomplete: 'off' }),
    h('button', { type: 'submit' }, 'Send'),
    h(
      'label',
      { class: 'image' },
      'Send an image',
      h('input', {
        type: 'file',
        name: 'image',
        accept: 'image/*',
        onchange: (event) => sendImage(item, event.target),
      }),
    ),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const input = form.elements.namedItem('text');
    const button = form.querySelector('button[type=submit]');
    const text = input.value.trim();
    if (!text || button.disabled) return;
    // The text stays in the input until the service has the message: a refused one can be fixed.
    button.disabled = true;
    try {
      await client.sendMessage({ conversation_id: item.conversation_id, type: 'text', content: { text } });
      if (input.value.trim() === text) input.value = '';
      clearStatus();
    } catch (error) {
      say(error.message);
    } finally {
      button.disabled = false;
    }
  });
  const older = h(
    'button',
    { type: 'button', class: 'link', onclick: () => openChat.window.loadOlder() },
    'Older messages',
  );
  const callButton = h(
    'button',
    {
      type: 'button',
      onclick: () =>
        callAction('start', {
          conversation_id: item.conversation_id,
          media: 'audio',
          client_call_id: crypto.randomUUID(),
        }),
    },
    'Audio call',
  );
  $('chat').replaceChildren(h('h2', {}, item.title || item.conversation_id, ' ', callButton), older, list, form);
  openChat = { item, window: client.openWindow(item.conversation_id, renderMessages) };
}

function renderMessages(state) {
  const list = $('messages');
  if (!list || !openChat) return;
  const mine = account?.user_id;
  const readTo = peerRead.get(openChat.item.conversation_id) ?? 0n;
  list.replaceChildren(
    ...state.messages.map((m) => {
      const own = m.sender_id === mine;
      const normal = m.status === 'normal';
      // The service's call record is not the sender's own writing: no read mark, no recall.
      const record = normal && m.type === 'call';
      const body = normal && m.type === 'image' && m.content?.media_id ? image(m.content.media_id) : summarize(m);
      return h(
        'li',
        { class: own ? 'mine' : '', 'data-seq': m.conversation_seq },
        h('span', { class: record ? 'bubble call-record' : 'bubble' }, body),
        own && normal && !record && BigInt(m.conversation_seq) <= readTo ? h('span', { class: 'meta' }, 'Read') : null,
        own && normal && !record
          ? h('button', { type: 'button', class: 'link', onclick: () => recall(m) }, 'Recall')
          : null,
      );
    }),
  );
  list.scrollTop = list.scrollHeight;
  const last = state.messages.at(-1);
  if (last && document.visibilityState === 'visible')
    void openChat.window.markSeen(BigInt(last.conversation_seq)).catch(() => undefined);
}

async function sendImage(item, input) {
  const file = input.files?.[0];
  input.value = '';
  if (!file) return;
  try {
    const { media } = await client.uploadMedia(file, 'image', file.name);
    await client.sendMessage({
      conversation_id: item.conversation_id,
      type: 'image',
      content: { media_id: media.media_id },
    });
    clearStatus();
  } catch (error) {
    say(error.message);
  }
}

/** Images need the IM token: their bytes come through the SDK, shown from an object URL. */
const imageUrls = new Map();
function image(mediaId) {
  const img = h('img', { alt: 'Image', class: 'image', 'data-media': mediaId });
  const known = imageUrls.get(mediaId);
  if (known) img.src = known;
  else
    client
      .downloadMedia(mediaId)
      .then((blob) => {
        const url = URL.createObjectURL(blob);
        imageUrls.set(mediaId, url);
        img.src = url;
      })
      .catch(() => (img.alt = 'Image unavailable'));
  return img;
}

/** A stable ID of this browser for the call endpoints (not a secret). */
function deviceId() {
  let id = localStorage.getItem('im-demo-device');
  if (!id) localStorage.setItem('im-demo-device', (id = `web-${crypto.randomUUID().slice(0, 8)}`));
  return id;
}

async function callAction(action, body) {
  try {
    const reply = await client.post(`/app/sdk/calls/${action}`, { device_id: deviceId(), ...body });
    clearStatus();
    if (reply?.call && isNewer(call, reply.call)) {
      call = { ...reply.call, conversation_id: call?.conversation_id ?? body.conversation_id };
      renderCall();
    }
  } catch (error) {
    say(error.message);
  }
}

/**
 * The call's signalling (the service's call states and events). Audio and video themselves go
 * through the provider's Web SDK with the credentials from the call endpoints; the demo does
 * not bundle it.
 */
function renderCall() {
  const box = $('call');
  if (!call) return box.replaceChildren();
  const mine = call.caller_user_id === account?.user_id;
  const id = { call_id: call.call_id };
  if (call.state === 'ringing' && mine)
    return box.replaceChildren(
      'Calling…',
      h('button', { type: 'button', onclick: () => callAction('cancel', id) }, 'Cancel call'),
    );
  if (call.state === 'ringing')
    return box.replaceChildren(
      `Incoming ${call.media} call`,
      h('button', { type: 'button', onclick: () => callAction('accept', id) }, 'Accept'),
      h('button', { type: 'button', onclick: () => callAction('reject', { ...id, reason: 'decline' }) }, 'Decline'),
    );
  if (call.state === 'ongoing')
    return box.replaceChildren(
      'In call',
      h('button', { type: 'button', onclick: () => callAction('hangup', id) }, 'Hang up'),
    );
  box.replaceChildren(call.end_reason === 'hangup' ? 'Call ended' : `Call ended: ${callResult(call.end_reason)}`);
}

async function recall(message) {
  try {
    await client.changeMessage('recall', openChat.item.conversation_id, message.mid);
    clearStatus();
  } catch (error) {
    say(error.message);
  }
}

host('me')
  .then((data) => {
    account = data.account;
    return start();
  })
  .catch(() => showLogin());
