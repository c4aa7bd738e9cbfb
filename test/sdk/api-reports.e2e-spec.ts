// client.reports against the service (spec 4.3, 4.4): a user and a group reported, with and
// without message evidence; a retry under the same request_id answers the stored report; and the
// refusals as typed errors. SDK, service and spec agree here; where the SDK leaves a field out,
// the service applies the spec's default (description "", message_ids []).
import { DataSource } from 'typeorm';
import { ApiClient, friendCid, groupCid } from '../helpers/api-client';
import { randomGroupId } from '../helpers/test-app';
import { useSdkApp } from './sdk-harness';
import { REFUSED, SdkUser, refusal, sdkUser } from './api-kit';

describe('Web SDK: client.reports', () => {
  const app = useSdkApp();

  const stored = async (reporter: SdkUser, requestId: string) =>
    (await app.t.app
      .get(DataSource)
      .query('SELECT description, message_ids FROM reports WHERE reporter_id = ? AND request_id = ?', [
        reporter.id,
        requestId,
      ])) as Array<{ description: string; message_ids: unknown }>;
  const ids = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value);

  it('reports a user (spec 4.4); the same request_id again answers the stored report with created false', async () => {
    const [alice, bob] = [await sdkUser(app), await sdkUser(app)];
    const first = await alice.c.reports.reportUser(bob.userId, 1, { description: 'spam' });
    // Spec 4.3's reply: request_id, status pending, created_at (ms), created.
    expect(first).toEqual({
      request_id: expect.stringMatching(/^[A-Za-z0-9._:-]{1,64}$/),
      status: 'pending',
      created_at: expect.any(Number),
      created: true,
    });
    const again = await alice.c.reports.reportUser(bob.userId, 1, {
      description: 'spam',
      request_id: first.request_id,
    });
    expect(again).toEqual({ ...first, created: false });
    // Spec 4.3: message_ids defaults to [] when the SDK sends none.
    expect((await stored(alice, first.request_id)).map((r) => ids(r.message_ids))).toEqual([[]]);
    // Another report under a used key must repeat its fields (spec 4.3): 1004.
    expect(
      await refusal(alice.c.reports.reportUser(bob.userId, 2, { description: 'spam', request_id: first.request_id })),
    ).toEqual(REFUSED(1004));
  });

  it('reports a group with message evidence, and refuses a group the reporter was never in (1209)', async () => {
    const [owner, member, outsider] = [await sdkUser(app), await sdkUser(app), await sdkUser(app)];
    const groupId = randomGroupId();
    await owner.c.groups.create({ group_id: groupId, name: 'Reported', member_ids: [member.userId] });
    const { message } = await owner.c.messages.sendText(groupCid(groupId), 'bad words');
    const report = await member.c.reports.reportGroup(groupId, 7, {
      request_id: `rpt-${groupId}`,
      conversation_id: groupCid(groupId),
      message_ids: [message.mid],
    });
    expect(report).toEqual({
      request_id: `rpt-${groupId}`,
      status: 'pending',
      created_at: expect.any(Number),
      created: true,
    });
    expect((await stored(member, report.request_id)).map((r) => ({ ...r, message_ids: ids(r.message_ids) }))).toEqual([
      { description: '', message_ids: [message.mid] },
    ]);
    expect(await refusal(outsider.c.reports.reportGroup(groupId, 6))).toEqual(REFUSED(1209));
  });

  it('refuses reporting oneself (1004), an unknown user (1204) and evidence the reporter cannot see (1207)', async () => {
    const [alice, bob, carol] = [await sdkUser(app), await sdkUser(app), await sdkUser(app)];
    expect(await refusal(alice.c.reports.reportUser(alice.userId, 8))).toEqual(REFUSED(1004));
    expect(await refusal(alice.c.reports.reportUser(`nobody_${Date.now()}`, 8))).toEqual(REFUSED(1204));
    await new ApiClient(app.t).befriend(bob, carol);
    const { message } = await bob.c.messages.sendText(friendCid(carol), 'private');
    await new ApiClient(app.t).befriend(alice, bob);
    // A message of bob and carol's conversation, cited in alice's conversation with bob.
    expect(
      await refusal(
        alice.c.reports.reportUser(bob.userId, 7, { conversation_id: friendCid(bob), message_ids: [message.mid] }),
      ),
    ).toEqual(REFUSED(1207));
  });
});
