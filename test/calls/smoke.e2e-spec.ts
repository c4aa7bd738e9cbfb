import { connect, listen } from '../helpers/realtime';
import { isolateCallTimers } from './call-helpers';
import { Seed } from '../helpers/factories';
import { TestApp, bearer, friendConversationId, issueUser, startTestApp } from '../helpers/test-app';

describe('calls smoke', () => {
  let t: TestApp;
  let url: string;
  let release: () => Promise<void>;
  beforeAll(async () => {
    t = await startTestApp();
    // Another call spec's timer pass, by its own clock, could end this one's call (MySQL).
    release = await isolateCallTimers(t);
    url = await listen(t);
  });
  afterAll(async () => {
    await release();
    await t.close();
  });

  it('rings, is accepted, hangs up, and leaves a call message', async () => {
    const [alice, bob] = [await issueUser(t), await issueUser(t)];
    await new Seed(t).friends(alice.id, bob.id);
    const phone = await connect(url, { auth: { token: bob.token } });
    const start = await t.http
      .post('/app/sdk/calls/start')
      .set(...bearer(alice.token))
      .send({ conversation_id: friendConversationId(bob), media: 'video', client_call_id: 'c1', device_id: 'a-web' });
    expect(start.body).toMatchObject({
      code: 0,
      data: { call: { state: 'ringing', media: 'video' }, credentials: { room_id: expect.any(Number) } },
    });
    const callId = start.body.data.call.call_id as string;
    const invited = await phone.waitFor(() => phone.of('call.invited')[0]);
    expect(invited.data).toMatchObject({ conversation_id: friendConversationId(alice), call: { call_id: callId } });
    const accept = await t.http
      .post('/app/sdk/calls/accept')
      .set(...bearer(bob.token))
      .send({ call_id: callId, device_id: 'b-phone' });
    expect(accept.body).toMatchObject({
      code: 0,
      data: { call: { state: 'ongoing' }, credentials: { user_id: `u${bob.id}` } },
    });
    const second = await t.http
      .post('/app/sdk/calls/accept')
      .set(...bearer(bob.token))
      .send({ call_id: callId, device_id: 'b-web' });
    expect(second.body.code).toBe(1217);
    const hangup = await t.http
      .post('/app/sdk/calls/hangup')
      .set(...bearer(alice.token))
      .send({ call_id: callId });
    expect(hangup.body).toMatchObject({ code: 0, data: { call: { state: 'ended', end_reason: 'hangup' } } });
    const ended = await phone.waitFor(() => phone.of('call.ended')[0]);
    expect(ended.data.reason).toBe('hangup');
    const summary = await phone.waitFor(() =>
      phone.of('message.new').find((e) => (e.data.message as { type: string }).type === 'call'),
    );
    expect((summary.data.message as { content: Record<string, unknown> }).content).toMatchObject({
      call_id: callId,
      media: 'video',
      result: 'hangup',
    });
    phone.close();
  });
});
