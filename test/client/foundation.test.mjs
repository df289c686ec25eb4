// The official client against a real `docsapi serve`: users, organizations,
// organization members, teams and team members, invites.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { GitBookAPIError } from '@gitbook/api';
import { startServer } from './harness.mjs';

let s;
before(async () => {
  s = await startServer();
});
after(async () => {
  await s?.stop();
});

/** Runs fn and checks it fails with a GitBookAPIError of that status. */
async function refused(code, fn) {
  await assert.rejects(fn, (err) => {
    assert.ok(err instanceof GitBookAPIError, `not a GitBookAPIError: ${err}`);
    assert.equal(err.code, code, err.message);
    assert.ok(err.errorMessage.length > 0);
    return true;
  });
}

const sortedKeys = (o) => Object.keys(o).sort();

test('users', async () => {
  const { data: me } = await s.client.user.getAuthenticatedUser();
  assert.equal(me.object, 'user');
  assert.equal(me.id, s.user);
  assert.equal(me.email, 'owner@example.com');
  assert.equal(me.displayName, 'Owner');
  assert.equal(me.urls.location, `${s.endpoint}/v1/users/${s.user}`);

  const reader = s.newUser('reader-u@example.com', 'read');
  const { data: other } = await reader.client.users.getUserById(s.user);
  assert.deepEqual(other, me);
  const stranger = s.newOrg('Stranger Org', 'stranger@example.com');
  await refused(404, () => reader.client.users.getUserById(stranger.user));
  await refused(401, () => s.clientFor('dapi_wrong').user.getAuthenticatedUser());
});

test('organizations', async () => {
  const { data: list } = await s.client.orgs.listOrganizationsForAuthenticatedUser({ limit: 10 });
  assert.equal(list.count, 1);
  assert.equal(list.next, undefined);
  const [org] = list.items;
  assert.equal(org.id, s.org);
  assert.equal(org.object, 'organization');
  assert.equal(org.permissions.admin, true);

  const { data: got } = await s.client.orgs.getOrganizationById(s.org);
  assert.deepEqual(got, org);

  const { data: updated } = await s.client.orgs.updateOrganizationById(s.org, {
    title: 'Client Org',
    emailDomains: ['example.com'],
    defaultRole: 'comment',
    inviteLinks: true,
    ai: true,
  });
  assert.equal(updated.title, 'Client Org');
  assert.deepEqual(updated.emailDomains, ['example.com']);
  assert.equal(updated.defaultRole, 'comment');
  assert.equal(updated.ai, true);
  const { data: cleared } = await s.client.orgs.updateOrganizationById(s.org, { defaultRole: null });
  assert.equal(cleared.defaultRole, null);

  await refused(400, () => s.client.orgs.updateOrganizationById(s.org, { title: 'x' }));
  await refused(400, () => s.client.orgs.updateOrganizationById(s.org, { defaultRole: 'owner' }));
  const creator = s.newUser('creator-o@example.com', 'create');
  await refused(403, () => creator.client.orgs.updateOrganizationById(s.org, { title: 'Mine' }));
  const stranger = s.newOrg('Other Org', 'boss-o@example.com');
  await refused(404, () => stranger.client.orgs.getOrganizationById(s.org));
  await refused(404, () => s.client.orgs.getOrganizationById('nope'));
  await refused(400, () => s.client.orgs.listOrganizationsForAuthenticatedUser({ limit: 5000 }));

  // Email-domain lookup: a user of the domain discovers the organization.
  const { data: domain } = await creator.client.emailDomains.getOrganizationsForEmailDomain('example.com');
  assert.ok(domain.organizations.some((o) => o.id === s.org));
  const { data: none } = await creator.client.emailDomains.getOrganizationsForEmailDomain('nowhere.example');
  assert.deepEqual(none, { organizations: [] });
});

