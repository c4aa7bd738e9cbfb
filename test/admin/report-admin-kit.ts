// Set-up shared by the specs of moderation from a report: reports filed through the SDK, their
// console IDs, and the console calls the specs make.
import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import type { IssuedUser } from '../helpers/api-client';
import { expectOk } from '../helpers/assertions';
import type { AdminSession } from '../helpers/admin-client';
import type { TestApp } from '../helpers/test-app';

export type Row = Record<string, unknown>;

export interface ReportBody {
  reason_code?: number;
  conversation_id?: string;
  message_ids?: string[];
  description?: string;
}

/** Files a report through the SDK and answers its console ID. */
export async function fileReport(
  t: TestApp,
  reporter: IssuedUser,
  target: { user_id: string } | { group_id: string },
  body: ReportBody = {},
): Promise<string> {
  const requestId = randomUUID();
  const path = 'user_id' in target ? '/app/sdk/reports/user' : '/app/sdk/reports/group';
  expectOk(
    await t.http
      .post(path)
      .set('Authorization', `Bearer ${reporter.token}`)
      .send({ request_id: requestId, reason_code: 1, ...target, ...body }),
  );
  const rows = (await t.app
    .get(DataSource)
    .query('SELECT id FROM reports WHERE reporter_id = ? AND request_id = ?', [reporter.id, requestId])) as Array<{
    id: string | number;
  }>;
  return String(rows[0].id);
}

export const act = (s: AdminSession, body: Row): Promise<Response> => s.post('/app/admin/reports/act', body);

export async function detail(s: AdminSession, reportId: string): Promise<{ report: Row; history: Row[] }> {
  return expectOk(await s.get('/app/admin/reports/detail', { report_id: reportId }));
}

/** Audit rows of a target, newest first. */
export async function auditOf(s: AdminSession, targetType: string, targetId: string): Promise<Row[]> {
  return expectOk<{ items: Row[] }>(await s.get('/app/admin/audit', { target_type: targetType, target_id: targetId }))
    .items;
}

/** A refusal: HTTP 200 and `code`, its msg starting with `field: `. */
export function expectRefused(response: Response, code: number, field: string): void {
  expect({ status: response.status, code: response.body.code, data: response.body.data }).toEqual({
    status: 200,
    code,
    data: null,
  });
  expect(response.body.msg).toMatch(new RegExp(`^${field}: `));
}

/** The role guard's refusal. */
export function expectRoleRefused(response: Response): void {
  expect({ status: response.status, code: response.body.code }).toEqual({ status: 403, code: 1004 });
  expect(response.body.msg).toMatch(/^role: /);
}
