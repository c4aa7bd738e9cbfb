// A group chat's members panel: who is in it (with presence for friends, and roles), inviting
// friends (added at once) or anyone with an invitation code, and leaving.
import { $, attempt, avatar, h, presenceDot, say } from './dom.js';

const GROUP_EVENTS = [
  'group.members_added',
  'group.members_removed',
  'group.member_left',
  'group.member_joined',
  'group.admin_changed',
  'group.owner_transferred',
  'group.updated',
];

export function createGroups(app) {
  const { client, people } = app;
  /** The panel shown: `{conversation, members, code}`; null when closed. */
  let panel = null;

  for (const type of GROUP_EVENTS)
    client.on(type, ({ data }) => {
      if (panel && data.conversation_id === panel.conversation.conversation_id) void load();
    });
  client.presence.subscribe(() => panel && render());

  async function toggle(conversation) {
    if (isOpen(conversation)) return close();
    panel = { conversation, members: [], code: null };
    $('members-toggle')?.setAttribute('aria-expanded', 'true');
    render();
    await load();
  }

  function close() {
    panel = null;
    $('chat-extra')?.replaceChildren();
    $('members-toggle')?.setAttribute('aria-expanded', 'false');
  }

  function isOpen(conversation) {
    return panel?.conversation.conversation_id === conversation.conversation_id;
  }

  async function load() {
    const shown = panel;
    if (!shown) return;
    const members = [];
    const ok = await attempt(async () => {
      let cursor;
      do {
        const page = await client.groups.members(shown.conversation.group_id, { cursor });
        members.push(...page.items);
        cursor = page.has_more ? page.next_cursor : undefined;
      } while (cursor);
      return true;
    });
    if (!ok || panel !== shown) return;
    for (const member of members) people.learn(member.user);
    shown.members = members;
    render();
  }

  function render() {
    if (app.ended) return;
    const box = $('chat-extra');
    if (!box || !panel) return;
    const { conversation, members } = panel;
    const mine = members.find((m) => m.user.user_id === app.me);
    const manager = mine?.role === 'owner' || mine?.role === 'admin';
    const inGroup = new Set(members.map((m) => m.user.user_id));
    const candidates = app.contacts.friends.filter((f) => !inGroup.has(f.user.user_id));
    const invite = h(
      'form',
      { 'aria-label': 'Add members' },
      h(
        'fieldset',
        {},
        h('legend', {}, 'Add friends'),
        candidates.map((f) =>
          h(
            'label',
            { class: 'check' },
            h('input', { type: 'checkbox', name: 'member', value: f.user.user_id }),
            f.user.nickname,
          ),
        ),
      ),
      h('button', { type: 'submit' }, 'Add'),
    );
    invite.addEventListener('submit', (event) => {
      event.preventDefault();
      const ids = [...invite.querySelectorAll('input:checked')].map((i) => i.value);
      if (ids.length) void add(conversation, ids);
    });
    box.replaceChildren(
      h(
        'section',
        { class: 'members', 'aria-label': 'Members' },
        h(
          'ul',
          { class: 'people' },
          members.map((m) =>
            h(
              'li',
              { class: 'person', 'data-user': m.user.user_id },
              h(
                'span',
                { class: 'who' },
                avatar(m.user.nickname, m.user.avatar),
                presenceDot(client.presence.get(m.user.user_id)),
              ),
              h(
                'span',
                { class: 'summary' },
                h('span', { class: 'title' }, m.user.user_id === app.me ? `${m.user.nickname} (you)` : m.user.nickname),
                h('small', {}, m.role),
              ),
            ),
          ),
        ),
        // Friends who are not members yet are added at once; anyone else joins with a code.
        manager && candidates.length > 0 ? invite : null,
        h(
          'div',
          { class: 'actions' },
          manager
            ? h(
                'button',
                { type: 'button', class: 'secondary', onclick: () => void invitation(conversation) },
                'Invitation code',
              )
            : null,
          mine && mine.role !== 'owner'
            ? h('button', { type: 'button', class: 'danger', onclick: () => void leave(conversation) }, 'Leave group')
            : null,
        ),
        panel.code
          ? h('p', { class: 'code' }, 'Code to join with: ', h('code', { id: 'invitation-code' }, panel.code))
          : null,
      ),
    );
  }

  async function add(conversation, ids) {
    const reply = await attempt(() => client.groups.addMembers(conversation.group_id, ids));
    if (!reply) return;
    say(`${reply.added.map((id) => people.name(id)).join(', ') || 'Nobody new'} added`);
    await load();
  }

  async function invitation(conversation) {
    const reply = await attempt(() => client.groups.createInvitation(conversation.group_id));
    if (!reply || panel?.conversation.conversation_id !== conversation.conversation_id) return;
    panel.code = reply.code;
    render();
    say('Invitation code made: whoever has it can join, under Contacts');
  }

  async function leave(conversation) {
    const reply = await attempt(() => client.groups.leave(conversation.group_id));
    if (!reply) return;
    close();
    say(`You left ${conversation.title}`);
  }

  return { toggle, close, isOpen };
}
