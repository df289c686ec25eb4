// Webhooks through the official client's own request method (the routes
// extend the published interface), against a real `docsapi serve` whose
// background worker delivers to a receiver on loopback. The receiver checks
// signatures with the function the README gives receivers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import http from 'node:http';
import { once } from 'node:events';
import { ContentType } from '@gitbook/api';
import { startServer } from './harness.mjs';

// README "Webhooks", as a receiver would write it.
function verify(secret, headers, rawBody /* Buffer */) {
  const ts = headers['x-docsapi-timestamp'];
  if (!/^\d+$/.test(ts) || Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false;
  const want = Buffer.from('v1=' + crypto.createHmac('sha256', secret).update(ts + '.').update(rawBody).digest('hex'));
  return (headers['x-docsapi-signature'] || '').split(',').some((s) => {
    const got = Buffer.from(s.trim());
    return got.length === want.length && crypto.timingSafeEqual(got, want);
  });
}

let s, receiver, url;
const received = [];
before(async () => {
  s = await startServer();
  receiver = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200).end('ok');
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  url = `http://127.0.0.1:${receiver.address().port}/hook`;
});
after(async () => {
  receiver?.close();
  await s?.stop();
});

const call = (method, path, body) =>
  s.client.request({ path: `/orgs/${s.org}/webhooks${path}`, method, body, secure: true, type: ContentType.Json, format: 'json' });

async function nextDelivery(count) {
  const until = Date.now() + 10000;
  while (received.length < count && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  assert.equal(received.length, count, 'delivery within 10 s');
  return received[count - 1];
}

test('a created space is delivered, signed; rotation signs with both secrets', async () => {
  const { data: hook, status } = await call('POST', '', { url, events: ['space.created'], description: 'client test' });
  assert.equal(status, 201);
  assert.match(hook.secret, /^whsec_/);

  const { data: space } = await s.client.orgs.createSpace(s.org, { title: 'Hooked' });
  const d = await nextDelivery(1);
  assert.ok(verify(hook.secret, d.headers, d.body), 'signature verifies');
  assert.ok(!verify('whsec_other', d.headers, d.body));
  const payload = JSON.parse(d.body);
  assert.equal(payload.type, 'space.created');
  assert.equal(payload.organization, s.org);
  assert.equal(payload.data.id, space.id);
  assert.equal(d.headers['x-docsapi-event-id'], payload.id);

  // The outcome is recorded just after the receiver answered.
  let list;
  for (const until = Date.now() + 10000; Date.now() < until; await new Promise((r) => setTimeout(r, 20))) {
    ({ data: list } = await call('GET', `/${hook.id}/deliveries`));
    if (list.items[0].status !== 'pending') break;
  }
  assert.equal(list.items[0].id, payload.id);
  assert.equal(list.items[0].status, 'succeeded');
  assert.equal(list.items[0].responseStatus, 200);

  const { data: rotated } = await call('POST', `/${hook.id}/secret/rotate`);
  assert.notEqual(rotated.secret, hook.secret);
  assert.equal((await call('POST', `/${hook.id}/ping`)).status, 202);
  const ping = await nextDelivery(2);
  assert.equal(JSON.parse(ping.body).type, 'ping');
  assert.ok(verify(rotated.secret, ping.headers, ping.body), 'the new secret verifies');
  assert.ok(verify(hook.secret, ping.headers, ping.body), 'the old secret verifies during the grace period');
});

test('bad input names the field; members below admin are refused', async () => {
  await assert.rejects(call('POST', '', { url, events: ['space.created', 'nope'] }), (err) => err.code === 400 && /^events\[1\]: /.test(err.errorMessage));
  await assert.rejects(call('POST', '', { url: 'ftp://x', events: ['space.created'] }), (err) => err.code === 400 && /^url: /.test(err.errorMessage));
  const editor = s.newUser('hook-editor@example.com', 'edit');
  await assert.rejects(
    editor.client.request({ path: `/orgs/${s.org}/webhooks`, method: 'GET', secure: true, format: 'json' }),
    (err) => err.code === 403,
  );
});
