// Permissions of spaces, collections and sites through the official client
// @gitbook/api@0.130.0: invite users and teams, list, change and remove
// their grants, and list everyone who can reach an item; each 2xx body is
// validated against the operation's response schema.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from './harness.mjs';
import { check } from './contract.mjs';

let s, reader, teamed;
before(async () => {
  s = await startServer();
  reader = s.newUser('reader@example.com', 'read');
  teamed = s.newUser('teamed@example.com', 'read');
});
after(async () => s?.stop());

// valid awaits an official-client call and checks its answer against the
// operation's declared status and schema.
async function valid(operationId, call) {
  const res = await call;
  assert.deepEqual(check(operationId, res.status, res.data), [], `${operationId} answered ${JSON.stringify(res.data)}`);
  return res;
}

async function rejects(call, code) {
  await assert.rejects(call, (err) => {
    assert.equal(err.code, code, err.message);
    return true;
  });
}

test('a space: invite, list, change, remove; the grant is seen at once', async () => {
  const { data: col } = await s.client.orgs.createCollection(s.org, { title: 'Private' });
  await s.client.collections.updateCollectionById(col.id, { defaultLevel: null });
  const { data: space } = await s.client.orgs.createSpace(s.org, { title: 'Secret', parent: col.id });
  await rejects(reader.client.spaces.getSpaceById(space.id), 404);

  const invite = await valid('inviteToSpace', s.client.spaces.inviteToSpace(space.id, { role: 'edit', users: [reader.user] }));
  assert.equal(invite.status, 204);
  const { data: seen } = await reader.client.spaces.getSpaceById(space.id);
  assert.equal(seen.permissions.edit, true);

  const { data: users } = await valid('listUserPermissionsInSpace', reader.client.spaces.listUserPermissionsInSpace(space.id));
  assert.deepEqual(users.items.map((i) => [i.user.id, i.permission]), [[reader.user, 'edit']]);

  await valid('updateUserPermissionInSpace', s.client.spaces.updateUserPermissionInSpace(space.id, reader.user, { role: 'comment' }));
  const { data: agg } = await valid('listPermissionsAggregateInSpace', s.client.spaces.listPermissionsAggregateInSpace(space.id, { role: 'comment' }));
  assert.deepEqual(agg.items.map((i) => i.user.id), [reader.user]);

  const removed = await valid('removeUserFromSpace', s.client.spaces.removeUserFromSpace(space.id, reader.user));
  assert.equal(removed.status, 205);
  assert.equal((await s.client.spaces.removeUserFromSpace(space.id, reader.user)).status, 204);
  await rejects(reader.client.spaces.getSpaceById(space.id), 404);

  // Teams on the space.
  const { data: team } = await s.client.orgs.createOrganizationTeam(s.org, { title: 'Writers', members: [teamed.user] });
  await valid('inviteToSpace', s.client.spaces.inviteToSpace(space.id, { role: 'read', teams: [team.id] }));
  const { data: teams } = await valid('listTeamPermissionsInSpace', s.client.spaces.listTeamPermissionsInSpace(space.id));
  assert.deepEqual(teams.items.map((i) => [i.team.id, i.permission]), [[team.id, 'read']]);
  await valid('updateTeamPermissionInSpace', s.client.spaces.updateTeamPermissionInSpace(space.id, team.id, { role: 'review' }));
  const { data: byTeam } = await teamed.client.spaces.getSpaceById(space.id);
  assert.equal(byTeam.permissions.review, true);
  assert.equal((await valid('removeTeamFromSpace', s.client.spaces.removeTeamFromSpace(space.id, team.id))).status, 205);
  await rejects(teamed.client.spaces.getSpaceById(space.id), 404);

  // Refusals: a null role, an unknown user, a reader inviting.
  await rejects(s.client.spaces.inviteToSpace(space.id, { role: null, users: [reader.user] }), 400);
  await rejects(s.client.spaces.inviteToSpace(space.id, { role: 'read', users: ['nobody'] }), 404);
  await s.client.spaces.inviteToSpace(space.id, { role: 'read', users: [reader.user] });
  await rejects(reader.client.spaces.inviteToSpace(space.id, { role: 'admin', users: [reader.user] }), 403);
});

test('a collection: its grants reach the spaces inside', async () => {
  const { data: col } = await s.client.orgs.createCollection(s.org, { title: 'Closed' });
  await s.client.collections.updateCollectionById(col.id, { defaultLevel: null });
  const { data: space } = await s.client.orgs.createSpace(s.org, { title: 'Inside', parent: col.id });
  const { data: team } = await s.client.orgs.createOrganizationTeam(s.org, { title: 'Readers', members: [teamed.user] });

  await valid('inviteToCollection', s.client.collections.inviteToCollection(col.id, { role: 'read', users: [reader.user], teams: [team.id] }));
  assert.equal((await reader.client.spaces.getSpaceById(space.id)).data.permissions.view, true);
  const { data: users } = await valid('listUserPermissionsInCollection', s.client.collections.listUserPermissionsInCollection(col.id));
  assert.deepEqual(users.items.map((i) => i.user.id), [reader.user]);
  const { data: teams } = await valid('listTeamPermissionsInCollection', s.client.collections.listTeamPermissionsInCollection(col.id));
  assert.deepEqual(teams.items.map((i) => i.team.id), [team.id]);
  await valid('updateUserPermissionInCollection', s.client.collections.updateUserPermissionInCollection(col.id, reader.user, { role: 'edit' }));
  await valid('updateTeamPermissionInCollection', s.client.collections.updateTeamPermissionInCollection(col.id, team.id, { role: 'comment' }));
  const { data: agg } = await valid('listPermissionsAggregateInCollection', s.client.collections.listPermissionsAggregateInCollection(col.id));
  const roles = Object.fromEntries(agg.items.map((i) => [i.user.id, i.permission]));
  assert.deepEqual(roles, { [s.user]: 'admin', [reader.user]: 'edit', [teamed.user]: 'comment' });
  await valid('removeUserFromCollection', s.client.collections.removeUserFromCollection(col.id, reader.user));
  await valid('removeTeamFromCollection', s.client.collections.removeTeamFromCollection(col.id, team.id));
  await rejects(reader.client.spaces.getSpaceById(space.id), 404);
});

test('a site: every member who can read it, from the organization', async () => {
  const { data: space } = await s.client.orgs.createSpace(s.org, { title: 'Docs' });
  const { data: site } = await s.client.orgs.createSite(s.org, { title: 'Docs', spaces: [space.id] });
  const { data: agg } = await valid('listPermissionsAggregateInSite', s.client.orgs.listPermissionsAggregateInSite(s.org, site.id));
  assert.ok(agg.items.length >= 3);
  for (const it of agg.items) assert.deepEqual(it.origin, { type: 'organization', organization: s.org });
  const other = s.newOrg('Other', 'other@example.com');
  await rejects(other.client.orgs.listPermissionsAggregateInSite(s.org, site.id), 404);
});
