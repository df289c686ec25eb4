// Starts a real `docsapi serve` process over a fresh database and hands tests
// the official client, bootstrapped as an organization admin.
import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitBookAPI } from '@gitbook/api';

export const BIN = process.env.DOCSAPI_BIN ?? join(import.meta.dirname, '..', '..', 'docsapi');

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

async function waitReady(url, ms = 15000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`docsapi did not become ready at ${url}`);
}

function admin(args) {
  return JSON.parse(execFileSync(BIN, ['admin', ...args], { encoding: 'utf8' }));
}

/**
 * startServer() -> { endpoint, client, org, user, token, db, newUser(email, role), newOrg(title, email), stop() }
 * extraArgs are appended to `docsapi serve` (for example ['--translate-url', url]).
 */
export async function startServer(extraArgs = []) {
  const dir = mkdtempSync(join(tmpdir(), 'docsapi-client-'));
  const db = join(dir, 'docsapi.db');
  const boot = admin(['bootstrap', '--db', db, '--email', 'owner@example.com', '--name', 'Owner', '--org', 'Client Test Org']);
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  // Request logs only with DOCSAPI_LOG_LEVEL=info (or debug); warnings and errors always show.
  const logLevel = process.env.DOCSAPI_LOG_LEVEL ?? 'warn';
  const proc = spawn(BIN, ['serve', '--addr', `127.0.0.1:${port}`, '--db', db, '--allow-private-fetch', '--log-level', logLevel, ...extraArgs], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitReady(`${endpoint}/readyz`);
  const clientFor = (token) => new GitBookAPI({ endpoint, authToken: token });
  return {
    endpoint,
    db,
    org: boot.organization,
    user: boot.user,
    token: boot.token,
    client: clientFor(boot.token),
    clientFor,
    /** A new member of the bootstrapped organization with role ('guest' for none). */
    newUser(email, role = 'read') {
      const u = admin(['user', '--db', db, '--email', email, '--name', email.split('@')[0], '--org', boot.organization, '--role', role]);
      return { ...u, client: clientFor(u.token) };
    },
    /** Another organization with its own admin. */
    newOrg(title, email) {
      const b = admin(['bootstrap', '--db', db, '--email', email, '--name', email.split('@')[0], '--org', title]);
      return { ...b, client: clientFor(b.token) };
    },
    async stop() {
      proc.kill('SIGTERM');
      await once(proc, 'exit');
    },
  };
}
