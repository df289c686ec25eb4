// The organization audit log (a docsapi extension, read through the official
// client's own request method): changes made with the client's generated
// methods are listed newest first with who made them and from where; only
// admins read it, and bad filters name their field.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from './harness.mjs';

let s;
before(async () => {
  s = await startServer();
});
after(async () => s?.stop());

const auditLog = (client, org, query = {}) =>
  client.request({ path: `/orgs/${org}/audit-log`, method: 'GET', query, secure: true, format: 'json' });

test('changes made through the client are in the audit log', async () => {
  const { data: space } = await s.client.orgs.createSpace(s.org, { title: 'Audited' });
  await s.client.spaces.updateSpaceById(space.id, { title: 'Audited twice' });
  const { data: log, status } = await auditLog(s.client, s.org, { targetId: space.id });
  assert.equal(status, 200);
  assert.equal(log.count, 2);
  assert.deepEqual(log.items.map((e) => e.action), ['space.updated', 'space.created']);
  const [updated] = log.items;
  assert.equal(updated.object, 'audit-entry');
  assert.deepEqual(updated.target, { type: 'space', id: space.id });
  assert.equal(updated.actor.user, s.user);
  assert.equal(updated.actor.address, '127.0.0.1');
  assert.ok(updated.actor.token && updated.actor.requestId);
  assert.equal(updated.fields.title, 'Audited twice');

  const { data: page } = await auditLog(s.client, s.org, { action: 'space.', limit: 1 });
  assert.equal(page.items.length, 1);
  assert.ok(page.next.page);
});

test('only admins read it; bad filters name the field', async () => {
  const reader = s.newUser('audit-reader@example.com', 'create');
  await assert.rejects(auditLog(reader.client, s.org), (err) => err.code === 403);
  const other = s.newOrg('Audit Other', 'audit-other@example.com');
  await assert.rejects(auditLog(other.client, s.org), (err) => err.code === 404);
  await assert.rejects(auditLog(s.client, s.org, { from: 'last week' }), (err) => err.code === 400 && /^from: /.test(err.errorMessage));
});
