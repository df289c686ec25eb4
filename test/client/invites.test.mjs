// Invite links and the caller's own profile through the official client
// @gitbook/api@0.130.0: read and change a link, join an organization with
// it, change one's display name; each 2xx body is validated against the
// operation's response schema.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from './harness.mjs';
import { check } from './contract.mjs';

let s;
before(async () => {
  s = await startServer();
});
after(async () => s?.stop());

async function valid(operationId, call) {
  const res = await call;
  assert.deepEqual(check(operationId, res.status, res.data), [], `${operationId} answered ${JSON.stringify(res.data)}`);
  return res;
}

test('an invite link: read, change, join with it', async () => {
  const { data: link } = await s.client.orgs.createOrganizationInvite(s.org, { role: 'read' });
  const { data: got } = await valid('getOrganizationInviteLink', s.client.orgs.getOrganizationInviteLink(s.org, link.id));
  assert.equal(got.role, 'read');
  const { data: changed } = await valid('updateOrganizationInviteById', s.client.orgs.updateOrganizationInviteById(s.org, link.id, { role: 'comment' }));
  assert.equal(changed.role, 'comment');

  const outsider = s.newOrg('Elsewhere', 'outsider@example.com');
  await valid('joinOrganizationWithInvite', outsider.client.orgs.joinOrganizationWithInvite(s.org, link.id));
  const { data: member } = await s.client.orgs.getMemberInOrganizationById(s.org, outsider.user);
  assert.equal(member.role, 'comment');
  await assert.rejects(outsider.client.orgs.joinOrganizationWithInvite(s.org, 'nope'), (e) => e.code === 404);
});

test('one\'s own profile', async () => {
  const reader = s.newUser('profile@example.com', 'read');
  const { data: user } = await valid('updateUserById', reader.client.users.updateUserById(reader.user, { displayName: 'Pro File' }));
  assert.equal(user.displayName, 'Pro File');
  await assert.rejects(reader.client.users.updateUserById(s.user, { displayName: 'Not me' }), (e) => e.code === 403);
});
