import { routeMatcher } from './guarded-routes';

describe('routeMatcher', () => {
  const matches = routeMatcher(['/app/sdk/token', '/app/sdk/users/:id/status', '/app/sdk/files/*path']);

  it('matches as Express routes: any case, trailing slashes, a parameter one segment', () => {
    for (const path of [
      '/app/sdk/token',
      '/APP/SDK/TOKEN',
      '/app/sdk/token/',
      '/app/sdk/token//',
      '/app/sdk/users/42/status',
      '/app/sdk/files/a/b.png',
    ])
      expect({ path, matched: matches(path) }).toEqual({ path, matched: true });
  });

  it('matches nothing else', () => {
    for (const path of [
      '/app/sdk/tokens',
      '/app/sdk/token/x',
      '/app/sdk/users/status',
      '/app/sdk/users/1/2/status',
      '/x/app/sdk/token',
    ])
      expect({ path, matched: matches(path) }).toEqual({ path, matched: false });
  });

  it('takes the dot in a route literally', () => {
    expect(routeMatcher(['/a.b'])('/aXb')).toBe(false);
  });

  it('refuses pattern syntax it does not understand rather than matching loosely', () => {
    expect(() => routeMatcher(['/app/sdk/{optional}'])).toThrow(/unsupported route pattern/);
  });
});
