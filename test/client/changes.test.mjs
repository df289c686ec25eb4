// The official client against a real `docsapi serve`: a whole review of a
// change request — create it, import content into it, comment, reply,
// react, resolve, update it from main, merge it, read the merged content —
// and its PDF export.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { GitBookAPIError } from '@gitbook/api';
import { startServer } from './harness.mjs';

const pages = {
  '/release.md': ['text/markdown', '# Release notes\n\nEverything new in this release.\n'],
  '/faq.md': ['text/markdown', '# FAQ\n\nAnswers to common questions.\n'],
};

let s, site, origin;
before(async () => {
  s = await startServer();
  site = http.createServer((req, res) => {
    const page = pages[req.url];
    if (!page) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': page[0] }).end(page[1]);
  });
  site.listen(0, '127.0.0.1');
  await once(site, 'listening');
  origin = `http://127.0.0.1:${site.address().port}`;
});
after(async () => {
  site?.close();
  await s?.stop();
});

test('a whole review: branch, discuss, update from main, merge', async () => {
  const { data: space } = await s.client.orgs.createSpace(s.org, { title: 'Handbook' });
  const { data: cr } = await s.client.spaces.createChangeRequest(space.id, { subject: 'Add release notes' });
  assert.equal(cr.object, 'change-request');
  assert.equal(cr.number, 1);
  assert.equal(cr.revisionInitial, space.revision);
  assert.equal(cr.outdated, false);

  // Content goes into the branch, not into the space.
  const { data: imported } = await s.client.spaces.importContentInChangeRequest(space.id, cr.id, { url: `${origin}/release.md`, source: 'markdown' });
  const { data: branch } = await s.client.spaces.getRevisionOfChangeRequestById(space.id, cr.id);
  assert.equal(branch.id, imported.revision);
  assert.deepEqual(branch.pages.map((p) => p.title), ['Release notes']);
  const { data: main0 } = await s.client.spaces.getCurrentRevision(space.id);
  assert.equal(main0.pages.length, 0);

  // Discussion on the change request.
  const { data: comment } = await s.client.spaces.postCommentInChangeRequest(space.id, cr.id, {
    body: { markdown: 'Should we mention the FAQ?' }, page: branch.pages[0].id,
  });
  assert.equal(comment.status, 'open');
  assert.equal(comment.target.page.title, 'Release notes');
  const { data: reply } = await s.client.spaces.postCommentReplyInChangeRequest(space.id, cr.id, comment.id, { body: { markdown: 'Yes, it is on main already.' } });
  assert.equal(reply.object, 'comment-reply');
  const { data: reacted } = await s.client.spaces.updateCommentInChangeRequest(space.id, cr.id, comment.id, { addedReactions: ['👍'] });
  assert.equal(reacted.reactions[0].emoji, '👍');
  assert.equal(reacted.reactions[0].count, 1);
  assert.equal(reacted.replies, 1);
  const { data: withComment } = await s.client.spaces.getChangeRequestById(space.id, cr.id);
  assert.equal(withComment.comments, 1);
  const { data: resolved } = await s.client.spaces.updateCommentInChangeRequest(space.id, cr.id, comment.id, { resolved: true });
  assert.equal(resolved.status, 'resolved');
  assert.ok(resolved.resolvedAt);
  const { data: open } = await s.client.spaces.listCommentsInChangeRequest(space.id, cr.id, { status: 'open' });
  assert.equal(open.count, 0);
  const { data: commenters } = await s.client.spaces.listCommentersInChangeRequest(space.id, cr.id);
  assert.equal(commenters.count, 1);

  // Main moves on; the change request catches up.
  await s.client.spaces.importContent(space.id, { url: `${origin}/faq.md`, source: 'markdown' });
  const { data: outdated } = await s.client.spaces.getChangeRequestById(space.id, cr.id);
  assert.equal(outdated.outdated, true);
  const { data: updated } = await s.client.spaces.updateChangeRequest(space.id, cr.id);
  assert.equal(updated.result, 'update');
  const { data: caughtUp } = await s.client.spaces.getChangeRequestById(space.id, cr.id);
  assert.equal(caughtUp.outdated, false);
  assert.equal(caughtUp.revision, updated.revision);

  // Open it for review, export it, merge it.
  await s.client.spaces.updateChangeRequestById(space.id, cr.id, { status: 'open' });
  const { data: pdf } = await s.client.spaces.getChangeRequestPdf(space.id, cr.id, {});
  const res = await fetch(pdf.url);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/pdf');
  assert.equal(Buffer.from(await res.arrayBuffer()).subarray(0, 5).toString(), '%PDF-');

  const { data: merged } = await s.client.spaces.mergeChangeRequest(space.id, cr.id);
  assert.equal(merged.result, 'merge');
  const { data: content } = await s.client.spaces.getCurrentRevision(space.id);
  assert.equal(content.id, merged.revision);
  assert.equal(content.type, 'merge');
  assert.equal(content.mergedFrom.id, cr.id);
  assert.deepEqual(content.pages.map((p) => p.title).sort(), ['FAQ', 'Release notes']);
  const { data: page } = await s.client.spaces.getPageByPath(space.id, 'release-notes', {});
  assert.match(page.markdown, /Everything new/);
  const { data: done } = await s.client.spaces.getChangeRequestById(space.id, cr.id);
  assert.equal(done.status, 'merged');
  assert.equal(done.revisionMerged, merged.revision);

  await assert.rejects(() => s.client.spaces.mergeChangeRequest(space.id, cr.id), (err) => {
    assert.ok(err instanceof GitBookAPIError);
    assert.equal(err.code, 409);
    return true;
  });
});

