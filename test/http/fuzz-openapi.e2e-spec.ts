// Schema-driven fuzz test (issue 10): reads the served /openapi.json and sends generated bad
// input to every operation — wrong types, null, missing and extra fields, huge and Unicode-edge
// strings, deep nesting, numeric extremes, bad query strings and path parameters, odd content
// types, malformed multipart bodies and forged callbacks — with a seeded generator. Every reply
// must be the envelope {code, msg, data} (data null when code is not 0), never HTTP 500; the
// room callback answers in the provider format. Bounded by a time budget (FUZZ_BUDGET_MS) after a
// minimum count per operation. Replay a run with FUZZ_SEED=<printed seed>.
import fc from 'fast-check';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import {
  UploadForm,
  badAuthorization,
  badQueryValue,
  badRootBody,
  badValue,
  callbackPlan,
  describeValue,
  multipartPlan,
  odd,
  pathValue,
  percentEncode,
  toJson,
} from '../helpers/fuzz-input';
import {
  IssuedUser,
  TEST_SECRETS,
  TestApp,
  bearer,
  hostAuth,
  issueUser,
  okData,
  randomGroupId,
  startTestApp,
} from '../helpers/test-app';

const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : randomBytes(4).readUInt32BE(0) >>> 1;
const BUDGET_MS = Number(process.env.FUZZ_BUDGET_MS ?? 25_000);
/** Generated requests per operation before the time budget is shared out (besides the systematic pass). */
const MIN_RANDOM_PER_OPERATION = 12;
const BATCH = 6;
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

type Schema = {
  type?: string;
  enum?: unknown[];
  example?: unknown;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  $ref?: string;
};
interface Param {
  name: string;
  in: 'query' | 'path' | 'header';
  required: boolean;
  schema: Schema;
}
interface Operation {
  key: string;
  method: 'get' | 'post';
  path: string;
  auth: 'host' | 'sdk' | 'none';
  params: Param[];
  body: Schema | null;
  multipart: boolean;
  callback: boolean;
  /** The documented success reply may be something other than JSON (media bytes). */
  nonJsonOk: boolean;
  /** HTTP statuses the operation documents (401/403/429 for cookie-session routes). */
  statuses: number[];
}
interface Plan {
  label: string;
  auth: 'valid' | 'none' | 'other' | string;
  query: string;
  pathValue?: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  form?: UploadForm;
}

function operationsOf(document: {
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: { schemas: Record<string, Schema> };
}): Operation[] {
  const resolve = (schema: Schema | undefined): Schema | null =>
    schema?.$ref ? document.components.schemas[schema.$ref.split('/').pop()!] : (schema ?? null);
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (method !== 'get' && method !== 'post') continue;
      const security = JSON.stringify(op.security ?? []);
      const content = ((op.requestBody as { content?: Record<string, { schema?: Schema }> } | undefined)?.content ??
        {}) as Record<string, { schema?: Schema }>;
      const success = ((op.responses as Record<string, { content?: Record<string, unknown> }>)['200']?.content ??
        {}) as Record<string, unknown>;
      operations.push({
        key: `${method.toUpperCase()} ${path}`,
        method,
        path,
        auth: security.includes('sdk-secret') ? 'host' : security.includes('im-token') ? 'sdk' : 'none',
        params: ((op.parameters ?? []) as Param[]).map((p) => ({ ...p, schema: resolve(p.schema) ?? {} })),
        body: resolve(content['application/json']?.schema ?? content['multipart/form-data']?.schema),
        multipart: 'multipart/form-data' in content,
        callback: path.endsWith('/rtc/room-callback'),
        nonJsonOk: Object.keys(success).some((type) => !type.includes('json')),
        statuses: Object.keys(op.responses as Record<string, unknown>)
          .map(Number)
          .filter(Number.isInteger),
      });
    }
  }
  return operations.sort((a, b) => a.key.localeCompare(b.key));
}

/** A near-valid value for a field, so that one mutation at a time reaches the deeper checks. */
function baseValue(name: string, schema: Schema, known: Record<string, unknown>): unknown {
  if (name in known) return known[name];
  if (schema.example !== undefined) return schema.example;
  if (schema.enum?.length) return schema.enum[0];
  if (schema.type === 'integer' || schema.type === 'number') return 1;
  if (schema.type === 'boolean') return true;
  if (schema.type === 'array') return [];
  if (schema.type === 'object') return { text: 'hello' };
  return 'x';
}

