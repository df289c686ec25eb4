// The official client against a real `docsapi serve`: collections and
// spaces — a collection tree, spaces in it, moves, PATCH variants,
// duplicate, the trash, and transfers to another organization.
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
    return true;
  });
}

const ids = (list) => list.items.map((it) => it.id);

test('collection tree and spaces in it', async () => {
  const { orgs, collections, spaces } = s.client;
  const { data: guides } = await orgs.createCollection(s.org, { title: 'Guides' });
  assert.equal(guides.object, 'collection');
  assert.equal(guides.organization, s.org);
  assert.equal(guides.defaultLevel, 'inherit');
  assert.deepEqual(guides.permissions, { view: true, admin: true, viewInviteLinks: true, create: true });
  const { data: api } = await orgs.createCollection(s.org, { title: 'API', parent: guides.id });
  assert.equal(api.parent, guides.id);
  const { data: other } = await orgs.createCollection(s.org, { title: 'Other' });

  const { data: patched } = await collections.updateCollectionById(api.id, { description: 'Reference', defaultLevel: 'edit' });
  assert.equal(patched.description, 'Reference');
  assert.equal(patched.defaultLevel, 'edit');
  await refused(400, () => collections.updateCollectionById(api.id, { title: 'x'.repeat(51) }));

  const { data: all } = await orgs.listCollectionsInOrganizationById(s.org);
  assert.deepEqual(ids(all), [guides.id, api.id, other.id]);
  const { data: top } = await orgs.listCollectionsInOrganizationById(s.org, { nested: false });
  assert.deepEqual(ids(top), [guides.id, other.id]);

  const { data: intro } = await orgs.createSpace(s.org, { title: 'Intro', emoji: '📘', parent: guides.id });
  assert.equal(intro.object, 'space');
  assert.equal(intro.parent, guides.id);
  assert.equal(intro.emoji, '📘');
  assert.equal(intro.editMode, 'live');
  assert.ok(intro.revision);
  assert.deepEqual(
    [intro.comments, intro.changeRequests, intro.changeRequestsOpen, intro.changeRequestsDraft],
    [0, 0, 0, 0],
  );
  const { data: ref } = await orgs.createSpace(s.org, { title: 'Reference', parent: api.id });
  const { data: loose } = await orgs.createSpace(s.org, { title: 'Loose' });
  const { data: got } = await spaces.getSpaceById(intro.id);
  assert.deepEqual(got, intro);
  // A share key is checked (the sites tests read spaces through valid ones).
  await refused(404, () => spaces.getSpaceById(intro.id, { shareKey: 'unknown' }));

  // Tree order: a collection, then what it holds (API was created in Guides
  // before Intro, so Reference comes first).
  let { data: list } = await orgs.listSpacesInOrganizationById(s.org);
  assert.deepEqual(ids(list), [ref.id, intro.id, loose.id]);
  ({ data: list } = await collections.listSpacesInCollectionById(guides.id));
  assert.deepEqual(ids(list), [intro.id]);

  // Moves: the loose space before Intro, the Other collection into Guides.
  const { data: moved } = await spaces.moveSpace(loose.id, {
    position: { before: { type: 'space', space: intro.id } },
  });
  assert.equal(moved.parent, guides.id);
  ({ data: list } = await collections.listSpacesInCollectionById(guides.id));
  assert.deepEqual(ids(list), [loose.id, intro.id]);
  const { data: movedCol } = await collections.moveCollection(other.id, {
    parent: guides.id,
    position: { after: { type: 'collection', collection: api.id } },
  });
  assert.equal(movedCol.parent, guides.id);
  const { data: tree } = await orgs.listCollectionsInOrganizationById(s.org);
  assert.deepEqual(ids(tree), [guides.id, api.id, other.id]);
  await refused(409, () => collections.moveCollection(other.id, { position: { after: { type: 'collection', collection: api.id } } }));
  await refused(400, () => collections.moveCollection(guides.id, { parent: api.id }));
  const { data: back } = await spaces.moveSpace(loose.id, { parent: null });
  assert.equal(back.parent, undefined);

  // Permissions follow the caller.
  const reader = s.newUser('reader-spaces@example.com', 'read');
  const { data: seen } = await reader.client.spaces.getSpaceById(intro.id);
  assert.equal(seen.permissions.view, true);
  assert.equal(seen.permissions.edit, false);
  await refused(403, () => reader.client.spaces.updateSpaceById(intro.id, { title: 'Mine' }));
  const guest = s.newUser('guest-spaces@example.com', 'guest');
  await refused(404, () => guest.client.spaces.getSpaceById(intro.id));
  const { data: mine } = await s.client.orgs.listSpacesForOrganizationMember(s.org, reader.user, { order: 'asc' });
  assert.deepEqual(mine.items.map((it) => [it.space.id, it.permission]), [
    [intro.id, 'read'], [ref.id, 'read'], [loose.id, 'read'],
  ]);
});

