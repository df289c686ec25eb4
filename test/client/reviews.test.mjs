// Review of a change request through the official client
// @gitbook/api@0.130.0: ask for reviewers, review (approve or request
// changes), list reviews, contributors and links; each 2xx body is
// validated against the operation's response schema.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { startServer } from './harness.mjs';
import { check } from './contract.mjs';

let s, reviewer, web, origin;
before(async () => {
  s = await startServer();
  reviewer = s.newUser('reviewer@example.com', 'review');
  web = http.createServer((req, res) => {
    const md = { '/v1.md': '# Notes\n\nSee [the guide](https://example.com/guide).\n', '/v2.md': '# Notes\n\nRewritten.\n' }[req.url];
    if (!md) return res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': 'text/markdown' }).end(md);
  });
  web.listen(0, '127.0.0.1');
  await once(web, 'listening');
  origin = `http://127.0.0.1:${web.address().port}`;
});
after(async () => {
  web?.close();
  await s?.stop();
});

async function valid(operationId, call) {
  const res = await call;
  assert.deepEqual(check(operationId, res.status, res.data), [], `${operationId} answered ${JSON.stringify(res.data)}`);
  return res;
}

test('ask, review, go stale, review again', async () => {
  const { data: space } = await s.client.orgs.createSpace(s.org, { title: 'Handbook' });
  const { data: cr } = await s.client.spaces.createChangeRequest(space.id, { subject: 'Notes' });
  await s.client.spaces.importContentInChangeRequest(space.id, cr.id, { url: `${origin}/v1.md`, source: 'markdown' });

  const { data: asked } = await valid('requestReviewersForChangeRequest',
    s.client.spaces.requestReviewersForChangeRequest(space.id, cr.id, { users: [reviewer.user], subject: 'Release notes' }));
  assert.deepEqual(asked.users.map((u) => u.user.id), [reviewer.user]);
  const { data: pending } = await valid('getRequestedReviewersByChangeRequestId', s.client.spaces.getRequestedReviewersByChangeRequestId(space.id, cr.id));
  assert.equal(pending.items.length, 1);
  assert.equal((await s.client.spaces.getChangeRequestById(space.id, cr.id)).data.subject, 'Release notes');

  const { data: review } = await valid('submitChangeRequestReview', reviewer.client.spaces.submitChangeRequestReview(space.id, cr.id, {
    status: 'changes-requested',
    comment: { object: 'document', nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Shorter, please.' }] }] }] },
  }));
  assert.equal(review.status, 'changes-requested');
  assert.equal(review.requestedBy.id, s.user);
  const head = (await s.client.spaces.getChangeRequestById(space.id, cr.id)).data.revision;
  assert.equal(review.revision, head);

  // A new edit: the review's revision is no longer the head (stale).
  await s.client.spaces.importContentInChangeRequest(space.id, cr.id, { url: `${origin}/v2.md`, source: 'markdown' });
  const { data: moved } = await s.client.spaces.getChangeRequestById(space.id, cr.id);
  const { data: reviews } = await valid('getReviewsByChangeRequestId', s.client.spaces.getReviewsByChangeRequestId(space.id, cr.id, { format: 'markdown' }));
  assert.equal(reviews.items.length, 1);
  assert.notEqual(reviews.items[0].revision, moved.revision);

  await valid('submitChangeRequestReview', reviewer.client.spaces.submitChangeRequestReview(space.id, cr.id, { status: 'approved' }));
  const { data: after } = await valid('getReviewsByChangeRequestId', s.client.spaces.getReviewsByChangeRequestId(space.id, cr.id));
  assert.deepEqual(after.items.map((r) => [r.reviewer.id, r.status, r.revision]), [[reviewer.user, 'approved', moved.revision]]);

  const { data: contributors } = await valid('getContributorsByChangeRequestId', s.client.spaces.getContributorsByChangeRequestId(space.id, cr.id));
  assert.deepEqual(contributors.items.map((c) => [c.user.id, c.count]), [[s.user, 2]]);

  const { data: links } = await valid('listChangeRequestLinks', s.client.spaces.listChangeRequestLinks(space.id, cr.id, { brokenContext: 'change-request' }));
  assert.equal(typeof links.stats.total, 'number');

  await s.client.spaces.requestReviewersForChangeRequest(space.id, cr.id, { users: [reviewer.user] });
  const removed = await valid('removeRequestedReviewerFromChangeRequest', s.client.spaces.removeRequestedReviewerFromChangeRequest(space.id, cr.id, reviewer.user));
  assert.equal(removed.status, 205);
  assert.equal((await s.client.spaces.removeRequestedReviewerFromChangeRequest(space.id, cr.id, reviewer.user)).status, 204);

  // Refusals: a reviewer who cannot review, and a bad status.
  const editor = s.newUser('editor@example.com', 'edit');
  await assert.rejects(s.client.spaces.requestReviewersForChangeRequest(space.id, cr.id, { users: [editor.user] }), (e) => e.code === 400);
  await assert.rejects(reviewer.client.spaces.submitChangeRequestReview(space.id, cr.id, { status: 'rejected' }), (e) => e.code === 400);
  await assert.rejects(editor.client.spaces.submitChangeRequestReview(space.id, cr.id, { status: 'approved' }), (e) => e.code === 403);
});