const NESTED_KEYS = [
  'text',
  'media_id',
  'width',
  'height',
  'data',
  'description',
  'RoomId',
  'UserId',
  'a',
  '__proto__',
];
const PAGING = fc.constantFrom('page', 'offset', 'limit');

/** The required fields, and the optional ones a fixture value exists for. */
function baseBody(op: Operation, known: Record<string, unknown>): Record<string, unknown> {
  const properties = op.body?.properties ?? {};
  const required = op.body?.required ?? [];
  return Object.fromEntries(
    Object.keys(properties)
      .filter((n) => required.includes(n) || n in known)
      .map((n) => [n, baseValue(n, properties[n], known)]),
  );
}

function baseQuery(op: Operation, known: Record<string, unknown>): Array<[string, string]> {
  return op.params
    .filter((p) => p.in === 'query' && (p.required || p.name in known))
    .map((p) => [p.name, percentEncode(String(baseValue(p.name, p.schema, known)))]);
}

const json = (label: string, body: Record<string, unknown>) => ({
  label,
  body: toJson(body),
  headers: { 'Content-Type': 'application/json' },
});

/** The value of another JSON type than the schema's, for the systematic pass. */
const wrongType = (schema: Schema): unknown => (schema.type === 'string' || schema.type === undefined ? 1 : 'x');

/**
 * Every field of every operation, one at a time: null, another JSON type, an array, an object
 * (query parameters: empty, repeated, bracketed), with the other fields near-valid, so that a
 * field whose null or wrong type reaches a service is found on every run, not by chance.
 */
function systematicPlans(op: Operation, known: Record<string, unknown>): Plan[] {
  const plans: Plan[] = [];
  const query = baseQuery(op, known);
  const render = (pairs: Array<[string, string]>) => pairs.map(([k, v]) => `${k}=${v}`).join('&');
  const knownPath = op.params.some((p) => p.in === 'path') ? String(known.media_id) : undefined;
  const plain = { auth: 'valid', headers: {}, pathValue: knownPath };
  for (const param of op.params.filter((p) => p.in === 'query')) {
    const others = query.filter(([k]) => k !== param.name);
    for (const pairs of [
      [[param.name, '']],
      [
        [param.name, '1'],
        [param.name, '2'],
      ],
      [[`${param.name}[a]`, '1']],
      [[`${param.name}[]`, '1']],
    ] as Array<Array<[string, string]>>) {
      plans.push({ ...plain, label: `systematic query ${render(pairs)}`, query: render([...others, ...pairs]) });
    }
  }
  // Over Node's 16 KiB header limit: the reply must still be the envelope (or the provider format).
  plans.push({
    ...plain,
    label: 'systematic query over 16 KiB',
    query: render([...query, ['pad', 'a'.repeat(17_000)]]),
  });
  if (op.method === 'post' && !op.multipart && !op.callback) {
    for (const [name, schema] of Object.entries(op.body?.properties ?? {})) {
      for (const value of [null, wrongType(schema), [], {}]) {
        plans.push({
          ...plain,
          ...json(`systematic ${name} := ${describeValue(value)}`, { ...baseBody(op, known), [name]: value }),
          query: render(query),
        });
      }
    }
  }
  return plans;
}

