package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// TestAdminCommandsBesideARunningServer builds the binary, runs `docsapi
// serve` on a database file and, while the server is busy writing, runs
// `docsapi admin bootstrap` and `docsapi admin user` on the same file: both
// must succeed, print their one JSON line, and their tokens must work
// against the running server at once.
func TestAdminCommandsBesideARunningServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs processes; skipped with -short")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "docsapi")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	db := filepath.Join(dir, "data", "docsapi.db")
	if storagetest.OnPostgres() {
		db = storagetest.Target(t)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	srv := exec.Command(bin, "serve", "--addr", addr, "--db", db)
	var stdout, stderr syncBuffer
	srv.Stdout, srv.Stderr = &stdout, &stderr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() error {
		if stopped {
			return nil
		}
		stopped = true
		srv.Process.Signal(syscall.SIGTERM)
		return srv.Wait()
	}
	t.Cleanup(func() { stop() })
	base := "http://" + addr
	waitReady(t, base+"/readyz")

	// The first start printed its admin token once.
	firstToken := ""
	for _, line := range strings.Split(stdout.String(), "\n") {
		if _, tok, ok := strings.Cut(line, "API token:"); ok {
			firstToken = strings.TrimSpace(tok)
		}
	}
	if !strings.HasPrefix(firstToken, "dapi_") {
		t.Fatalf("first start printed no token:\n%s", stdout.String())
	}
	var orgs struct {
		Items []struct{ ID string } `json:"items"`
	}
	getJSON(t, base+"/v1/orgs", firstToken, 200, &orgs)
	firstOrg := orgs.Items[0].ID

	// Keep the server writing while the admin commands run.
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var writes, failures int
	var mu sync.Mutex
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				body := fmt.Sprintf(`{"title":"Busy %d-%d"}`, w, i)
				req, _ := http.NewRequestWithContext(ctx, "PATCH", base+"/v1/orgs/"+firstOrg, strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+firstToken)
				req.Header.Set("Content-Type", "application/json")
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					continue
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				mu.Lock()
				writes++
				if res.StatusCode != 200 {
					failures++
				}
				mu.Unlock()
			}
		}()
	}

	var boot struct{ User, Organization, Token string }
	line := runAdmin(t, bin, &boot, "bootstrap", "--db", db, "--email", "Second@Example.com", "--name", "Second", "--org", "Second Org")
	if !strings.HasPrefix(line, `{"user":"`) || !strings.Contains(line, `","organization":"`) || !strings.Contains(line, `","token":"dapi_`) {
		t.Errorf("bootstrap printed %q", line)
	}
	var user struct{ User, Token string }
	line = runAdmin(t, bin, &user, "user", "--db", db, "--email", "writer@example.com", "--name", "Writer", "--org", boot.Organization, "--role", "edit")
	if !strings.HasPrefix(line, `{"user":"`) || !strings.Contains(line, `","token":"dapi_`) {
		t.Errorf("user printed %q", line)
	}
	var loner struct{ User, Token string }
	runAdmin(t, bin, &loner, "user", "--db", db, "--email", "loner@example.com", "--name", "Loner")
	var guest struct{ User, Token string }
	runAdmin(t, bin, &guest, "user", "--db", db, "--email", "guest@example.com", "--name", "Guest", "--org", boot.Organization, "--role", "guest")
	cancel()
	wg.Wait()
	if writes == 0 || failures > 0 {
		t.Errorf("server writes during the admin commands: %d, failed %d", writes, failures)
	}

	// The new tokens work against the running server at once.
	var org struct {
		ID          string
		Title       string
		Permissions struct{ Admin bool }
	}
	getJSON(t, base+"/v1/orgs/"+boot.Organization, boot.Token, 200, &org)
	if org.Title != "Second Org" || !org.Permissions.Admin {
		t.Errorf("bootstrapped organization %+v", org)
	}
	var member struct {
		Role *string
		User struct{ Email string }
	}
	getJSON(t, base+"/v1/orgs/"+boot.Organization+"/members/"+user.User, user.Token, 200, &member)
	if member.Role == nil || *member.Role != "edit" || member.User.Email != "writer@example.com" {
		t.Errorf("admin user's membership %+v", member)
	}
	getJSON(t, base+"/v1/orgs/"+boot.Organization+"/members/"+guest.User, guest.Token, 200, &member)
	if member.Role != nil {
		t.Errorf("guest has role %v", *member.Role)
	}
	var me struct{ ID, Email string }
	getJSON(t, base+"/v1/user", loner.Token, 200, &me)
	if me.ID != loner.User || me.Email != "loner@example.com" {
		t.Errorf("loner %+v", me)
	}
	getJSON(t, base+"/v1/orgs/"+boot.Organization, loner.Token, 404, nil)

	// `admin token` gives an existing user another token, usable at once;
	// a revoke made by another process (this test, on the same file) is
	// refused by the server from the next request on.
	var tok struct {
		User, ID, Label, Token string
		ReadOnly               bool
	}
	runAdmin(t, bin, &tok, "token", "--db", db, "--email", "Writer@example.com", "--label", "laptop", "--read-only")
	if tok.User != user.User || tok.Label != "laptop" || !tok.ReadOnly || !strings.HasPrefix(tok.Token, "dapi_") {
		t.Errorf("admin token printed %+v", tok)
	}
	getJSON(t, base+"/v1/user", tok.Token, 200, &me)
	if code := send(t, "PATCH", base+"/v1/orgs/"+boot.Organization, tok.Token, `{"title":"X"}`); code != 403 {
		t.Errorf("read-only token's write: %d", code)
	}
	other, err := storage.Open(db, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := other.DeleteUserToken(context.Background(), tok.User, tok.ID); !ok || err != nil {
		t.Fatalf("revoke from another process: %v %v", ok, err)
	}
	other.Close()
	getJSON(t, base+"/v1/user", tok.Token, 401, nil)

	// Refusals: a taken e-mail, an unknown role, missing flags, an unknown user.
	for _, args := range [][]string{
		{"user", "--db", db, "--email", "writer@example.com", "--name", "Again"},
		{"user", "--db", db, "--email", "x@example.com", "--name", "X", "--org", boot.Organization, "--role", "boss"},
		{"user", "--db", db, "--email", "y@example.com", "--name", "Y", "--org", "no-such-org"},
		{"bootstrap", "--db", db, "--email", "z@example.com"},
		{"token", "--db", db, "--email", "nobody@example.com"},
		{"token", "--db", db, "--email", "writer@example.com", "--label", strings.Repeat("l", 101)},
		{"token", "--db", filepath.Join(dir, "missing.db"), "--email", "writer@example.com"},
	} {
		cmd := exec.Command(bin, append([]string{"admin"}, args...)...)
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Run(); err == nil || out.Len() != 0 {
			t.Errorf("admin %v: err %v, stdout %q", args, err, out.String())
		}
	}

	// SIGTERM stops the server cleanly.
	if err := stop(); err != nil {
		t.Errorf("server exit: %v\n%s", err, stderr.String())
	}
}

