// Uploads through the official client: generateStorageUploadURL (0.130.0)
// answers a signed URL on docsapi, the file is PUT there, and an import of
// that URL reads it: content in without a web server of one's own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from './harness.mjs';
import { check } from './contract.mjs';

let s;
before(async () => {
  s = await startServer();
});
after(async () => s?.stop());

test('upload a Markdown file, then import it', async () => {
  const md = '# Changelog\n\nEverything changed.\n';
  const res = await s.client.orgs.generateStorageUploadUrl(s.org, {
    kind: 'import', file: { name: 'changelog.md', type: 'text/markdown', size: Buffer.byteLength(md) },
  });
  assert.equal(res.status, 201);
  assert.deepEqual(check('generateStorageUploadURL', 201, res.data), []);
  const put = await fetch(res.data.url, { method: 'PUT', body: md });
  assert.equal(put.status, 200, await put.text());

  const { data: space } = await s.client.orgs.createSpace(s.org, { title: 'Notes' });
  const imported = await s.client.spaces.importContent(space.id, { source: 'markdown', url: res.data.url });
  assert.equal(imported.data.importedResources, 1);
  const { data: pages } = await s.client.spaces.listPages(space.id);
  assert.deepEqual(pages.pages.map((p) => p.title), ['Changelog']);
});

test('a 0.130.0 font upload URL, and refusals naming the field', async () => {
  const res = await s.client.orgs.generateStorageUploadUrl(s.org, {
    kind: 'customization_font', file: { name: 'Inter.woff2', type: 'font/woff2', size: 1024 },
  });
  assert.deepEqual(check('generateStorageUploadURL', 201, res.data), []);
  await assert.rejects(
    s.client.orgs.generateStorageUploadUrl(s.org, { kind: 'import', file: { name: 'a.md', type: 'text/markdown', size: 0 } }),
    (err) => err.code === 400 && /^file\.size: /.test(err.errorMessage),
  );
  const other = s.newOrg('Other', 'other@example.com');
  await assert.rejects(
    other.client.orgs.generateStorageUploadUrl(s.org, { kind: 'import', file: { name: 'a.md', type: 'text/markdown', size: 3 } }),
    (err) => err.code === 404,
  );
});