function bodyPlan(
  op: Operation,
  known: Record<string, unknown>,
): fc.Arbitrary<Pick<Plan, 'label' | 'body' | 'headers'>> {
  const properties = op.body?.properties ?? {};
  const names = Object.keys(properties);
  const required = op.body?.required ?? [];
  const base = (): Record<string, unknown> => baseBody(op, known);
  const fieldName = names.length
    ? fc.oneof(
        { arbitrary: fc.constantFrom(...names), weight: 8 },
        { arbitrary: fc.constantFrom('unknown', '__proto__', 'constructor', ''), weight: 1 },
      )
    : fc.constantFrom('unknown', '__proto__');
  const nestedValue = fc.oneof(
    fc
      .dictionary(fc.constantFrom(...NESTED_KEYS), badValue, { minKeys: 1, maxKeys: 4 })
      .map((extra) => ({ text: 'hello', data: { a: 1 }, media_id: String(known.media_id), ...extra })),
    fc.array(badValue, { minLength: 1, maxLength: 25 }),
    fc.tuple(badValue, badValue).map(([a, b]) => [known.user_id, a, b]),
  );
  return fc.oneof(
    {
      arbitrary: fc
        .tuple(fieldName, badValue)
        .map(([k, v]) => json(`field ${k} := ${describeValue(v)}`, { ...base(), [k]: v })),
      weight: 10,
    },
    {
      arbitrary: fc
        .tuple(fieldName, nestedValue)
        .map(([k, v]) => json(`nested ${k} := ${describeValue(v)}`, { ...base(), [k]: v })),
      weight: 3,
    },
    {
      arbitrary: fc.array(fc.tuple(fieldName, badValue), { minLength: 2, maxLength: 4 }).map((pairs) =>
        json(`fields ${pairs.map(([k, v]) => `${k}:=${describeValue(v)}`).join(', ')}`, {
          ...base(),
          ...Object.fromEntries(pairs),
        }),
      ),
      weight: 3,
    },
    ...(names.length
      ? [
          {
            arbitrary: fc
              .subarray(required.length ? required : names, { minLength: 1 })
              .map((missing) =>
                json(
                  `missing ${missing.join(', ')}`,
                  Object.fromEntries(Object.entries(base()).filter(([k]) => !missing.includes(k))),
                ),
              ),
            weight: 2,
          },
        ]
      : []),
    {
      arbitrary: fc
        .dictionary(
          fc.oneof(
            fc.string({ unit: 'binary', maxLength: 10 }),
            fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'),
          ),
          badValue,
          { minKeys: 1, maxKeys: 5 },
        )
        .map((extra) =>
          json(
            `extra ${Object.keys(extra)
              .map((k) => JSON.stringify(k))
              .join(', ')}`,
            { ...base(), ...extra },
          ),
        ),
      weight: 2,
    },
    { arbitrary: PAGING.map((k) => json(`paging ${k}`, { ...base(), [k]: 1 })), weight: 1 },
    {
      arbitrary: badRootBody.map((body) => ({
        label: `root ${describeValue(Buffer.isBuffer(body) ? body.toString('latin1') : body)}`,
        body,
        headers: { 'Content-Type': 'application/json' },
      })),
      weight: 3,
    },
    {
      arbitrary: fc.tuple(odd.contentType, odd.contentEncoding).map(([type, encoding]) => ({
        label: `Content-Type ${JSON.stringify(type)}${encoding ? ` Content-Encoding ${encoding}` : ''}`,
        body: toJson(base()),
        headers: { 'Content-Type': type, ...(encoding ? { 'Content-Encoding': encoding } : {}) },
      })),
      weight: 2,
    },
  );
}

function queryPlan(
  op: Operation,
  known: Record<string, unknown>,
  mutate: boolean,
): fc.Arbitrary<{ label: string; query: string }> {
  const names = op.params.filter((p) => p.in === 'query').map((p) => p.name);
  const base = (): Array<[string, string]> => baseQuery(op, known);
  const render = (label: string, pairs: Array<[string, string]>) => ({
    label,
    query: pairs.map(([k, v]) => `${k}=${v}`).join('&'),
  });
  const name = names.length
    ? fc.oneof(
        { arbitrary: fc.constantFrom(...names), weight: 6 },
        { arbitrary: fc.constantFrom('unknown', '__proto__', 'cursor'), weight: 1 },
      )
    : fc.constantFrom('unknown', 'cursor', '__proto__');
  const mutations = fc.oneof(
    {
      arbitrary: fc
        .tuple(name, badQueryValue)
        .map(([k, v]) => render(`query ${k}=${v.slice(0, 40)}`, [...base().filter(([b]) => b !== k), [k, v]])),
      weight: 6,
    },
    {
      arbitrary: fc
        .tuple(name, fc.array(badQueryValue, { minLength: 2, maxLength: 3 }))
        .map(([k, vs]) => render(`query repeated ${k}`, [...base(), ...vs.map((v): [string, string] => [k, v])])),
      weight: 2,
    },
    {
      arbitrary: fc
        .tuple(name, fc.constantFrom('[]', '[a]', '[0]', '[__proto__]', '.x', '[a][b]', '%5B%5D'), badQueryValue)
        .map(([k, suffix, v]) => render(`query ${k}${suffix}`, [...base(), [`${k}${suffix}`, v]])),
      weight: 2,
    },
    ...(names.length
      ? [
          {
            arbitrary: fc.subarray(names, { minLength: 1 }).map((missing) =>
              render(
                `query missing ${missing.join(',')}`,
                base().filter(([k]) => !missing.includes(k)),
              ),
            ),
            weight: 1,
          },
        ]
      : []),
    {
      arbitrary: fc
        .constantFrom('&&&', '=', '=x', '&=&', 'a', '%', '%%%', '&a=1&a=2&a[b]=1', '%3D%26=%26')
        .map((raw) => ({ label: `query raw ${raw}`, query: [...base().map(([k, v]) => `${k}=${v}`), raw].join('&') })),
      weight: 1,
    },
    { arbitrary: PAGING.map((k) => render(`query paging ${k}`, [...base(), [k, '1']])), weight: 1 },
  );
  return mutate ? mutations : fc.constant(render('', base()));
}

