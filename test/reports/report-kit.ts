import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { ApiClient, IssuedUser, groupCid } from '../helpers/api-client';
import { Factories } from '../helpers/factories';
import { TestApp, randomGroupId } from '../helpers/test-app';

export interface StoredReport {
  reporter_id: string | number;
  request_id: string;
  reason_code: number | string;
  description: string;
  status: string;
  created_at: number | string;
  message_ids: unknown;
}

export const requestId = (): string => `req-${randomBytes(8).toString('hex')}`;

/** A successful report reply. */
export function expectReport(response: Response, id: string, created: boolean): void {
  expect({ status: response.status, body: response.body }).toEqual({
    status: 200,
    body: { code: 0, msg: 'ok', data: { request_id: id, status: 'pending', created_at: expect.any(Number), created } },
  });
  expect(Number.isInteger(response.body.data.created_at)).toBe(true);
}

/** The report specs' set-up reads over the app `app()` returns (set in the spec's beforeAll). */
export function reportHelpers(app: () => { t: TestApp; api: ApiClient; factories: Factories }) {
  const stored = async (reporter: IssuedUser, id: string): Promise<StoredReport[]> =>
    app()
      .t.app.get(DataSource)
      .query('SELECT * FROM reports WHERE reporter_id = ? AND request_id = ?', [reporter.id, id]);

  /** A fresh group: the first user owns it, the others are members from the start. */
  async function makeGroup(owner: IssuedUser, members: IssuedUser[] = [], publicId = randomGroupId()) {
    await app().factories.group(owner, members, publicId);
    return { publicId, conversation: groupCid(publicId) };
  }

  /** Sends a text message; returns its mid. */
  const message = async (sender: IssuedUser, conversationId: string, text = 'hello'): Promise<string> =>
    (await app().api.send(sender, conversationId, text)).message.mid;

  return { stored, makeGroup, message };
}