test('PATCH variants, duplicate, trash and restore', async () => {
  const { orgs, spaces } = s.client;
  const { data: space } = await orgs.createSpace(s.org, { title: 'Handbook', emoji: '📘' });

  let { data: p } = await spaces.updateSpaceById(space.id, { title: 'Manual', editMode: 'locked', defaultLevel: 'comment' });
  assert.equal(p.title, 'Manual');
  assert.equal(p.editMode, 'locked');
  assert.equal(p.defaultLevel, 'comment');
  assert.equal(p.permissions.edit, false);
  ({ data: p } = await spaces.updateSpaceById(space.id, { icon: 'https://example.com/icon.png' }));
  assert.equal(p.urls.icon, 'https://example.com/icon.png');
  assert.equal(p.emoji, '');
  ({ data: p } = await spaces.updateSpaceById(space.id, { emoji: '🎉' }));
  assert.equal(p.emoji, '🎉');
  assert.equal(p.urls.icon, undefined);
  ({ data: p } = await spaces.updateSpaceById(space.id, { emoji: null, icon: null, editMode: 'live' }));
  assert.equal(p.emoji, '');
  assert.equal(p.editMode, 'live');
  await refused(400, () => spaces.updateSpaceById(space.id, { visibility: 'in-collection' }));
  await refused(400, () => spaces.updateSpaceById(space.id, { title: 't'.repeat(51) }));

  const dup = await spaces.duplicateSpace(space.id);
  assert.equal(dup.status, 201);
  assert.equal(dup.data.title, 'Manual (copy)');
  assert.notEqual(dup.data.id, space.id);
  assert.notEqual(dup.data.revision, space.revision);
  assert.equal(dup.data.defaultLevel, 'comment');

  const del = await spaces.deleteSpaceById(space.id);
  assert.equal(del.status, 205);
  await refused(404, () => spaces.getSpaceById(space.id));
  const { data: list } = await orgs.listSpacesInOrganizationById(s.org);
  assert.ok(!ids(list).includes(space.id));
  assert.ok(ids(list).includes(dup.data.id));
  assert.equal((await spaces.deleteSpaceById(space.id)).status, 204);

  const { data: restored } = await spaces.restoreSpace(space.id);
  assert.equal(restored.id, space.id);
  assert.equal(restored.deletedAt, undefined);
  assert.equal((await spaces.getSpaceById(space.id)).data.title, 'Manual');
  await refused(404, () => spaces.restoreSpace(space.id));

  // Deleting a collection sends its spaces to the trash, not to oblivion.
  const { data: box } = await orgs.createCollection(s.org, { title: 'Box' });
  const { data: inside } = await orgs.createSpace(s.org, { title: 'Inside', parent: box.id });
  assert.equal((await s.client.collections.deleteCollectionById(box.id)).status, 205);
  await refused(404, () => spaces.getSpaceById(inside.id));
  const { data: back } = await spaces.restoreSpace(inside.id);
  assert.equal(back.parent, undefined);
});

test('transfer to another organization', async () => {
  const sister = s.newOrg('Sister Org', 'sister-admin@example.com');
  await sister.client.orgs.inviteUsersToOrganization(sister.organization, {
    emails: [{ email: 'owner@example.com', role: 'admin' }],
  });
  const { orgs, spaces, collections } = s.client;
  const { data: col } = await orgs.createCollection(s.org, { title: 'Moving' });
  const { data: sub } = await orgs.createCollection(s.org, { title: 'Sub', parent: col.id });
  const { data: inSub } = await orgs.createSpace(s.org, { title: 'Deep', parent: sub.id });
  const { data: single } = await orgs.createSpace(s.org, { title: 'Single' });

  await refused(409, () => collections.transferCollection(col.id, { organization: s.org }));
  const stranger = s.newOrg('Stranger', 'stranger-spaces@example.com');
  await refused(404, () => collections.transferCollection(col.id, { organization: stranger.organization }));

  const { data: moved } = await collections.transferCollection(col.id, { organization: sister.organization });
  assert.equal(moved.organization, sister.organization);
  const { data: deep } = await spaces.getSpaceById(inSub.id);
  assert.equal(deep.organization, sister.organization);
  assert.equal(deep.parent, sub.id);
  const { data: theirs } = await sister.client.orgs.listCollectionsInOrganizationById(sister.organization);
  assert.deepEqual(ids(theirs), [col.id, sub.id]);

  const { data: t } = await spaces.transferSpace(single.id, { organization: sister.organization });
  assert.equal(t.organization, sister.organization);
  const { data: sisterSpaces } = await sister.client.orgs.listSpacesInOrganizationById(sister.organization);
  assert.deepEqual(ids(sisterSpaces), [inSub.id, single.id]);
  const { data: ours } = await orgs.listSpacesInOrganizationById(s.org);
  assert.ok(!ids(ours).includes(single.id));
});