function planFor(op: Operation, known: Record<string, unknown>): fc.Arbitrary<Plan> {
  const auth = fc.oneof(
    { arbitrary: fc.constant('valid'), weight: 22 },
    { arbitrary: fc.constantFrom('none', 'other'), weight: 2 },
    { arbitrary: badAuthorization, weight: 1 },
  );
  const queryMutated =
    op.method === 'get'
      ? fc.constant(true)
      : fc.oneof({ arbitrary: fc.constant(false), weight: 6 }, { arbitrary: fc.constant(true), weight: 1 });
  const hasPath = op.params.some((p) => p.in === 'path');
  const payload = op.callback
    ? op.method === 'post'
      ? callbackPlan()
      : fc.constant({ label: '', headers: {} })
    : op.multipart
      ? multipartPlan(PNG)
      : op.method === 'post'
        ? bodyPlan(op, known)
        : fc.constant({ label: '', headers: {} });
  return fc
    .tuple(
      auth,
      queryMutated.chain((mutate) => queryPlan(op, known, mutate)),
      hasPath ? fc.oneof(fc.constant(String(known.media_id)), pathValue(known)) : fc.constant(undefined),
      payload,
    )
    .map(([a, q, p, body]) => ({
      ...body,
      label: [
        a === 'valid' ? '' : `auth=${a.slice(0, 20)}`,
        q.label,
        p === undefined ? '' : `path=${p.slice(0, 30)}`,
        body.label,
      ]
        .filter(Boolean)
        .join(' | '),
      auth: a,
      query: q.query,
      pathValue: p,
    }));
}

/** Why the reply breaks the contract, or null. */
function problemOf(op: Operation, status: number, type: string, raw: Buffer): string | null {
  const text = raw.toString('utf8');
  if (status === 500) return `HTTP 500 ${text.slice(0, 160)}`;
  if (op.callback) {
    // A GET only checks reachability (200 {"code":0}), unless Node refuses the request itself
    // (headers over 16 KiB), which the provider format answers 403 {"code":1}.
    const expected = status === 200 ? { status: 200, text: '{"code":0}' } : { status: 403, text: '{"code":1}' };
    return status === expected.status && text === expected.text
      ? null
      : `callback reply HTTP ${status} ${text.slice(0, 160)}`;
  }
  if (!type.startsWith('application/json'))
    return op.nonJsonOk && status === 200 ? null : `HTTP ${status}, not JSON (${type}): ${text.slice(0, 160)}`;
  let body: { code?: unknown; msg?: unknown; data?: unknown };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return `HTTP ${status}, malformed JSON: ${text.slice(0, 160)}`;
  }
  if (
    typeof body !== 'object' ||
    body === null ||
    typeof body.code !== 'number' ||
    typeof body.msg !== 'string' ||
    !('data' in body)
  )
    return `HTTP ${status}, not the envelope: ${text.slice(0, 160)}`;
  if (body.code !== 0 && body.data !== null) return `code ${body.code} with non-null data`;
  // 404: no such route (a bad path parameter); 431: headers over Node's limit, still enveloped;
  // and what the operation documents (a cookie-session route's 401 and 403, an SMS limit's 429).
  const refusals = [200, 404, 431, ...op.statuses.filter((documented) => documented !== 500)];
  const allowed = body.code === 0 ? [200] : op.path.startsWith('/health') ? [...refusals, 503] : refusals;
  return allowed.includes(status) ? null : `HTTP ${status} with code ${body.code}: ${text.slice(0, 160)}`;
}