// syncBuffer is a bytes.Buffer a child process writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func waitReady(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if res, err := http.Get(url); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("server not ready at %s", url)
}

// runAdmin runs `docsapi admin args...`, checks it printed exactly one JSON
// line, decodes it into v and returns the line.
func runAdmin(t *testing.T, bin string, v any, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"admin"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("admin %v: %v\n%s", args, err, stderr.String())
	}
	line := strings.TrimSuffix(string(out), "\n")
	if strings.Contains(line, "\n") {
		t.Fatalf("admin %v printed more than one line: %q", args, out)
	}
	if err := json.Unmarshal([]byte(line), v); err != nil {
		t.Fatalf("admin %v printed %q: %v", args, line, err)
	}
	return line
}

// send makes a request with a JSON body and returns the status.
func send(t *testing.T, method, url, token, body string) int {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

func getJSON(t *testing.T, url, token string, status int, v any) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != status {
		t.Fatalf("GET %s: %d, want %d: %s", url, res.StatusCode, status, raw)
	}
	if v != nil {
		if err := json.Unmarshal(raw, v); err != nil {
			t.Fatalf("GET %s: %v: %s", url, err, raw)
		}
	}
}

// TestUnsupportedDatabaseRefused: a --db URL of a scheme docsapi does not
// serve stops every command at start, names the supported forms, and
// creates nothing (it used to become a folder "mysql:" with a SQLite file).
func TestUnsupportedDatabaseRefused(t *testing.T) {
	dir := t.TempDir()
	target := "mysql://root@" + dir + "/docsapi"
	for _, err := range []error{
		serve([]string{"--addr", "127.0.0.1:0", "--db", target}),
		admin([]string{"bootstrap", "--db", target, "--email", "a@example.com", "--name", "A", "--org", "O"}),
		admin([]string{"user", "--db", target, "--email", "a@example.com", "--name", "A"}),
		admin([]string{"token", "--db", target, "--email", "a@example.com"}),
		admin([]string{"backup", "--db", target, filepath.Join(dir, "b.db")}),
		admin([]string{"restore", "--db", target, filepath.Join(dir, "b.db")}),
	} {
		if err == nil || !strings.Contains(err.Error(), "postgres://") || !strings.Contains(err.Error(), "unsupported scheme") {
			t.Errorf("--db %s: %v, want a refusal naming the supported forms", target, err)
		}
	}
	if _, err := os.Stat("mysql:"); err == nil {
		t.Fatal("a folder mysql: was created")
	}
}