test('organization members', async () => {
  const editor = s.newUser('editor-m@example.com', 'edit');
  const guest = s.newUser('guest-m@example.com', 'guest');

  const { data: page } = await s.client.orgs.listMembersInOrganizationById(s.org, { limit: 2, order: 'asc' });
  assert.equal(page.items.length, 2);
  assert.equal(page.items[0].id, s.user);
  assert.ok(page.count >= 3);
  assert.ok(page.next?.page);
  const { data: page2 } = await s.client.orgs.listMembersInOrganizationById(s.org, { limit: 2, order: 'asc', page: page.next.page });
  assert.ok(!page2.items.some((m) => page.items.some((p) => p.id === m.id)));

  const { data: guests } = await s.client.orgs.listMembersInOrganizationById(s.org, { role: 'guest' });
  assert.deepEqual(guests.items.map((m) => m.id), [guest.user]);
  assert.equal(guests.items[0].role, null);
  const { data: found } = await s.client.orgs.listMembersInOrganizationById(s.org, { search: 'EDITOR-m' });
  assert.deepEqual(found.items.map((m) => m.user.email), ['editor-m@example.com']);
  const { data: unseen } = await s.client.orgs.listMembersInOrganizationById(s.org, { sort: 'lastSeenAt' });
  assert.ok(!unseen.items.some((m) => m.id === editor.user));

  const { data: ping } = await editor.client.orgs.updateOrganizationMemberLastSeenAt(s.org);
  assert.equal(ping.serviceVisitorClaims.split('.').length, 3);
  const { data: seen } = await s.client.orgs.listMembersInOrganizationById(s.org, { sort: 'lastSeenAt' });
  assert.equal(seen.items[0].id, editor.user);
  assert.ok(seen.items[0].lastSeenAt);

  const { data: member } = await s.client.orgs.getMemberInOrganizationById(s.org, editor.user);
  assert.deepEqual(sortedKeys(member), ['disabled', 'id', 'joinedAt', 'lastSeenAt', 'object', 'role', 'spaces', 'sso', 'teams', 'user']);
  assert.equal(member.role, 'edit');

  const { data: promoted } = await s.client.orgs.updateMemberInOrganizationById(s.org, editor.user, { role: 'review' });
  assert.equal(promoted.role, 'review');
  const { data: demoted } = await s.client.orgs.updateMemberInOrganizationById(s.org, editor.user, { role: null });
  assert.equal(demoted.role, null);
  await refused(400, () => s.client.orgs.updateMemberInOrganizationById(s.org, editor.user, { role: 'boss' }));
  await refused(409, () => s.client.orgs.updateMemberInOrganizationById(s.org, s.user, { role: 'read' }));
  await refused(403, () => guest.client.orgs.getMemberInOrganizationById(s.org, editor.user));
  await refused(404, () => s.client.orgs.getMemberInOrganizationById(s.org, 'nope'));

  const { data: sso } = await s.client.orgs.setUserAsSsoMemberForOrganization(s.org, editor.user);
  assert.equal(sso.sso, true);
  await refused(403, () => guest.client.orgs.setUserAsSsoMemberForOrganization(s.org, editor.user));

  const removed = await s.client.orgs.removeMemberFromOrganizationById(s.org, editor.user);
  assert.equal(removed.status, 205);
  const again = await s.client.orgs.removeMemberFromOrganizationById(s.org, editor.user);
  assert.equal(again.status, 204);
  await refused(404, () => s.client.orgs.getMemberInOrganizationById(s.org, editor.user));
  await refused(409, () => s.client.orgs.removeMemberFromOrganizationById(s.org, s.user));
});

test('teams and team members', async () => {
  const a = s.newUser('a-t@example.com', 'read');
  const b = s.newUser('b-t@example.com', 'edit');
  const c = s.newUser('c-t@example.com', 'comment');

  const created = await s.client.orgs.createOrganizationTeam(s.org, { title: 'Writers', members: [a.user, 'B-T@example.com'] });
  assert.equal(created.status, 201);
  const team = created.data;
  assert.equal(team.object, 'team');
  assert.equal(team.members, 2);
  assert.deepEqual(sortedKeys(team), ['createdAt', 'id', 'members', 'object', 'permissions', 'spaces', 'title']);

  const { data: got } = await a.client.orgs.getTeamInOrganizationById(s.org, team.id);
  assert.equal(got.permissions.admin, false);
  const { data: renamed } = await s.client.orgs.updateTeamInOrganizationById(s.org, team.id, { title: 'Authors' });
  assert.equal(renamed.title, 'Authors');
  await refused(400, () => s.client.orgs.updateTeamInOrganizationById(s.org, team.id, { title: '' }));
  await refused(403, () => a.client.orgs.createOrganizationTeam(s.org, { title: 'Mine' }));

  const { data: teams } = await s.client.orgs.listTeamsInOrganizationById(s.org, { title: 'auth' });
  assert.deepEqual(teams.items.map((t) => t.id), [team.id]);

  // add by id and e-mail, remove wins over add, memberships set roles
  const put = await s.client.orgs.updateMembersInOrganizationTeam(s.org, team.id, {
    add: [c.user, 'a-t@example.com'],
    remove: [a.user],
    memberships: { [b.user]: { role: 'owner' } },
  });
  assert.equal(put.status, 204);
  const { data: members } = await s.client.orgs.listTeamMembersInOrganizationById(s.org, team.id, { limit: 10 });
  const roles = Object.fromEntries(members.items.map((e) => [e.organization.id, e.team.role]));
  assert.deepEqual(roles, { [b.user]: 'owner', [c.user]: 'member' });
  assert.deepEqual(sortedKeys(members.items[0]), ['organization', 'permissions', 'team']);

  // b owns the team and may manage its members; c may not.
  const added = await b.client.orgs.addMemberToOrganizationTeamById(s.org, team.id, a.user, { role: 'member' });
  assert.equal(added.status, 204);
  const noBody = await b.client.orgs.addMemberToOrganizationTeamById(s.org, team.id, c.user);
  assert.equal(noBody.status, 204);
  await refused(403, () => c.client.orgs.addMemberToOrganizationTeamById(s.org, team.id, a.user, { role: 'owner' }));
  await refused(400, () => s.client.orgs.addMemberToOrganizationTeamById(s.org, team.id, a.user, { role: 'boss' }));
  await refused(400, () => s.client.orgs.updateMembersInOrganizationTeam(s.org, team.id, { add: ['nobody@example.com'] }));

  const { data: mine } = await b.client.orgs.listTeamsForOrganizationMember(s.org, b.user, { title: 'AUTH' });
  assert.equal(mine.items.length, 1);
  assert.equal(mine.items[0].team.id, team.id);
  assert.equal(mine.items[0].member.role, 'owner');
  assert.equal(mine.items[0].team.permissions.admin, true);

  const del = await b.client.orgs.deleteMemberFromOrganizationTeamById(s.org, team.id, a.user);
  assert.equal(del.status, 205);
  const delAgain = await s.client.orgs.deleteMemberFromOrganizationTeamById(s.org, team.id, a.user);
  assert.equal(delAgain.status, 204);

  const stranger = s.newOrg('Team Stranger', 'boss-t@example.com');
  await refused(404, () => stranger.client.orgs.getTeamInOrganizationById(s.org, team.id));
  await refused(404, () => s.client.orgs.getTeamInOrganizationById(s.org, 'nope'));

  const gone = await s.client.orgs.removeTeamFromOrganizationById(s.org, team.id);
  assert.equal(gone.status, 205);
  const goneAgain = await s.client.orgs.removeTeamFromOrganizationById(s.org, team.id);
  assert.equal(goneAgain.status, 204);
  await refused(404, () => s.client.orgs.listTeamMembersInOrganizationById(s.org, team.id));
});

