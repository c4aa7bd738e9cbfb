// Contacts: one's own username (how others find you), finding a user by username and asking
// them to be friends, the friend requests to answer, the friends (with presence, a chat each),
// a new group with some of them, and joining a group by an invitation code.
import { $, attempt, avatar, fill, h, presenceDot, say } from './dom.js';

export function createContacts(app) {
  const { client, people } = app;
  let friends = [];
  let incoming = [];
  let outgoing = [];
  let found = null;
  let loading = null;

  const reload = () => void load();
  for (const type of [
    'friend.request_created',
    'friend.request_accepted',
    'friend.request_rejected',
    'friend.added',
    'friend.deleted',
    'connection.ready',
  ])
    client.on(type, reload);
  client.presence.subscribe(() => renderFriends());
  client.on('user.profile_updated', ({ data }) => {
    if (data.user.user_id === app.me) renderProfile();
  });

  /** Every page of a paged list. */
  async function all(page) {
    const items = [];
    let cursor;
    do {
      const reply = await page(cursor);
      items.push(...reply.items);
      cursor = reply.has_more ? reply.next_cursor : undefined;
    } while (cursor);
    return items;
  }

  /** Reloads the lists; calls while one runs share it, and one more follows. */
  async function load() {
    if (loading) {
      loading.again = true;
      return loading.promise;
    }
    loading = { again: false, promise: null };
    loading.promise = (async () => {
      do {
        loading.again = false;
        try {
          const [f, i, o] = await Promise.all([
            all((cursor) => client.friends.list({ cursor })),
            all((cursor) => client.friends.listRequests('incoming', { status: 'pending', cursor })),
            all((cursor) => client.friends.listRequests('outgoing', { status: 'pending', cursor })),
          ]);
          [friends, incoming, outgoing] = [f, i, o];
          for (const friend of friends) people.learn(friend.user);
          for (const request of [...incoming, ...outgoing]) [request.from, request.to].forEach(people.learn);
        } catch {
          // Offline: what is shown stays; the next connection loads again.
        }
      } while (loading.again);
      loading = null;
      render();
    })();
    return loading.promise;
  }

  function render() {
    if (app.ended) return;
    if (!$('contacts')) return;
    // Requests waiting for an answer show on the tab, so they are seen from the chats too.
    const count = incoming.length;
    fill(
      $('tab-contacts'),
      'Contacts',
      count ? h('span', { class: 'badge' }, String(count), h('span', { class: 'sr-only' }, ' requests')) : null,
    );
    renderProfile();
    renderFound();
    renderRequests();
    renderFriends();
  }

  function build() {
    const find = h(
      'form',
      { class: 'row', 'aria-label': 'Find a user' },
      h('label', {}, 'Find by username', h('input', { name: 'username', autocapitalize: 'none', required: true })),
      h('button', { type: 'submit' }, 'Find'),
    );
    find.addEventListener('submit', (event) => {
      event.preventDefault();
      void lookup(find.elements.namedItem('username').value.trim());
    });
    const group = h(
      'form',
      { id: 'new-group', 'aria-label': 'New group' },
      h('label', {}, 'Group name', h('input', { name: 'name', required: true, maxlength: 80 })),
      h('fieldset', {}, h('legend', {}, 'Members'), h('div', { id: 'group-members' })),
      h('button', { type: 'submit' }, 'Create group'),
    );
    group.addEventListener('submit', (event) => {
      event.preventDefault();
      void createGroup(group);
    });
    const join = h(
      'form',
      { class: 'row', 'aria-label': 'Join a group' },
      h('label', {}, 'Invitation code', h('input', { name: 'code', autocapitalize: 'none', required: true })),
      h('button', { type: 'submit' }, 'Join'),
    );
    join.addEventListener('submit', (event) => {
      event.preventDefault();
      void joinGroup(join);
    });
    $('contacts').replaceChildren(
      h(
        'section',
        { 'aria-labelledby': 'profile-title' },
        h('h2', { id: 'profile-title' }, 'You'),
        h('div', { id: 'profile' }),
      ),
      h(
        'section',
        { 'aria-labelledby': 'find-title' },
        h('h2', { id: 'find-title' }, 'Add a friend'),
        find,
        h('div', { id: 'found', 'aria-live': 'polite' }),
      ),
      h(
        'section',
        { 'aria-labelledby': 'requests-title' },
        h('h2', { id: 'requests-title' }, 'Friend requests'),
        h('ul', { id: 'requests', class: 'people' }),
      ),
      h(
        'section',
        { 'aria-labelledby': 'friends-title' },
        h('h2', { id: 'friends-title' }, 'Friends'),
        h('ul', { id: 'friends', class: 'people' }),
      ),
      h('section', { 'aria-labelledby': 'group-title' }, h('h2', { id: 'group-title' }, 'New group'), group, join),
    );
    render();
  }

  function renderProfile() {
    if (app.ended) return;
    const box = $('profile');
    if (!box) return;
    const me = people.get(app.me);
    const form = h(
      'form',
      { class: 'row', 'aria-label': 'Your username' },
      h(
        'label',
        {},
        'Your username',
        h('input', { name: 'username', value: me?.username ?? '', autocapitalize: 'none' }),
      ),
      h('button', { type: 'submit' }, 'Save'),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void app.setUsername(form.elements.namedItem('username').value.trim());
    });
    box.replaceChildren(form);
  }

  async function lookup(username) {
    found = null;
    const reply = await attempt(() => client.users.lookup(username));
    if (reply) {
      found = reply.user;
      people.learn(found);
    }
    renderFound();
  }

  function renderFound() {
    if (app.ended) return;
    const box = $('found');
    if (!box) return;
    if (!found) return box.replaceChildren();
    const user = found;
    const friend = friends.some((f) => f.user.user_id === user.user_id);
    const asked = outgoing.some((r) => r.to.user_id === user.user_id);
    const asking = incoming.some((r) => r.from.user_id === user.user_id);
    const action =
      user.user_id === app.me
        ? h('span', { class: 'note' }, 'That is you')
        : friend
          ? h('span', { class: 'note' }, 'Already a friend')
          : asked
            ? h('span', { class: 'note' }, 'Request sent')
            : asking
              ? h('span', { class: 'note' }, 'Asked you: answer under Friend requests')
              : h('button', { type: 'button', onclick: () => void request(user) }, 'Send friend request');
    box.replaceChildren(person(user, h('span', { class: 'actions' }, action)));
  }

  async function request(user) {
    const reply = await attempt(() => client.friends.sendRequest(user.user_id));
    if (!reply) return;
    say(reply.friend ? `${user.nickname} is now a friend` : `Friend request sent to ${user.nickname}`);
    await load();
  }

  function renderRequests() {
    if (app.ended) return;
    const list = $('requests');
    if (!list) return;
    const rows = [
      ...incoming.map((r) =>
        person(
          r.from,
          h(
            'span',
            { class: 'actions' },
            h('button', { type: 'button', onclick: () => void answer(r, 'accept') }, 'Accept'),
            h('button', { type: 'button', class: 'secondary', onclick: () => void answer(r, 'reject') }, 'Reject'),
          ),
          r.message,
        ),
      ),
      ...outgoing.map((r) => person(r.to, h('span', { class: 'note' }, 'Waiting for an answer'))),
    ];
    list.replaceChildren(...(rows.length ? rows : [h('li', { class: 'empty' }, 'No requests')]));
  }

  async function answer(requestReply, how) {
    const done = await attempt(() =>
      how === 'accept' ? client.friends.acceptRequest(requestReply.id) : client.friends.rejectRequest(requestReply.id),
    );
    if (!done) return;
    say(how === 'accept' ? `${requestReply.from.nickname} is now a friend` : 'Request rejected');
    await load();
  }

  function renderFriends() {
    if (app.ended) return;
    const list = $('friends');
    if (!list) return;
    const rows = friends.map((f) =>
      person(
        f.user,
        h('button', { type: 'button', onclick: () => app.openChat(directConversation(f)) }, 'Chat'),
        null,
        client.presence.get(f.user.user_id),
      ),
    );
    list.replaceChildren(...(rows.length ? rows : [h('li', { class: 'empty' }, 'No friends yet')]));
    const picks = $('group-members');
    if (picks) {
      const checked = new Set([...picks.querySelectorAll('input:checked')].map((i) => i.value));
      picks.replaceChildren(
        ...(friends.length
          ? friends.map((f) =>
              h(
                'label',
                { class: 'check' },
                h('input', {
                  type: 'checkbox',
                  name: 'member',
                  value: f.user.user_id,
                  checked: checked.has(f.user.user_id),
                }),
                f.user.nickname,
              ),
            )
          : [h('span', { class: 'note' }, 'Add friends first')]),
      );
    }
  }

  function directConversation(friend) {
    const known = client.conversationList.get(friend.conversation_id);
    return (
      known ?? {
        conversation_id: friend.conversation_id,
        type: 'direct',
        title: friend.user.nickname,
        avatar: friend.user.avatar,
        peer_user_id: friend.user.user_id,
        group_id: null,
      }
    );
  }

  async function createGroup(form) {
    const name = form.elements.namedItem('name').value.trim();
    const members = [...form.querySelectorAll('input[name=member]:checked')].map((i) => i.value);
    const reply = await attempt(() => client.groups.create({ name, member_ids: members }));
    if (!reply) return;
    form.reset();
    say(`Group ${reply.group.name} created`);
    app.openChat(groupConversation(reply.group));
  }

  async function joinGroup(form) {
    const reply = await attempt(() => client.groups.join(form.elements.namedItem('code').value.trim()));
    if (!reply) return;
    form.reset();
    say(`You joined ${reply.group.name}`);
    app.openChat(groupConversation(reply.group));
  }

  return {
    build,
    load,
    /** Friends who are not members, for inviting to a group. */
    get friends() {
      return friends;
    },
  };
}

export function groupConversation(group) {
  return {
    conversation_id: group.conversation_id,
    type: 'group',
    title: group.name,
    avatar: group.avatar,
    peer_user_id: null,
    group_id: group.group_id,
  };
}

/** A user row: avatar with presence, name and username, optional note and actions. */
function person(user, actions, note, presence) {
  return h(
    'li',
    { class: 'person', 'data-user': user.user_id },
    h('span', { class: 'who' }, avatar(user.nickname, user.avatar), presenceDot(presence)),
    h(
      'span',
      { class: 'summary' },
      h('span', { class: 'title' }, user.nickname),
      h('small', {}, user.username ? `@${user.username}` : user.user_id),
      note ? h('small', { class: 'note' }, `“${note}”`) : null,
    ),
    actions,
  );
}
