import { reconnectDelay, tooFastDelay } from './backoff.js';
import { Coalescer } from './coalescer.js';
import { ImError, kindOf } from './errors.js';
import { EventDedup } from './event-dedup.js';
import { checkAuth } from './jwt.js';

const jwt = (claims: object) => ['e30', Buffer.from(JSON.stringify(claims)).toString('base64url'), 'c2ln'].join('.');

describe('checkAuth (spec 5.2)', () => {
  const user = { user_id: 'u_1', nickname: 'One' };
  it('accepts a token whose user_id and exp equal the returned object', () => {
    const auth = { user, token: jwt({ user_id: 'u_1', exp: 2000000000 }), expire_at: 2000000000 };
    expect(checkAuth(auth)).toEqual(auth);
  });
  it.each([
    ['another user in the token', { user, token: jwt({ user_id: 'u_2', exp: 2000000000 }), expire_at: 2000000000 }],
    ['another expiry', { user, token: jwt({ user_id: 'u_1', exp: 2000000001 }), expire_at: 2000000000 }],
    ['milliseconds', { user, token: jwt({ user_id: 'u_1', exp: 2000000000 }), expire_at: 2000000000.5 }],
    ['not a JWT', { user, token: 'abc', expire_at: 2000000000 }],
    ['no user', { token: jwt({ user_id: 'u_1', exp: 2000000000 }), expire_at: 2000000000 }],
    ['null', null],
  ])('refuses %s', (_name, auth) => {
    expect(() => checkAuth(auth)).toThrow(ImError);
  });
});

describe('backoff', () => {
  it('reconnects from 0.25 s doubling to a 25 s cap, in the upper half of each range', () => {
    expect(reconnectDelay(0, () => 0)).toBe(125);
    expect(reconnectDelay(0, () => 1)).toBe(250);
    expect(reconnectDelay(3, () => 1)).toBe(2000);
    expect(reconnectDelay(20, () => 1)).toBe(25_000);
    expect(reconnectDelay(20, () => 0)).toBe(12_500);
  });
  it('waits after 1005 for 0.5, 1 and 2 s, ±25 %', () => {
    expect([0, 1, 2].map((n) => tooFastDelay(n, () => 0.5))).toEqual([500, 1000, 2000]);
    expect(tooFastDelay(0, () => 0)).toBe(375);
  });
});

describe('EventDedup (spec 6.2)', () => {
  it('passes an event ID once and forgets the oldest past its capacity', () => {
    const dedup = new EventDedup(2);
    expect([dedup.firstTime('a'), dedup.firstTime('a'), dedup.firstTime('b'), dedup.firstTime('c')]).toEqual([
      true,
      false,
      true,
      true,
    ]);
    expect(dedup.firstTime('a')).toBe(true);
    expect(dedup.firstTime('c')).toBe(false);
  });
});

describe('Coalescer (spec 4.7 rule 1)', () => {
  it('runs one at a time and keeps at most one trailing run with the merged reasons', async () => {
    const runs: string[][] = [];
    let release!: () => void;
    const coalescer = new Coalescer<string>(async (reasons) => {
      runs.push(reasons);
      if (runs.length === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    const first = coalescer.trigger('login');
    const second = coalescer.trigger('online');
    const third = coalescer.trigger('foreground');
    const fourth = coalescer.trigger('online');
    release();
    await Promise.all([first, second, third, fourth]);
    expect(runs).toEqual([['login'], ['online', 'foreground']]);
  });
});

describe('Coalescer failures', () => {
  it('rejects the triggers a failed run served, and still runs the trailing one', async () => {
    let calls = 0;
    let release!: () => void;
    const coalescer = new Coalescer<string>(async () => {
      calls += 1;
      if (calls === 1) {
        await new Promise<void>((resolve) => (release = resolve));
        throw new Error('first run failed');
      }
    });
    const first = coalescer.trigger('a');
    const trailing = coalescer.trigger('b');
    release();
    await expect(first).rejects.toThrow('first run failed');
    await expect(trailing).resolves.toBeUndefined();
    expect(calls).toBe(2);
  });
});

describe('kindOf (spec 7)', () => {
  it('sorts codes for the app to branch on', () => {
    expect([1101, 1102, 1103].map((c) => kindOf(c, 200))).toEqual(['auth', 'auth', 'auth']);
    expect([kindOf(1002, 200), kindOf(1003, 200), kindOf(1005, 200), kindOf(1500, 503), kindOf(1201, 200)]).toEqual([
      'disabled',
      'disabled',
      'rate_limited',
      'server',
      'rejected',
    ]);
  });
});
