// Package gittest runs a real Git server for tests: Debian's git
// http-backend behind net/http/cgi on loopback, serving bare repositories
// from a temporary folder with receive-pack (push) enabled, and optionally
// checking basic-auth credentials. Tests push and read with the git
// command line to see what docsapi did, exactly as a user's clone would.
package gittest

import (
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// Server is a smart-HTTP Git server over the bare repositories in Root.
type Server struct {
	t        testing.TB
	Root     string
	URL      string // http://127.0.0.1:port
	User     string // when set, requests need these basic-auth credentials
	Password string
	Requests atomic.Int64
}

// Start starts a server; user and password ("" for none) are checked on
// every request. Tests skip when git is not installed.
func Start(t testing.TB, user, password string) *Server {
	t.Helper()
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	out, err := exec.Command(gitPath, "--exec-path").Output()
	if err != nil {
		t.Fatalf("git --exec-path: %v", err)
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		t.Skipf("no git-http-backend: %v", err)
	}
	s := &Server{t: t, Root: t.TempDir(), User: user, Password: password}
	h := &cgi.Handler{Path: backend, Env: []string{"GIT_PROJECT_ROOT=" + s.Root, "GIT_HTTP_EXPORT_ALL=1"}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Requests.Add(1)
		if s.User != "" {
			u, p, ok := r.BasicAuth()
			if !ok || u != s.User || p != s.Password {
				w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
				http.Error(w, "authentication required", http.StatusUnauthorized)
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Git runs git in dir and returns its trimmed output.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Tester", "GIT_AUTHOR_EMAIL=tester@example.com",
		"GIT_COMMITTER_NAME=Tester", "GIT_COMMITTER_EMAIL=tester@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// Bare creates an empty bare repository name.git that accepts pushes and
// returns its URL (without credentials).
func (s *Server) Bare(name string) string {
	s.t.Helper()
	dir := filepath.Join(s.Root, name+".git")
	Git(s.t, s.Root, "init", "--bare", "--initial-branch=main", dir)
	Git(s.t, dir, "config", "http.receivepack", "true")
	return s.URL + "/" + name + ".git"
}

// Dir is the bare repository's folder.
func (s *Server) Dir(name string) string { return filepath.Join(s.Root, name+".git") }

// Commit writes files (path to content) in a fresh clone of the bare
// repository's main branch, commits them with message and pushes straight
// to the bare folder; it returns the new commit's id.
func (s *Server) Commit(name, message string, files map[string]string) string {
	s.t.Helper()
	work := s.t.TempDir()
	Git(s.t, work, "init", "--initial-branch=main", ".")
	Git(s.t, work, "remote", "add", "origin", s.Dir(name))
	if Git(s.t, work, "ls-remote", "origin", "refs/heads/main") != "" {
		Git(s.t, work, "fetch", "origin", "main")
		Git(s.t, work, "reset", "--hard", "origin/main")
	}
	for p, content := range files {
		full := filepath.Join(work, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			s.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			s.t.Fatal(err)
		}
	}
	Git(s.t, work, "add", "-A")
	Git(s.t, work, "commit", "-q", "--allow-empty", "-m", message)
	Git(s.t, work, "push", "-q", "origin", "HEAD:refs/heads/main")
	return Git(s.t, work, "rev-parse", "HEAD")
}

// Show is `git show <rev>:<path>` in the bare repository.
func (s *Server) Show(name, rev, path string) string {
	s.t.Helper()
	return Git(s.t, s.Dir(name), "show", rev+":"+path)
}

// Run is git run in the bare repository.
func (s *Server) Run(name string, args ...string) string {
	s.t.Helper()
	return Git(s.t, s.Dir(name), args...)
}
