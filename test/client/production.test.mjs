// The production surface seen through the official client: rate limit
// headers, ETags, If-Match, Idempotency-Key passed as request params, and
// the served description. The client must work unchanged with all of it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from './harness.mjs';

let srv;
before(async () => {
  srv = await startServer(['--cors-origins', 'https://app.example']);
});
after(async () => srv?.stop());

test('answers carry rate limit headers and a weak ETag', async () => {
  const res = await srv.client.orgs.getOrganizationById(srv.org);
  assert.equal(res.data.id, srv.org);
  assert.equal(res.headers.get('x-ratelimit-limit'), '6000');
  assert.ok(Number(res.headers.get('x-ratelimit-remaining')) < 6000);
  assert.match(res.headers.get('x-ratelimit-reset'), /^\d+$/);
  assert.match(res.headers.get('etag'), /^W\/"/);
});

test('If-Match guards updates; a stale ETag is a 412 error', async () => {
  const team = (await srv.client.orgs.createOrganizationTeam(srv.org, { title: 'Writers' })).data;
  const got = await srv.client.orgs.getTeamInOrganizationById(srv.org, team.id);
  const etag = got.headers.get('etag');
  const updated = await srv.client.orgs.updateTeamInOrganizationById(srv.org, team.id, { title: 'Editors' }, { headers: { 'If-Match': etag } });
  assert.equal(updated.data.title, 'Editors');
  await assert.rejects(
    srv.client.orgs.updateTeamInOrganizationById(srv.org, team.id, { title: 'Late' }, { headers: { 'If-Match': etag } }),
    (err) => err.code === 412,
  );
  // Without If-Match the client works as always.
  const plain = await srv.client.orgs.updateTeamInOrganizationById(srv.org, team.id, { title: 'Anyone' });
  assert.equal(plain.data.title, 'Anyone');
});

test('Idempotency-Key replays a create', async () => {
  const params = { headers: { 'Idempotency-Key': 'client-create-1' } };
  const first = await srv.client.orgs.createOrganizationTeam(srv.org, { title: 'Once' }, params);
  const again = await srv.client.orgs.createOrganizationTeam(srv.org, { title: 'Once' }, params);
  assert.equal(again.data.id, first.data.id);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  const list = await srv.client.orgs.listTeamsInOrganizationById(srv.org, { title: 'Once' });
  assert.equal(list.data.items.filter((t) => t.title === 'Once').length, 1);
  await assert.rejects(
    srv.client.orgs.createOrganizationTeam(srv.org, { title: 'Twice' }, params),
    (err) => err.code === 422,
  );
});

test('the served description lists the client operations', async () => {
  const res = await fetch(`${srv.endpoint}/v1/openapi.json`, { headers: { Authorization: `Bearer ${srv.token}` } });
  assert.equal(res.status, 200);
  const doc = await res.json();
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.paths['/orgs/{organizationId}/teams'].put.operationId, 'createOrganizationTeam');
});

test('CORS preflight from an allowed origin', async () => {
  const res = await fetch(`${srv.endpoint}/v1/orgs/${srv.org}`, {
    method: 'OPTIONS',
    headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'PATCH', 'Access-Control-Request-Headers': 'authorization,if-match' },
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('access-control-allow-origin'), 'https://app.example');
});

test('metrics are served', async () => {
  const res = await fetch(`${srv.endpoint}/metrics`);
  assert.equal(res.status, 200);
  assert.match(await res.text(), /docsapi_http_requests_total\{method="GET",route="\/v1\/orgs\/\{organizationId\}",status="200"\}/);
});
