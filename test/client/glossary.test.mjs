// The translations glossary through the official client @gitbook/api@0.130.0:
// a batch of inserts, the list and one entry, an update and a delete, a
// rejected batch that changes nothing; each 2xx body is validated against
// the operation's response schema.
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

test('glossary: insert, list, get, update, delete', async () => {
  const put = await valid('updateGlossaryEntries', s.client.orgs.updateGlossaryEntries(s.org, {
    operations: [
      { type: 'insert', translations: { en: 'Space', fr: 'Espace' } },
      { type: 'insert', translations: { en: 'Docs', de: 'Doku' } },
    ],
  }));
  assert.equal(put.status, 204);
  const { data: list } = await valid('listGlossaryEntries', s.client.orgs.listGlossaryEntries(s.org));
  assert.equal(list.items.length, 2);
  const [space, docs] = list.items;
  assert.deepEqual(space.translations, { en: 'Space', fr: 'Espace' });
  const { data: one } = await valid('getGlossaryEntry', s.client.orgs.getGlossaryEntry(s.org, space.id));
  assert.equal(one.object, 'glossary-entry');
  assert.equal(one.id, space.id);

  const { data: page } = await valid('listGlossaryEntries', s.client.orgs.listGlossaryEntries(s.org, { limit: 1 }));
  assert.equal(page.items.length, 1);
  assert.ok(page.next?.page);

  await valid('updateGlossaryEntries', s.client.orgs.updateGlossaryEntries(s.org, {
    operations: [
      { type: 'update', id: space.id, translations: { en: 'Space', fr: 'Espace', de: 'Bereich' } },
      { type: 'delete', id: docs.id },
    ],
  }));
  const { data: after } = await valid('getGlossaryEntry', s.client.orgs.getGlossaryEntry(s.org, space.id));
  assert.deepEqual(after.translations, { en: 'Space', fr: 'Espace', de: 'Bereich' });
  await assert.rejects(s.client.orgs.getGlossaryEntry(s.org, docs.id), (e) => e.code === 404);

  // All or nothing: the insert before the unknown id is not applied.
  await assert.rejects(s.client.orgs.updateGlossaryEntries(s.org, {
    operations: [{ type: 'insert', translations: { en: 'New' } }, { type: 'delete', id: 'nope' }],
  }), (e) => e.code === 400 && /operations\[1\]\.id/.test(e.message));
  const { data: end } = await valid('listGlossaryEntries', s.client.orgs.listGlossaryEntries(s.org));
  assert.equal(end.items.length, 1);
});

test('glossary: readers read, only the create role writes', async () => {
  const reader = s.newUser('glossary-reader@example.com', 'read');
  await valid('listGlossaryEntries', reader.client.orgs.listGlossaryEntries(s.org));
  await assert.rejects(reader.client.orgs.updateGlossaryEntries(s.org, { operations: [] }), (e) => e.code === 403);
  const outsider = s.newOrg('Elsewhere', 'glossary-outsider@example.com');
  await assert.rejects(outsider.client.orgs.listGlossaryEntries(s.org), (e) => e.code === 404);
});
