// Black-box check of the RTC credentials (issue 12): the UserSig is Tencent TLSSigAPIv2's,
// verified here with an independent implementation (zlib inflate of the URL-safe base64, and
// the HMAC-SHA256 recomputed with the test RTC_SECRET_KEY), never with the code under test.
import { createHmac } from 'node:crypto';
import { deflateSync, inflateSync } from 'node:zlib';
import { TEST_SECRETS, TestApp, startTestApp } from '../helpers/test-app';
import { CallsApi, Credentials, friendPair, providerId, TIMER_LOCK_WAIT_MS, isolateCallTimers } from './call-helpers';

interface SigDoc {
  'TLS.ver': string;
  'TLS.identifier': string;
  'TLS.sdkappid': number;
  'TLS.expire': number;
  'TLS.time': number;
  'TLS.sig': string;
}

/** TLSSigAPIv2's base64: `+`→`*`, `/`→`-`, `=`→`_`; undone here, then inflated. */
function decodeUserSig(userSig: string): SigDoc {
  const base64 = userSig.replace(/\*/g, '+').replace(/-/g, '/').replace(/_/g, '=');
  return JSON.parse(inflateSync(Buffer.from(base64, 'base64')).toString('utf8')) as SigDoc;
}

/** The signature TLSSigAPIv2 computes (no userbuf). */
function expectedSig(key: string, identifier: string, sdkAppId: number, time: number, expire: number): string {
  const text = `TLS.identifier:${identifier}\nTLS.sdkappid:${sdkAppId}\nTLS.time:${time}\nTLS.expire:${expire}\n`;
  return createHmac('sha256', key).update(text).digest('base64');
}

describe('RTC credentials and UserSig (issue 12)', () => {
  let t: TestApp;
  let release: () => Promise<void> = async () => undefined;
  let api: CallsApi;

  beforeAll(async () => {
    t = await startTestApp();
    release = await isolateCallTimers(t);
    api = new CallsApi(t);
  }, TIMER_LOCK_WAIT_MS);
  afterAll(async () => {
    await release();
    await t.close();
  });
  beforeEach(() => t.clock.set(Math.max(Date.now(), t.clock.now())));

  function checkCredentials(credentials: Credentials | null, userId: string, roomId: number): SigDoc {
    expect(credentials).not.toBeNull();
    const c = credentials!;
    expect(c).toMatchObject({ sdk_app_id: Number(TEST_SECRETS.RTC_SDK_APP_ID), user_id: userId, room_id: roomId });
    // TRTC's user ID rules: at most 32 bytes of letters, digits, "_" and "-"
    expect(c.user_id).toMatch(/^[A-Za-z0-9_-]{1,32}$/);
    const doc = decodeUserSig(c.user_sig);
    expect(doc['TLS.ver']).toBe('2.0');
    expect(doc['TLS.identifier']).toBe(c.user_id);
    expect(doc['TLS.sdkappid']).toBe(c.sdk_app_id);
    expect(doc['TLS.time']).toBe(Math.floor(t.clock.now() / 1000));
    expect(doc['TLS.expire']).toBeGreaterThan(0);
    expect(c.expire_at).toBe(doc['TLS.time'] + doc['TLS.expire']);
    expect(doc['TLS.sig']).toBe(
      expectedSig(TEST_SECRETS.RTC_SECRET_KEY, c.user_id, c.sdk_app_id, doc['TLS.time'], doc['TLS.expire']),
    );
    // signed with the SDK secret key, not with the callback secret
    expect(doc['TLS.sig']).not.toBe(
      expectedSig(TEST_SECRETS.RTC_CALLBACK_SECRET, c.user_id, c.sdk_app_id, doc['TLS.time'], doc['TLS.expire']),
    );
    return doc;
  }

  it('start, accept and credentials each answer a valid UserSig for the provider user ID derived from the internal ID', async () => {
    const { a, b, ab } = await friendPair(t);
    const start = await api.start(a, ab, { media: 'video' });
    checkCredentials(start.credentials, providerId(a), start.call.room_id);
    expect(start.credentials!.user_id).not.toBe(a.userId);

    t.clock.advance(3_000);
    const accept = await api.accept(b, start.call.call_id);
    checkCredentials(accept.credentials, providerId(b), start.call.room_id);

    t.clock.advance(60_000);
    const fresh = await api.post(b, 'credentials', { call_id: start.call.call_id });
    expect(fresh.body.code).toBe(0);
    const doc = checkCredentials(fresh.body.data as Credentials, providerId(b), start.call.room_id);
    expect(doc['TLS.time']).toBe(Math.floor(accept.call.accepted_at! / 1000) + 60);
  });

  it("the verifier used here accepts a vector built by hand, so a mismatch above is the server's", () => {
    const time = 1_700_000_000;
    const sig = expectedSig(TEST_SECRETS.RTC_SECRET_KEY, 'u42', 1400123456, time, 86_400);
    const json = JSON.stringify({
      'TLS.ver': '2.0',
      'TLS.identifier': 'u42',
      'TLS.sdkappid': 1400123456,
      'TLS.expire': 86_400,
      'TLS.time': time,
      'TLS.sig': sig,
    });
    const encoded = deflateSync(Buffer.from(json))
      .toString('base64')
      .replace(/\+/g, '*')
      .replace(/\//g, '-')
      .replace(/=/g, '_');
    expect(decodeUserSig(encoded)).toEqual(JSON.parse(json));
    expect(sig).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  });
});
