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

// With DOCSAPI_TEST_DB (a PostgreSQL server URL, see test/pg/cluster.sh),
// each server gets a database of its own there, created with psql and
// dropped when it stops; without it, a SQLite file in a temporary folder.
function freshDatabase(dir) {
  const server = process.env.DOCSAPI_TEST_DB;
  if (!server) return { db: join(dir, 'docsapi.db'), drop() {} };
  const name = `docsapi_client_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const psql = (sql) => execFileSync('psql', ['-q', '-v', 'ON_ERROR_STOP=1', '-d', server, '-c', sql], { stdio: ['ignore', 'ignore', 'inherit'] });
  psql(`CREATE DATABASE ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return { db: url.toString(), drop: () => psql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/**
 * startServer() -> { endpoint, client, org, user, token, db, newUser(email, role), newOrg(title, email), stop() }
 * extraArgs are appended to `docsapi serve` (for example ['--translate-url', url]).
 */
export async function startServer(extraArgs = []) {
  const dir = mkdtempSync(join(tmpdir(), 'docsapi-client-'));
  const { db, drop } = freshDatabase(dir);
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
      drop();
    },
  };
}

// A self-signed identity provider certificate valid until 2126, for SAML
// providers (a fixture: only its shape and validity matter here; the Go
// tests sign real assertions with fresh keys).
export const IDP_CERT = `-----BEGIN CERTIFICATE-----
MIIDNTCCAh2gAwIBAgIUIU2hkR3RtswuF7UXr1dlhLA6Fc8wDQYJKoZIhvcNAQEL
BQAwKTEnMCUGA1UEAwweZG9jc2FwaSB0ZXN0IGlkZW50aXR5IHByb3ZpZGVyMCAX
DTI2MTEyMTA2MDgwN1oYDzIxMjYxMDI4MDYwODA3WjApMScwJQYDVQQDDB5kb2Nz
YXBpIHRlc3QgaWRlbnRpdHkgcHJvdmlkZXIwggEiMA0GCSqGSIb3DQEBAQUAA4IB
DwAwggEKAoIBAQCiMEvvprsgpgUG9ymwNofY4S5n3XK5e7OmoMoifs3AjVFY9Y5v
KH44yjTiLl1T6RrsRZaSmVgUNHgqsHVjLX+WjS7J2kUH4FTZTn/2uyvTh9F4SkzD
FlvOcMpckWi994e/yE7xndljbXgyQfZnsxJgeWpPRg6kAUvN+a5b+cp5qAPvutTD
0paGi6nS/5Dn1hVAmhuhN9MTSLOK4RqhtregX60bVEsk9qF+IuVNdEI741EUEJf4
VCG+YLVk8eO47BG3bWx7Mi9SQjBHAQ53S3y9jJfoRUsXR7fTPnJO8bQ/y+d4Tk6V
sBt4S6V69EDsss7W704yhjscquRsuZ41OPHxAgMBAAGjUzBRMB0GA1UdDgQWBBRh
NZgzGPT5Ce2lgERDLkoBsmbpITAfBgNVHSMEGDAWgBRhNZgzGPT5Ce2lgERDLkoB
smbpITAPBgNVHRMBAf8EBTADAQH/MA0GCSqGSIb3DQEBCwUAA4IBAQCEwcRw+mc/
Qb0jI0cvA84IDFmeXYfuQSh3b+SfspFMHCsUSReHzJ5fV8o6IuFPGL4OJgVOIW9p
tdO7YjKOUONaHMjajH0eNtTLglnqc9ysfLmGElhZh2qtu6jfiS3OcmpoaW7Gy4bi
koJjruycWwg045kdR2jq5CmoFx3pr1g3U1v1BhkvKnf7bG3mVWu6lZUU27ut/nXi
wuBUiku9G1L9F0mgfQGPbr5eq+5oEwjHou/QOGGWC6k3OHB65+unzZGNko7S6wxx
NJR7dT9HzRlJQOtwjdlX02S1L9vk9JMo1PnJEOyOCfxOxAK1x/4Bg85tlQDF3V51
dVjEAA+ag8Nf
-----END CERTIFICATE-----
`;