test('space comments: post, list, delete', async () => {
  const { data: space } = await s.client.orgs.createSpace(s.org, { title: 'Talk' });
  const { data: c } = await s.client.spaces.postCommentInSpace(space.id, { body: { markdown: 'Hello' } });
  const { data: got } = await s.client.spaces.getCommentInSpace(space.id, c.id, { format: 'document' });
  assert.equal(got.body.document.object, 'document');
  const { data: list } = await s.client.spaces.listCommentsInSpace(space.id, { order: 'asc' });
  assert.equal(list.count, 1);
  const { data: sp } = await s.client.spaces.getSpaceById(space.id);
  assert.equal(sp.comments, 1);
  const del = await s.client.spaces.deleteCommentInSpace(space.id, c.id);
  assert.equal(del.status, 205);
});

test('a change-request reply posted with format=document is answered as a document', async () => {
  const { data: space } = await s.client.orgs.createSpace(s.org, { title: 'Reply formats' });
  const { data: cr } = await s.client.spaces.createChangeRequest(space.id, { subject: 'Formats' });
  const { data: comment } = await s.client.spaces.postCommentInChangeRequest(space.id, cr.id, { body: { markdown: 'Question' } });
  const { data: reply } = await s.client.spaces.postCommentReplyInChangeRequest(space.id, cr.id, comment.id, { body: { markdown: 'In **bold**' } }, { format: 'document' });
  assert.equal(reply.body.markdown, undefined);
  assert.equal(reply.body.document.object, 'document');
  assert.ok(JSON.stringify(reply.body.document).includes('"type":"bold"'));
  const { data: asMarkdown } = await s.client.spaces.postCommentReplyInChangeRequest(space.id, cr.id, comment.id, { body: { markdown: 'Plain' } }, { format: 'markdown' });
  assert.equal(asMarkdown.body.markdown, 'Plain');
  const { data: read } = await s.client.spaces.getCommentReplyInChangeRequest(space.id, cr.id, comment.id, reply.id, { format: 'document' });
  assert.deepEqual(read.body, reply.body);
});
