// The scenario an application runs with the installed package, as plain JavaScript source: the
// Node specs prepend an `import` or a `require` of `@im-sdk/web`, the browser pages a bundled
// import or the script tag's global. Two users log in, the second waits until its connection is
// ready, the first sends a text into their one-to-one conversation, and the second receives it
// on its `message.new` listener and on the catch-all `'event'` channel; a refused request
// rejects with the package's own ImError.

/** What the Node consumers read from IM_SCENARIO. */
export interface NodeScenarioInput {
  base: string;
  /** The host endpoint's replies, handed to each client's authProvider. */
  sender: unknown;
  receiver: unknown;
  /** The conversation as the sender names it. */
  conversationId: string;
  text: string;
}

/** What a consumer reports: the receiver's copy of the message, on both channels. */
export interface ScenarioResult {
  sent: { mid: string; conversation_id: string };
  typed: { type: string; conversation_id: string; text: unknown; sender_id: string; mid: string };
  catchAll: { type: string; mid: string };
  refused: { isImError: boolean; code: unknown; kind: unknown };
}

/**
 * Defines `runScenario(input, log)` in plain JavaScript; `createClient` and `ImError` must be in
 * scope. Resolves with a {@link ScenarioResult}; every client is destroyed at the end.
 */
export const SCENARIO_SOURCE = String.raw`
async function runScenario(input) {
  const clients = [];
  const within = (promise, what) =>
    Promise.race([
      promise,
      new Promise((_, reject) => setTimeout(() => reject(new Error('timed out waiting for ' + what)), 30000)),
    ]);
  async function connect(authProvider) {
    const client = createClient({ baseUrl: input.base, authProvider });
    clients.push(client);
    const ready = new Promise((resolve) => client.once('connection.ready', resolve));
    await client.login();
    return { client, ready };
  }
  try {
    const sender = await connect(input.senderAuth);
    const receiver = await connect(input.receiverAuth);
    await within(receiver.ready, "the receiver's connection.ready");
    const typed = new Promise((resolve) => receiver.client.on('message.new', resolve));
    const catchAll = new Promise((resolve) =>
      receiver.client.on('event', (event) => {
        if (event.type === 'message.new') resolve(event);
      }),
    );
    const reply = await sender.client.messages.sendText(input.conversationId, input.text);
    const received = await within(typed, 'message.new');
    const any = await within(catchAll, "the 'event' channel");
    let refused = { isImError: false, code: null, kind: null };
    try {
      await sender.client.post('/app/sdk/messages/send', {});
    } catch (error) {
      refused = { isImError: error instanceof ImError, code: error.code, kind: error.kind };
    }
    return {
      sent: { mid: reply.message.mid, conversation_id: reply.message.conversation_id },
      typed: {
        type: received.type,
        conversation_id: received.data.conversation_id,
        text: received.data.message.content && received.data.message.content.text,
        sender_id: received.data.message.sender_id,
        mid: received.data.message.mid,
      },
      catchAll: { type: any.type, mid: any.data.message.mid },
      refused,
    };
  } finally {
    for (const client of clients) client.destroy();
  }
}
`;

/** A Node program around the scenario: input from IM_SCENARIO, the result as one JSON line. */
export function nodeConsumer(importLine: string): string {
  return `${importLine}
${SCENARIO_SOURCE}
const input = JSON.parse(process.env.IM_SCENARIO);
input.senderAuth = async () => input.sender;
input.receiverAuth = async () => input.receiver;
runScenario(input).then(
  (result) => {
    process.stdout.write(JSON.stringify(result) + '\\n');
    // The clients are destroyed; nothing should keep Node alive, but a stray timer must not hang the spec.
    setTimeout(() => process.exit(0), 1000).unref();
  },
  (error) => {
    process.stderr.write(String(error && error.stack ? error.stack : error) + '\\n');
    process.exit(1);
  },
);
`;
}
