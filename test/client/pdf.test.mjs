// getSpacePDF through the official client: a signed link to the space's
// main content as PDF, fetched without a token.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from './harness.mjs';
import { check } from './contract.mjs';

let s;
before(async () => {
  s = await startServer();
});
after(async () => s?.stop());

test('getSpacePDF answers a link that serves the PDF', async () => {
  const { data: space } = await s.client.orgs.createSpace(s.org, { title: 'Manual' });
  const res = await s.client.spaces.getSpacePdf(space.id);
  assert.equal(res.status, 200);
  assert.deepEqual(check('getSpacePDF', 200, res.data), []);
  const pdf = await fetch(res.data.url);
  assert.equal(pdf.status, 200);
  assert.equal(pdf.headers.get('content-type'), 'application/pdf');
  assert.equal((await pdf.arrayBuffer()).byteLength > 100, true);
  const other = s.newOrg('Other', 'other@example.com');
  await assert.rejects(other.client.spaces.getSpacePdf(space.id), (err) => err.code === 404);
});
