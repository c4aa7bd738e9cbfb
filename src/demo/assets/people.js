// Who is who: names and avatars of the users the page has met (friends, group members, request
// senders, the peers of the home list), so a message's sender shows as a name. Asked from the
// service once per unknown user.

export function createPeople(client) {
  const known = new Map();
  const asked = new Map();
  const listeners = new Set();

  function learn(user) {
    if (!user?.user_id) return;
    const current = known.get(user.user_id);
    if (current && ['nickname', 'avatar', 'username'].every((field) => current[field] === user[field])) return;
    known.set(user.user_id, { ...current, ...user });
    for (const listener of [...listeners]) listener(user.user_id);
  }

  client.on('user.profile_updated', ({ data }) => learn(data.user));
  client.on('friend.added', ({ data }) => learn(data.friend?.user));
  client.on('friend.request_created', ({ data }) => {
    learn(data.request.from);
    learn(data.request.to);
  });

  return {
    learn,
    get: (userId) => known.get(userId),
    /** The user's nickname; an unknown user is asked for once (listeners hear when it comes). */
    name(userId) {
      const user = known.get(userId);
      if (user) return user.nickname || user.user_id;
      if (!asked.has(userId))
        asked.set(
          userId,
          client.users
            .profile(userId)
            .then(({ user: profile }) => learn(profile))
            .catch(() => undefined),
        );
      return userId;
    },
    /** Calls `listener(userId)` when a user's name or avatar becomes known or changes. */
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