test('invites and invite links', async () => {
  const existing = s.newOrg('Elsewhere', 'existing-i@example.com');
  const { data: invited } = await s.client.orgs.inviteUsersToOrganization(s.org, {
    emails: ['existing-i@example.com', { email: 'new-i@example.com', role: 'edit' }],
    role: 'read',
  });
  assert.equal(invited.invited, 2);
  assert.equal(invited.users[0], existing.user);
  const { data: joined } = await existing.client.orgs.listOrganizationsForAuthenticatedUser();
  assert.equal(joined.count, 2);
  const { data: newcomer } = await s.client.orgs.getMemberInOrganizationById(s.org, invited.users[1]);
  assert.equal(newcomer.role, 'edit');
  assert.equal(newcomer.user.email, 'new-i@example.com');
  await refused(400, () => s.client.orgs.inviteUsersToOrganization(s.org, { emails: ['not-an-email'] }));
  await refused(403, () => existing.client.orgs.inviteUsersToOrganization(s.org, { emails: ['x-i@example.com'] }));

  const link = await s.client.orgs.createOrganizationInvite(s.org, { role: 'read' });
  assert.equal(link.status, 201);
  assert.deepEqual(sortedKeys(link.data), ['id', 'object', 'redundant', 'role']);
  assert.equal(link.data.object, 'invite');
  const { data: links } = await s.client.orgs.listOrganizationInviteLinks(s.org, { limit: 5 });
  assert.ok(links.items.some((l) => l.id === link.data.id));
  const deleted = await s.client.orgs.deleteOrganizationInviteById(s.org, link.data.id);
  assert.equal(deleted.status, 205);
  const deletedAgain = await s.client.orgs.deleteOrganizationInviteById(s.org, link.data.id);
  assert.equal(deletedAgain.status, 204);
  await refused(403, () => existing.client.orgs.listOrganizationInviteLinks(s.org));
});

test('SSO member: a user who is not a member yet is added, then can transfer there', async () => {
  const joined = s.newOrg('SSO Joined Org', 'sso-joined-admin@example.com');
  const { orgs, spaces } = joined.client;
  await refused(404, () => s.client.orgs.getOrganizationById(joined.organization));
  await orgs.updateOrganizationById(joined.organization, { defaultRole: 'admin' });
  await refused(404, () => orgs.setUserAsSsoMemberForOrganization(joined.organization, 'nope'));

  const { data: added } = await orgs.setUserAsSsoMemberForOrganization(joined.organization, s.user);
  assert.equal(added.object, 'member');
  assert.equal(added.id, s.user);
  assert.equal(added.sso, true);
  assert.equal(added.role, 'admin');
  assert.equal(added.user.email, 'owner@example.com');
  const { data: got } = await orgs.getMemberInOrganizationById(joined.organization, s.user);
  assert.deepEqual(got, added);

  const { data: single } = await s.client.orgs.createSpace(s.org, { title: 'Goes to the SSO org' });
  const { data: moved } = await s.client.spaces.transferSpace(single.id, { organization: joined.organization });
  assert.equal(moved.organization, joined.organization);
  const { data: theirs } = await spaces.getSpaceById(single.id);
  assert.equal(theirs.organization, joined.organization);
});
