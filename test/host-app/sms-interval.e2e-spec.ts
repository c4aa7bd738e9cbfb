// SMS_PHONE_INTERVAL_SECONDS is the least time between two codes to one phone number, measured
// from the last code, not a window aligned on the clock: codes at 23:07:59 and 23:08:01 are
// two seconds apart and the second is refused. Of concurrent requests for one number, one wins.
import { DataSource } from 'typeorm';
import { RetentionService } from '../../src/retention/retention.service';
import { TestApp, startTestApp } from '../helpers/test-app';
import { randomPhone, sendCode } from '../helpers/host-app-client';

const INTERVAL_S = 60;
/** Today at 23:07:59 UTC (a minute boundary two seconds later). */
const at230759 = (): number => {
  const day = new Date();
  return Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), 23, 7, 59);
};

describe('SMS codes to one number: SMS_PHONE_INTERVAL_SECONDS apart', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      SMS_PHONE_INTERVAL_SECONDS: String(INTERVAL_S),
      SMS_PER_PHONE: '1000',
      SMS_PER_ADDRESS: '100000',
    });
  });
  afterAll(() => t.close());

  const outcome = (response: { status: number; body: { code: number }; headers: Record<string, string> }) => ({
    status: response.status,
    code: response.body.code,
    retryAfter: response.headers['retry-after'] === undefined ? null : Number(response.headers['retry-after']),
  });
  const sent = { status: 200, code: 0, retryAfter: null };

  it('refuses a second code two seconds later across a minute boundary, with 429 and Retry-After to the end of the interval', async () => {
    const phone = randomPhone();
    t.clock.set(at230759());
    expect(outcome(await sendCode(t, phone, 'signup'))).toEqual(sent);
    t.clock.set(at230759() + 2000);
    expect(outcome(await sendCode(t, phone, 'login'))).toEqual({ status: 429, code: 1005, retryAfter: INTERVAL_S - 2 });
    // Still refused one second before the interval ends, accepted when it has.
    t.clock.set(at230759() + INTERVAL_S * 1000 - 1000);
    expect(outcome(await sendCode(t, phone, 'login'))).toEqual({ status: 429, code: 1005, retryAfter: 1 });
    t.clock.set(at230759() + INTERVAL_S * 1000);
    expect(outcome(await sendCode(t, phone, 'login'))).toEqual(sent);
    // The interval runs from that code on.
    t.clock.set(at230759() + INTERVAL_S * 1000 + 30_000);
    expect(outcome(await sendCode(t, phone, 'reset'))).toEqual({ status: 429, code: 1005, retryAfter: 30 });
  });

  it('lets one of several concurrent requests for one number through', async () => {
    const phone = randomPhone();
    t.clock.set(at230759() + 3_600_000);
    const replies = await Promise.all(Array.from({ length: 6 }, () => sendCode(t, phone, 'signup')));
    const outcomes = replies.map(outcome);
    expect(outcomes.filter((o) => o.code === 0)).toEqual([sent]);
    expect(outcomes.filter((o) => o.code !== 0)).toEqual(
      Array.from({ length: 5 }, () => ({ status: 429, code: 1005, retryAfter: INTERVAL_S })),
    );
  });

  it('spaces only codes to the same number', async () => {
    t.clock.set(at230759() + 7_200_000);
    expect(outcome(await sendCode(t, randomPhone(), 'signup'))).toEqual(sent);
    expect(outcome(await sendCode(t, randomPhone(), 'signup'))).toEqual(sent);
  });

  it('forgets a number once its interval has passed (retention), and still spaces a number within it', async () => {
    const [spent, recent] = [randomPhone(), randomPhone()];
    // On a shared database a retention run prunes every spec's rows older than its cutoffs: in
    // 1990 those are only this test's own (test/retention.e2e-spec.ts writes in 2001).
    const base = Date.UTC(1990, 0, 1, 23, 7, 59);
    const rows = async (phone: string): Promise<number> =>
      (
        await t.app.get(DataSource).query('SELECT COUNT(*) AS n FROM host_sms_phone_sends WHERE phone = ?', [phone])
      ).map((row: { n: number | string }) => Number(row.n))[0];
    t.clock.set(base);
    expect(outcome(await sendCode(t, spent, 'signup'))).toEqual(sent);
    t.clock.set(base + INTERVAL_S * 1000 - 10_000);
    expect(outcome(await sendCode(t, recent, 'signup'))).toEqual(sent);
    t.clock.set(base + INTERVAL_S * 1000 + 1);
    await t.app.get(RetentionService).runOnce();
    expect({ spent: await rows(spent), recent: await rows(recent) }).toEqual({ spent: 0, recent: 1 });
    expect(outcome(await sendCode(t, recent, 'login'))).toEqual({ status: 429, code: 1005, retryAfter: 50 });
    expect(outcome(await sendCode(t, spent, 'login'))).toEqual(sent);
  });
});
