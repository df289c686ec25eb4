// Custom fonts through the official client (0.130.0): the files go up with
// generateStorageUploadURL (kind customization_font), createCustomFont
// takes the upload keys, and the faces' sources are URLs docsapi serves.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from './harness.mjs';
import { check } from './contract.mjs';

let s;
before(async () => {
  s = await startServer();
});
after(async () => s?.stop());

// upload sends bytes through the upload flow and answers the key.
async function upload(client, org, bytes) {
  const res = await client.orgs.generateStorageUploadUrl(org, {
    kind: 'customization_font', file: { name: 'font.woff2', type: 'font/woff2', size: bytes.length },
  });
  const put = await fetch(res.data.url, { method: 'PUT', body: bytes });
  assert.equal(put.status, 200, await put.text());
  return res.data.key;
}

const woff2 = (s) => Buffer.concat([Buffer.from('wOF2'), Buffer.from(s)]);

test('create, read, update and delete a custom font', async () => {
  const regular = await upload(s.client, s.org, woff2('regular'));
  const bold = await upload(s.client, s.org, woff2('bold'));
  const created = await s.client.orgs.createCustomFont(s.org, {
    fontFamily: 'Acme Sans', fontFaces: [{ weight: 400, storageKey: regular }, { weight: 700, storageKey: bold }],
  });
  assert.equal(created.status, 201);
  assert.deepEqual(check('createCustomFont', 201, created.data), []);
  const font = created.data;
  assert.equal(font.custom, true);
  assert.deepEqual(font.fontFaces.map((f) => f.weight), [400, 700]);

  const file = await fetch(font.fontFaces[0].sources[0].url);
  assert.equal(file.status, 200);
  assert.equal(file.headers.get('content-type'), 'font/woff2');
  assert.equal(Buffer.from(await file.arrayBuffer()).toString(), 'wOF2regular');

  const list = await s.client.orgs.listCustomFonts(s.org);
  assert.deepEqual(check('listCustomFonts', 200, list.data), []);
  assert.deepEqual(list.data.items.map((f) => f.id), [font.id]);
  const got = await s.client.orgs.getCustomFont(s.org, font.id);
  assert.deepEqual(check('getCustomFont', 200, got.data), []);
  assert.equal(got.data.permissions.edit, true);

  const reader = s.newUser('reader@example.com', 'read');
  const seen = await reader.client.orgs.getCustomFont(s.org, font.id);
  assert.equal(seen.data.permissions.edit, false);
  await assert.rejects(reader.client.orgs.deleteCustomFont(s.org, font.id), (err) => err.code === 403);

  const updated = await s.client.orgs.updateCustomFont(s.org, font.id, {
    fontFamily: 'Acme Sans 2', fontFaces: [{ weight: 700, storageKey: null }],
  });
  assert.deepEqual(check('updateCustomFont', updated.status, updated.data), []);
  assert.deepEqual(updated.data.fontFaces.map((f) => f.weight), [400]);
  assert.equal(updated.data.fontFamily, 'Acme Sans 2');

  const del = await s.client.orgs.deleteCustomFont(s.org, font.id);
  assert.equal(del.status, 205);
  await assert.rejects(s.client.orgs.getCustomFont(s.org, font.id), (err) => err.code === 404);
});

test('refusals: weight 400 missing (412), a key of another organization (400 naming the field)', async () => {
  const bold = await upload(s.client, s.org, woff2('bold'));
  await assert.rejects(
    s.client.orgs.createCustomFont(s.org, { fontFamily: 'A', fontFaces: [{ weight: 700, storageKey: bold }] }),
    (err) => err.code === 412,
  );
  const other = s.newOrg('Other', 'other@example.com');
  const foreign = await upload(other.client, other.organization, woff2('x'));
  await assert.rejects(
    s.client.orgs.createCustomFont(s.org, { fontFamily: 'A', fontFaces: [{ weight: 400, storageKey: foreign }] }),
    (err) => err.code === 400 && /^fontFaces\[0\]\.storageKey: /.test(err.errorMessage),
  );
});
