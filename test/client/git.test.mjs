// Git Sync through the official client: the four space-git operations
// against a real Git server started here on loopback (Debian's
// git-http-backend run as CGI by a small Node bridge, receive-pack
// enabled, basic auth checked), with a bare repository on disk.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { GitBookAPIError } from '@gitbook/api';
import { startServer } from './harness.mjs';
import { check } from './contract.mjs';

const USER = 'bot';
const PASS = 'client-token-27';
let srv, git, root, gitURL;

const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 'Tester', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'Tester', GIT_COMMITTER_EMAIL: 't@example.com', GIT_CONFIG_NOSYSTEM: '1' };
const run = (cwd, ...args) => execFileSync('git', args, { cwd, env: gitEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

// Serves GIT_PROJECT_ROOT through git-http-backend, one CGI process a request.
function gitServer(projectRoot) {
  const backend = join(execFileSync('git', ['--exec-path'], { encoding: 'utf8' }).trim(), 'git-http-backend');
  return http.createServer((req, res) => {
    const auth = req.headers.authorization ?? '';
    if (auth !== 'Basic ' + Buffer.from(`${USER}:${PASS}`).toString('base64')) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' });
      return res.end('authentication required');
    }
    const url = new URL(req.url, 'http://localhost');
    const cgi = spawn(backend, [], {
      env: {
        GIT_PROJECT_ROOT: projectRoot, GIT_HTTP_EXPORT_ALL: '1', REMOTE_USER: USER, REQUEST_METHOD: req.method,
        PATH_INFO: decodeURIComponent(url.pathname), QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '', CONTENT_LENGTH: req.headers['content-length'] ?? '',
        HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '', GIT_PROTOCOL: req.headers['git-protocol'] ?? '',
      },
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0), started = false;
    cgi.stdout.on('data', (chunk) => {
      if (started) return res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      started = true;
      let status = 200;
      const headers = {};
      for (const line of head.subarray(0, end).toString().split('\r\n')) {
        const i = line.indexOf(':');
        const name = line.slice(0, i).trim(), value = line.slice(i + 1).trim();
        if (name.toLowerCase() === 'status') status = parseInt(value, 10);
        else headers[name] = value;
      }
      res.writeHead(status, headers);
      res.write(head.subarray(end + 4));
    });
    cgi.on('close', () => res.end());
  });
}

function commit(message, files) {
  const work = mkdtempSync(join(tmpdir(), 'git-work-'));
  run(work, 'clone', '-q', join(root, 'docs.git'), '.');
  for (const [p, content] of Object.entries(files)) {
    mkdirSync(dirname(join(work, p)), { recursive: true });
    writeFileSync(join(work, p), content);
  }
  run(work, 'add', '-A');
  run(work, 'commit', '-q', '-m', message);
  run(work, 'push', '-q', 'origin', 'HEAD:refs/heads/main');
  return run(work, 'rev-parse', 'HEAD');
}

async function settled(client, spaceId) {
  for (let i = 0; i < 200; i++) {
    const { data } = await client.spaces.getSpaceGitInfo(spaceId);
    if (!['pending', 'running'].includes(data.operation?.status)) return data;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the Git Sync operation did not end');
}

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'git-root-'));
  run(root, 'init', '-q', '--bare', '--initial-branch=main', 'docs.git');
  run(join(root, 'docs.git'), 'config', 'http.receivepack', 'true');
  git = gitServer(root);
  git.listen(0, '127.0.0.1');
  await once(git, 'listening');
  gitURL = `http://${USER}:${PASS}@127.0.0.1:${git.address().port}/docs.git`;
  srv = await startServer();
});
after(async () => {
  await srv?.stop();
  git?.close();
});

test('import, info, export and legacy removal through the official client', async () => {
  const oid = commit('Docs from Git', {
    'README.md': '# Welcome\n\nHello.\n',
    'SUMMARY.md': '# Table of contents\n\n* [Welcome](README.md)\n* [Setup](setup.md)\n',
    'setup.md': '# Setup\n\nInstall it.\n',
  });
  const { data: space } = await srv.client.orgs.createSpace(srv.org, { title: 'Synced' });

  await assert.rejects(srv.client.spaces.getSpaceGitInfo(space.id), (e) => e instanceof GitBookAPIError && e.code === 404);

  const imported = await srv.client.spaces.importGitRepository(space.id, { url: gitURL, ref: 'refs/heads/main', timestamp: new Date().toISOString() });
  assert.equal(imported.status, 204);
  let info = await settled(srv.client, space.id);
  assert.equal(info.operation.status, 'completed', info.operation.message);
  assert.equal(info.operation.commit, oid);
  assert.equal(info.repoName, 'docs');
  assert.deepEqual(check('getSpaceGitInfo', 200, info), [], 'GitSyncState of 0.130.0');
  assert.ok(!JSON.stringify(info).includes(PASS), 'the state never shows the credentials');

  const { data: rev } = await srv.client.spaces.getCurrentRevision(space.id);
  assert.deepEqual(check('getCurrentRevision', 200, rev), [], 'Revision with git of 0.130.0');
  assert.equal(rev.git.oid, oid);
  assert.deepEqual(rev.pages.map((p) => p.title).slice(0, 2), ['Welcome', 'Setup']);

  // A page added through GraphQL (0.130.0 has no page creation).
  const gql = await fetch(`${srv.endpoint}/graphql`, {
    method: 'POST', headers: { Authorization: `Bearer ${srv.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ query: 'mutation($t: ContentTarget!, $in: CreatePageInput!) { createPage(target: $t, input: $in) { page { id } } }',
      variables: { t: { space: space.id }, in: { title: 'News', markdown: 'Fresh.' } } }),
  }).then((r) => r.json());
  assert.ok(gql.data?.createPage?.page?.id, JSON.stringify(gql));
  const exported = await srv.client.spaces.exportToGitRepository(space.id, { url: gitURL, ref: 'refs/heads/main', commitMessage: 'Docs from docsapi' });
  assert.equal(exported.status, 204);
  info = await settled(srv.client, space.id);
  assert.equal(info.operation.kind, 'export');
  assert.equal(info.operation.status, 'completed', info.operation.message);
  const tip = run(join(root, 'docs.git'), 'rev-parse', 'main');
  assert.equal(info.operation.commit, tip);
  assert.notEqual(tip, oid, 'a changed space makes a commit');
  assert.match(run(join(root, 'docs.git'), 'log', '-1', '--format=%ae %B', 'main'), /owner@example\.com Docs from docsapi/);
  assert.match(run(join(root, 'docs.git'), 'grep', '-l', 'Fresh', 'main'), /\.md/);

  // Wrong credentials: the operation fails and says why.
  await srv.client.spaces.importGitRepository(space.id, { url: gitURL.replace(PASS, 'wrong'), ref: 'refs/heads/main', force: true });
  info = await settled(srv.client, space.id);
  assert.equal(info.operation.status, 'failed');
  assert.match(info.operation.message, /credentials/);

  // A bad request names its field.
  await assert.rejects(srv.client.spaces.importGitRepository(space.id, { url: 'ftp://example.com/x', ref: 'main' }),
    (e) => e instanceof GitBookAPIError && e.code === 400 && /url/.test(e.errorMessage));

  const removed = await srv.client.spaces.deleteLegacyGitInstallation(space.id);
  assert.equal(removed.status, 204, 'no legacy installation to remove');
});
