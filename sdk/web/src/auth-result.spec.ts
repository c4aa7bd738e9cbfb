import { ErrorCode, ImError } from './errors.js';
import { readAuthResult } from './auth-result.js';

const jwt = (claims: object) => ['e30', Buffer.from(JSON.stringify(claims)).toString('base64url'), 'c2ln'].join('.');
const user = { user_id: 'u_1', nickname: 'One' };
const data = { user, token: jwt({ user_id: 'u_1', exp: 2000000000 }), expire_at: 2000000000, push: {} };

function refusal(result: unknown): ImError {
  try {
    readAuthResult(result);
  } catch (error) {
    if (error instanceof ImError) return error;
    throw error;
  }
  throw new Error('the result was accepted');
}

describe('readAuthResult: what the host auth provider may return (spec 4.1 rule 3, 5.2)', () => {
  it('accepts the bare data of the /app/sdk/token reply', () => {
    expect(readAuthResult(data)).toEqual({ user, token: data.token, expire_at: 2000000000 });
  });

  it('accepts the reply envelope {code: 0, msg, data} as the service sends it', () => {
    expect(readAuthResult({ code: 0, msg: 'ok', data })).toEqual({ user, token: data.token, expire_at: 2000000000 });
  });

  it("accepts spec 2.4's SDK form (userId, expireAt), handed on as the service's names", () => {
    const sdkForm = { user: { userId: 'u_1', nickname: 'One' }, token: data.token, expireAt: 2000000000 };
    expect(readAuthResult(sdkForm)).toEqual({ user, token: data.token, expire_at: 2000000000 });
    expect(readAuthResult({ code: 0, msg: 'ok', data: sdkForm }).user.user_id).toBe('u_1');
  });

  it('refuses a result whose two spellings disagree', () => {
    expect(refusal({ ...data, expireAt: 2000000001 }).message).toContain('expire_at and expireAt differ');
    expect(refusal({ ...data, user: { ...user, userId: 'u_2' } }).message).toContain(
      'user.user_id and user.userId differ',
    );
    // Milliseconds are not Unix seconds: the JWT's exp is.
    expect(refusal({ user, token: data.token, expireAt: 2000000000000 }).message).toContain('expiry differs');
  });

  it.each([
    ['the service refusing the host secret', 1001, 'the SDK secret is invalid', 'auth'],
    ["the host's own code", 40101, 'host session expired', 'auth'],
    ['a disabled user', ErrorCode.USER_DISABLED, 'user disabled', 'disabled'],
    ['a disabled SDK', ErrorCode.SDK_DISABLED, 'sdk disabled', 'disabled'],
    ['too fast', ErrorCode.TOO_FAST, 'slow down', 'rate_limited'],
    ['an internal fault', ErrorCode.INTERNAL, 'internal error', 'server'],
  ])('turns an envelope with a non-zero code (%s) into an ImError with that code and msg', (_n, code, msg, kind) => {
    const error = refusal({ code, msg, data: null });
    expect({ kind: error.kind, code: error.code, message: error.message }).toEqual({ kind, code, message: msg });
  });

  it('never treats the data of a refusal as a result, even when it looks complete', () => {
    expect(refusal({ code: 1003, msg: 'user disabled', data }).code).toBe(1003);
  });

  it('names the code when the host sent no msg', () => {
    expect(refusal({ code: 40101, data: null }).message).toMatch(/40101/);
  });

  it.each([
    ['code 0 without data', { code: 0, msg: 'ok', data: null }],
    ['code 0 with data missing the token', { code: 0, msg: 'ok', data: { user, expire_at: 2000000000 } }],
    ['code 0 with milliseconds', { code: 0, msg: 'ok', data: { ...data, expire_at: 2000000000000 } }],
    ['a code that is not an integer', { code: '0', msg: 'ok', data }],
  ])('refuses %s as unusable (kind auth, code 0)', (_name, result) => {
    const error = refusal(result);
    expect({ kind: error.kind, code: error.code }).toEqual({ kind: 'auth', code: 0 });
    expect(error.message).toMatch(/^the auth provider's result is unusable/);
  });

  it('keeps the JWT guard inside the envelope: another user in the token is refused', () => {
    const mixed = { ...data, token: jwt({ user_id: 'u_2', exp: 2000000000 }) };
    expect(refusal({ code: 0, msg: 'ok', data: mixed }).message).toMatch(/another user/);
  });

  it('never puts the token into an error message', () => {
    const token = jwt({ user_id: 'u_2', exp: 2000000000 });
    const messages = [
      refusal({ code: 0, msg: 'ok', data: { user, token, expire_at: 2000000000 } }).message,
      refusal({ code: 0, msg: 'ok', data: { user, token, expire_at: 'soon' } }).message,
      refusal({ user, token: 'not-a-jwt-secret', expire_at: 2000000000 }).message,
    ];
    for (const message of messages) {
      expect(message).not.toContain(token);
      expect(message).not.toContain('not-a-jwt-secret');
    }
  });
});