describe('Schema-driven fuzz of every operation in /openapi.json', () => {
  let t: TestApp;
  let operations: Operation[];
  let users: { a: IssuedUser; b: IssuedUser; victim: IssuedUser };
  const known: Record<string, unknown> = {};

  beforeAll(async () => {
    t = await startTestApp();
    const document = okOpenApi(await t.http.get('/openapi.json'));
    operations = operationsOf(document);
    users = { a: await issueUser(t), b: await issueUser(t), victim: await issueUser(t) };
    const c = await issueUser(t);
    const { a, b } = users;
    const post = (user: IssuedUser, path: string, body: object) =>
      t.http
        .post(path)
        .set(...bearer(user.token))
        .send(body);
    const request = okData<{ request: { id: string } }>(
      await post(a, '/app/sdk/friends/requests', { user_id: b.userId, request_id: 'fuzz-1' }),
    );
    okData(await post(b, '/app/sdk/friends/requests/accept', { id: request.request.id }));
    const pending = okData<{ request: { id: string } }>(
      await post(c, '/app/sdk/friends/requests', { user_id: a.userId, request_id: 'fuzz-2' }),
    );
    const groupId = randomGroupId();
    okData(await post(a, '/app/sdk/groups/create', { group_id: groupId, name: 'Fuzz', member_ids: [b.userId] }));
    const sent = okData<{ message: { mid: string } }>(
      await post(a, '/app/sdk/messages/send', {
        conversation_id: `group_${groupId}`,
        client_message_id: 'fuzz-m1',
        type: 'text',
        content: { text: 'hello' },
      }),
    );
    const media = okData<{ media: { media_id: string } }>(
      await t.http
        .post('/app/sdk/media/upload')
        .set(...bearer(a.token))
        .attach('file', PNG, { filename: 'a.png', contentType: 'image/png' })
        .field('kind', 'image'),
    );
    const invitation = okData<{ code: string }>(
      await post(a, '/app/sdk/groups/invitations/create', { group_id: groupId }),
    );
    Object.assign(known, {
      user_id: b.userId,
      group_id: groupId,
      conversation_id: `group_${groupId}`,
      mid: sent.message.mid,
      id: pending.request.id,
      media_id: media.media.media_id,
      code: invitation.code,
      read_seq: '1',
      event_id: randomUUID(),
      member_ids: [b.userId],
      user_ids: [b.userId],
      message_ids: [sent.message.mid],
    });
  }, 60_000);
  afterAll(() => t.close());

  function okOpenApi(response: { status: number; body: unknown }) {
    expect(response.status).toBe(200);
    return response.body as Parameters<typeof operationsOf>[0];
  }

  /** Known values per operation: host endpoints act on a throwaway user, client errors on the caller. */
  function knownFor(op: Operation): Record<string, unknown> {
    if (op.auth === 'host') return { ...known, user_id: users.victim.userId };
    if (op.path.endsWith('/client-errors')) return { ...known, user_id: users.a.userId };
    return known;
  }

  async function send(
    op: Operation,
    plan: Plan,
  ): Promise<{ status: number; type: string; raw: Buffer } | { error: string }> {
    const path = plan.pathValue === undefined ? op.path : op.path.replace(/\{[^}]+\}/, plan.pathValue);
    const url = plan.query ? `${path}?${plan.query}` : path;
    let req = op.method === 'get' ? t.http.get(url) : t.http.post(url);
    const credential = op.auth === 'host' ? hostAuth()[1] : `Bearer ${users.a.token}`;
    const other = op.auth === 'host' ? `Bearer ${users.a.token}` : hostAuth()[1];
    if (plan.auth === 'valid' && op.auth !== 'none') req = req.set('Authorization', credential);
    else if (plan.auth === 'other') req = req.set('Authorization', other);
    else if (plan.auth !== 'none' && plan.auth !== 'valid') req = req.set('Authorization', plan.auth);
    const headers = { ...plan.headers };
    if (op.callback && op.method === 'post') {
      const now = Date.now();
      const body = String(plan.body)
        .replace(/__NOW_MS__/g, String(now))
        .replace(/__NOW_S__/g, String(Math.floor(now / 1000)));
      plan = { ...plan, body: Buffer.from(body, 'utf8') };
      const sign = {
        valid: createHmac('sha256', TEST_SECRETS.RTC_CALLBACK_SECRET)
          .update(plan.body as Buffer)
          .digest('base64'),
        wrong: 'AAAA',
        huge: 'A'.repeat(5000),
        empty: '',
      }[headers['x-fuzz-sign']];
      const appId = { valid: TEST_SECRETS.RTC_SDK_APP_ID, wrong: '1', ' 1400123456': ' 1400123456' }[
        headers['x-fuzz-appid']
      ];
      if (sign !== undefined) headers.Sign = sign;
      if (appId !== undefined) headers.SdkAppId = appId;
      delete headers['x-fuzz-sign'];
      delete headers['x-fuzz-appid'];
    }
    for (const [name, value] of Object.entries(headers)) req = req.set(name, value);
    try {
      if (plan.form) {
        for (const [name, value] of plan.form.fields) req = req.field(name, value);
        for (const file of plan.form.files)
          req = req.attach(file.field, file.content, { filename: file.filename, contentType: file.contentType });
      } else if (plan.body !== undefined) {
        // The bytes as generated: superagent would otherwise serialise a Buffer as JSON.
        req = req
          .serialize((data: unknown) => data as string)
          .send(Buffer.isBuffer(plan.body) ? plan.body : Buffer.from(plan.body, 'utf8'));
      }
      const response = await req
        .timeout({ response: 15_000, deadline: 20_000 })
        .buffer(true)
        .parse((res: unknown, done: (error: Error | null, body: unknown) => void) => {
          const chunks: Buffer[] = [];
          (res as IncomingMessage).on('data', (chunk: Buffer) => chunks.push(chunk));
          (res as IncomingMessage).on('end', () => done(null, Buffer.concat(chunks)));
        });
      return {
        status: response.status,
        type: String(response.headers['content-type'] ?? ''),
        raw: response.body as Buffer,
      };
    } catch (error) {
      const e = error as { code?: string; message?: string; timeout?: number };
      return {
        error: e.timeout ? 'no reply in time' : `${e.code ?? 'error'}: ${e.message ?? String(error)}`.slice(0, 200),
      };
    }
  }

  it(
    'answers every generated request with the envelope (or the provider format), never HTTP 500',
    async () => {
      // eslint-disable-next-line no-console
      console.log(
        `fuzz seed ${SEED} (replay with FUZZ_SEED=${SEED}), budget ${BUDGET_MS} ms, ${operations.length} operations, driver ${t.driver}`,
      );
      expect(operations.length).toBeGreaterThanOrEqual(40);
      const arbitraries = operations.map((op) => planFor(op, knownFor(op)));
      const counts = operations.map(() => 0);
      const batches = operations.map(() => 0);
      const failures: string[] = [];
      const codes = new Map<string, number>();
      const started = Date.now();
      const check = async (index: number, plan: Plan, where: string): Promise<void> => {
        const op = operations[index];
        const reply = await send(op, plan);
        counts[index]++;
        const problem = 'error' in reply ? reply.error : problemOf(op, reply.status, reply.type, reply.raw);
        if (!('error' in reply)) {
          const code = reply.type.startsWith('application/json')
            ? String((JSON.parse(reply.raw.toString('utf8') || 'null') as { code?: unknown } | null)?.code)
            : 'bytes';
          codes.set(`${reply.status}/${code}`, (codes.get(`${reply.status}/${code}`) ?? 0) + 1);
        }
        if (problem && failures.length < 40)
          failures.push(`${op.key} [${where}] ${plan.label.slice(0, 300)} -> ${problem}`);
      };
      const runBatch = async (index: number): Promise<void> => {
        const batch = batches[index]++;
        const seed = (SEED ^ Math.imul(index + 1, 0x9e3779b1) ^ Math.imul(batch + 1, 0x85ebca77)) >>> 0;
        for (const [n, plan] of fc.sample(arbitraries[index], { seed, numRuns: BATCH }).entries())
          await check(index, plan, `seed ${seed} #${n}`);
      };
      for (let index = 0; index < operations.length; index++) {
        for (const plan of systematicPlans(operations[index], knownFor(operations[index])))
          await check(index, plan, 'systematic');
      }
      for (let index = 0; index < operations.length; index++)
        while (batches[index] * BATCH < MIN_RANDOM_PER_OPERATION) await runBatch(index);
      for (let index = 0; Date.now() - started < BUDGET_MS; index = (index + 1) % operations.length)
        await runBatch(index);
      const total = counts.reduce((sum, n) => sum + n, 0);
      // eslint-disable-next-line no-console
      console.log(
        `fuzz: ${total} requests in ${Date.now() - started} ms, per operation ${Math.min(...counts)}–${Math.max(...counts)}; replies ${[
          ...codes,
        ]
          .sort((x, y) => y[1] - x[1])
          .map(([k, v]) => `${k}:${v}`)
          .join(' ')}`,
      );
      expect(failures).toEqual([]);
      expect(Math.min(...batches) * BATCH).toBeGreaterThanOrEqual(MIN_RANDOM_PER_OPERATION);
    },
    BUDGET_MS + 120_000,
  );
});
