// A small chat on the Web SDK's public API only: the bundled host application's sign-up and
// login (createHostAppAuth), then one client (createClient) whose namespaces, stores and events
// drive every view. This module wires them: the page's frame, the header (who, unread badge,
// connection, logout) and switching between the lists and the chat.
import { createClient, createHostAppAuth } from '@im-sdk/web';
import { showLogin } from './auth-view.js';
import { createCalls } from './call-view.js';
import { createChat } from './chat-view.js';
import { createContacts } from './contacts-view.js';
import { $, attempt, avatar, clearStatus, fill, h, say } from './dom.js';
import { createGroups } from './group-view.js';
import { createHome } from './home-view.js';
import { createPeople } from './people.js';

const host = createHostAppAuth({ baseUrl: location.origin });
let app = null;

async function start(account, extra = {}) {
  stop();
  // A development machine may be slow to answer: the first connection gets time.
  const client = createClient({ baseUrl: location.origin, authProvider: host.authProvider, connectTimeoutMs: 30_000 });
  let user;
  try {
    user = await client.login();
  } catch (error) {
    client.destroy();
    throw error;
  }
  const current = { client, host, me: user.user_id, people: createPeople(client), ended: false };
  app = current;
  app.people.learn(user);
  app.openChat = openChat;
  app.showList = showList;
  app.setUsername = setUsername;
  app.chat = createChat(app);
  app.home = createHome(app);
  app.contacts = createContacts(app);
  app.groups = createGroups(app);
  app.calls = createCalls(app);
  app.onChatOpened = () => app.home.render();
  watchSession(client);
  layout();
  renderMe();
  app.people.subscribe((userId) => !current.ended && userId === current.me && renderMe());
  client.onBadge(({ count, capped }) => {
    if (current.ended) return;
    const text = capped ? '99+' : String(count);
    $('badge').replaceChildren(...(count === 0 ? [] : [text, h('span', { class: 'sr-only' }, ' unread')]));
  });
  document.addEventListener('visibilitychange', onVisible);
  void app.contacts.load();
  // The host account has no username: the one asked for at sign-up goes on the IM profile.
  if (extra.username) await setUsername(extra.username);
  else
    void client.users
      .me()
      .then(({ user: profile }) => current.people.learn(profile))
      .catch(() => undefined);
}

function watchSession(client) {
  const connection = (state, text) => {
    const el = $('connection');
    el.dataset.state = state;
    el.textContent = text;
  };
  // login() resolves once connected: the first connection.ready has already been.
  if (client.connected) connection('online', 'Online');
  else connection('offline', 'Reconnecting…');
  client.on('connection.ready', () => connection('online', 'Online'));
  client.on('connection.lost', () => connection('offline', 'Reconnecting…'));
  client.on('session.ended', ({ message }) => {
    stop();
    showLogin(host, start);
    say(`Your session ended: ${message}`);
  });
}

function layout() {
  const tab = (name, panel, selected) =>
    h(
      'button',
      {
        type: 'button',
        role: 'tab',
        id: `tab-${panel}`,
        'aria-controls': panel,
        'aria-selected': String(selected),
        onclick: () => {
          selectTab(panel);
          showList();
        },
      },
      name,
    );
  $('main').className = 'signed-in';
  $('main').replaceChildren(
    h(
      'div',
      { id: 'side' },
      h(
        'div',
        { class: 'tabs', role: 'tablist', 'aria-label': 'Sections' },
        tab('Chats', 'home', true),
        tab('Contacts', 'contacts', false),
      ),
      h('section', { id: 'home', role: 'tabpanel', 'aria-labelledby': 'tab-home' }),
      h('section', { id: 'contacts', role: 'tabpanel', 'aria-labelledby': 'tab-contacts', hidden: true }),
    ),
    h('section', { id: 'chat', 'aria-label': 'Chat' }),
  );
  $('logout').hidden = false;
  app.contacts.build();
  app.home.render();
  app.chat.close();
  app.calls.render();
}

function selectTab(panel) {
  for (const name of ['home', 'contacts']) {
    $(name).hidden = name !== panel;
    $(`tab-${name}`).setAttribute('aria-selected', String(name === panel));
  }
}

function openChat(conversation) {
  app.groups.close();
  app.chat.show(conversation);
  // The list beside the chat is the chats, with this one marked.
  selectTab('home');
  // One column on a phone: the chat takes the screen until "Back".
  $('main').classList.add('chat-open');
  // Screen readers announce the chat that opened; the keyboard goes on from there.
  $('chat-title')?.focus();
}

function showList() {
  $('main').classList.remove('chat-open');
}

function renderMe() {
  if (!app) return;
  const me = app.people.get(app.me);
  fill(
    $('me'),
    avatar(me?.nickname, me?.avatar),
    h('span', {}, me?.nickname ?? app.me),
    me?.username ? h('small', {}, ` @${me.username}`) : null,
  );
  $('me').dataset.user = app.me;
}

async function setUsername(username) {
  const current = app;
  const reply = await attempt(() => current.client.users.updateMe({ username }));
  if (!reply || current.ended) return;
  current.people.learn(reply.user);
  say(username ? `Your username is ${reply.user.username}` : 'Username removed');
}

function onVisible() {
  // Read marks wait for the page to be seen.
  if (document.visibilityState === 'visible') app?.chat.refresh();
}

/** Ends this login's client: its connection, events and local state. */
function stop() {
  document.removeEventListener('visibilitychange', onVisible);
  // Replies of this login still on their way must not draw into the next one's page.
  if (app) app.ended = true;
  app?.client.destroy();
  app = null;
  for (const id of ['me', 'badge', 'connection', 'call']) {
    $(id).replaceChildren();
    for (const key of Object.keys($(id).dataset)) delete $(id).dataset[key];
  }
  $('logout').hidden = true;
}

$('logout').addEventListener('click', async () => {
  stop();
  await host.logout().catch(() => undefined);
  clearStatus();
  showLogin(host, start);
});

host
  .me()
  .then(({ account }) => start(account))
  .catch((error) => {
    // No session (the usual case for a new visitor): the sign-up form; a failure says why.
    if (error?.kind !== 'auth') say(error?.message ?? String(error));
    showLogin(host, start);
  });
