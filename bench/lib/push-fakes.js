'use strict';

/**
 * The providers of the push benchmark, in a process of their own so they take no CPU from the
 * load generator's event loop: the test suite's fake FCM (HTTP v1 + Google's OAuth2 token
 * endpoint) and fake APNs (HTTP/2, ES256 provider tokens), test/push/fakes/*.ts, loaded
 * through ts-node (transpile only: the specs type-check them). They verify what they receive as
 * in the end-to-end specs; this process only notes when each accepted notification arrived.
 * Started by bench/lib/push.js with PUSH_FAKES_DIR (where the CA files go); reports over IPC
 * the service's provider settings, then answers:
 *   {cmd: 'waitFor', keys, perKey, timeoutMs}  once `perKey` notifications (default 1) with each
 *                   collapse key have arrived, or the time is up: {missing, lastAt}
 *   {cmd: 'dump'}   every notification since the last dump: [collapseKey, provider, receivedAt],
 *                   and the counters (rejected answers, duplicates); forgets what it returned
 */

const path = require('node:path');
const { generateKeyPairSync, randomBytes } = require('node:crypto');
const fs = require('node:fs');

require('ts-node').register({
  transpileOnly: true,
  project: path.join(__dirname, '..', '..', 'tsconfig.json'),
});
const { FakeFcm } = require('../../test/push/fakes/fake-fcm');
const { FakeApns } = require('../../test/push/fakes/fake-apns');

const TOPIC = 'com.example.chat';
const arrivals = []; // [collapseKey, provider, receivedAt] not yet dumped
const byKey = new Map(); // collapseKey -> { count, lastAt } of every arrival
const byDevice = new Set(); // collapseKey + token: a second arrival is a duplicate
const counts = { fcm: 0, apns: 0, duplicates: 0, rejected: 0 };
let waiter = null; // { keys: Set, perKey, done }

/**
 * Notes the arrival time of every notification the fake accepts. The fakes keep what they
 * accepted in `received` (an array they push to); here only the collapse key and the time are
 * kept, so a long run does not hold every payload (`shown()` is of no use in this process).
 */
function watch(fake, provider) {
  const received = fake.received;
  received.push = (...entries) => {
    const at = Date.now();
    for (const entry of entries) {
      const key = entry.collapseKey;
      const device = `${key} ${entry.token}`;
      if (byDevice.has(device)) counts.duplicates++;
      byDevice.add(device);
      const known = byKey.get(key);
      if (known) {
        known.count++;
        known.lastAt = at;
      } else byKey.set(key, { count: 1, lastAt: at });
      counts[provider]++;
      arrivals.push([key, provider, at]);
    }
    if (waiter) settleWaiter();
    return received.length;
  };
}

function settleWaiter() {
  for (const key of waiter.keys) {
    const known = byKey.get(key);
    if (!known || known.count < waiter.perKey) return;
  }
  waiter.done();
}

async function main() {
  const dir = String(process.env.PUSH_FAKES_DIR);
  const fcm = await FakeFcm.start();
  const account = await fcm.serviceAccount(`bench-${randomBytes(3).toString('hex')}`);
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const keyId = randomBytes(5).toString('hex').toUpperCase();
  const teamId = randomBytes(5).toString('hex').toUpperCase();
  const apns = await FakeApns.start({ publicKey, keyId, teamId, topic: TOPIC });
  watch(fcm, 'fcm');
  watch(apns, 'apns');
  const fcmCa = path.join(dir, 'fcm-ca.pem');
  const apnsCa = path.join(dir, 'apns-ca.pem');
  fs.writeFileSync(fcmCa, fcm.caPem);
  fs.writeFileSync(apnsCa, apns.caPem);
  const rejected = () =>
    fcm.answered.filter((a) => a.endpoint === 'send' && a.status !== 200).length +
    apns.requests.filter((r) => r.status !== 200).length;

  process.on('message', (message) => {
    if (message.cmd === 'waitFor') {
      const keys = new Set(message.keys);
      const perKey = message.perKey || 1;
      const done = () => {
        clearTimeout(timer);
        waiter = null;
        let missing = 0;
        let lastAt = null;
        for (const key of keys) {
          const known = byKey.get(key);
          missing += Math.max(0, perKey - (known ? known.count : 0));
          if (known && (lastAt === null || known.lastAt > lastAt)) lastAt = known.lastAt;
        }
        process.send({ waited: { missing, lastAt } });
      };
      const timer = setTimeout(done, message.timeoutMs);
      waiter = { keys, perKey, done };
      settleWaiter();
    } else if (message.cmd === 'dump') {
      counts.rejected += rejected();
      process.send({ dump: { counts: { ...counts }, arrivals: arrivals.splice(0) } });
      // What the fakes kept of each request is not needed once counted.
      apns.requests.length = 0;
      fcm.answered.length = 0;
    }
  });
  process.on('disconnect', () => {
    Promise.all([fcm.close(), apns.close()]).finally(() => process.exit(0));
  });
  process.send({
    env: {
      FCM_SERVICE_ACCOUNT: account.json,
      FCM_URL: fcm.url,
      FCM_CA_FILE: fcmCa,
      APNS_KEY: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      APNS_KEY_ID: keyId,
      APNS_TEAM_ID: teamId,
      APNS_TOPIC: TOPIC,
      APNS_URL: apns.url,
      APNS_CA_FILE: apnsCa,
    },
  });
}

main().catch((error) => {
  console.error(`push fakes: ${error.stack || error.message}`);
  process.exit(1);
});
