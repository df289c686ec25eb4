// Personal API tokens through the official client's own request method
// (the routes extend the published interface), then used by the client's
// generated methods: a read-only token reads and is refused writes, a
// revoked token is refused at once, `docsapi admin token` makes another.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { ContentType } from '@gitbook/api';
import { startServer, BIN } from './harness.mjs';

let s;
before(async () => {
  s = await startServer();
});
after(async () => s?.stop());

const createToken = (client, body) =>
  client.request({ path: '/user/tokens', method: 'POST', body, secure: true, type: ContentType.Json, format: 'json' });
const listTokens = (client) => client.request({ path: '/user/tokens', method: 'GET', secure: true, format: 'json' });
const deleteToken = (client, id) => client.request({ path: `/user/tokens/${id}`, method: 'DELETE', secure: true });

test('create, list, use and revoke a personal token', async () => {
  const { data: tok, status } = await createToken(s.client, { label: 'ci deploy', readOnly: false });
  assert.equal(status, 201);
  assert.equal(tok.object, 'api-token');
  assert.equal(tok.label, 'ci deploy');
  assert.match(tok.token, /^dapi_/);
  assert.equal(tok.expiresAt, null);

  const { data: list } = await listTokens(s.client);
  assert.equal(list.count, 2); // the bootstrap token and this one
  assert.equal(list.items[0].id, tok.id);
  assert.equal(list.items[0].token, undefined);

  const mine = s.clientFor(tok.token);
  const { data: user } = await mine.user.getAuthenticatedUser();
  assert.equal(user.id, s.user);

  const del = await deleteToken(s.client, tok.id);
  assert.equal(del.status, 205);
  await assert.rejects(mine.user.getAuthenticatedUser(), (err) => err.code === 401);
  assert.equal((await deleteToken(s.client, tok.id)).status, 204);
});

test('a read-only token reads and is refused writes', async () => {
  const { data: tok } = await createToken(s.client, { label: 'dashboard', readOnly: true });
  const ro = s.clientFor(tok.token);
  const { data: org } = await ro.orgs.getOrganizationById(s.org);
  assert.equal(org.id, s.org);
  await ro.orgs.listSpacesInOrganizationById(s.org);
  await assert.rejects(ro.orgs.createSpace(s.org, { title: 'Nope' }), (err) => err.code === 403 && /read-only/.test(err.message));
  await assert.rejects(ro.orgs.createOrganizationTeam(s.org, { title: 'Nope' }), (err) => err.code === 403);
});

test('bad input names the field', async () => {
  await assert.rejects(createToken(s.client, { label: '' }), (err) => err.code === 400 && /^label: /.test(err.errorMessage));
  await assert.rejects(createToken(s.client, { label: 'x', expiresAt: '2001-01-01' }), (err) => err.code === 400 && /^expiresAt: must be in the future/.test(err.errorMessage));
});

test('docsapi admin token makes a token for an existing user', async () => {
  const out = JSON.parse(execFileSync(BIN, ['admin', 'token', '--db', s.db, '--email', 'owner@example.com', '--label', 'laptop', '--read-only'], { encoding: 'utf8' }));
  assert.equal(out.user, s.user);
  assert.equal(out.readOnly, true);
  const { data: user } = await s.clientFor(out.token).user.getAuthenticatedUser();
  assert.equal(user.id, s.user);
  const { data: list } = await listTokens(s.client);
  assert.ok(list.items.some((t) => t.id === out.id && t.label === 'laptop' && t.readOnly));
});
