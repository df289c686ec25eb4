package main

import (
	"bytes"
	"docsapi/storage/storagetest"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMain lets the test binary stand in for the docsapi binary: with
// DOCSAPI_TEST_SERVE=1 it runs `docsapi serve` (configured by the DOCSAPI_*
// environment twins of the flags) instead of the tests, so the replica test
// starts real server processes it can kill.
func TestMain(m *testing.M) {
	if os.Getenv("DOCSAPI_TEST_SERVE") == "1" {
		if err := serve(nil); err != nil {
			fmt.Fprintln(os.Stderr, "docsapi:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// testDatabase is the database the replica test runs its processes on: a
// new SQLite file, or a new PostgreSQL database under DOCSAPI_TEST_DB.
func testDatabase(t *testing.T) string {
	t.Helper()
	return storagetest.Target(t)
}

// replica is one `docsapi serve` process.
type replica struct {
	url string
	cmd *exec.Cmd
	out *bytes.Buffer
}

// startReplica starts `docsapi serve` on db at a free loopback port, with
// publicURL shared by every replica (as behind one load balancer), and
// waits until it answers /readyz.
func startReplica(t *testing.T, db, publicURL string, env ...string) *replica {
	t.Helper()
	return startProcess(t, os.Args[0], []string{"-test.run=^$"}, db, publicURL, append([]string{"DOCSAPI_TEST_SERVE=1"}, env...)...)
}

// startProcess starts bin with args as a docsapi server on db at a free
// loopback port and waits until it answers /readyz.
func startProcess(t *testing.T, bin string, args []string, db, publicURL string, env ...string) *replica {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "DOCSAPI_ADDR="+addr, "DOCSAPI_DB="+db,
		"DOCSAPI_PUBLIC_URL="+publicURL, "DOCSAPI_ALLOW_PRIVATE_FETCH=true", "DOCSAPI_LOG_LEVEL=warn")
	cmd.Env = append(cmd.Env, env...)
	r := &replica{url: "http://" + addr, cmd: cmd, out: &bytes.Buffer{}}
	// One writer for both: its lock is what keeps the two streams' copies
	// from writing the buffer at once.
	out := &lockedWriter{w: r.out}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if res, err := http.Get(r.url + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return r
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica at %s did not start: %s", addr, r.out)
		}
	}
}

// lockedWriter lets a process's stdout and stderr share one buffer.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// call sends a request to the replica and decodes a JSON answer.
func (r *replica) call(t *testing.T, method, path, token string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, r.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

// send is call for goroutines (no t): extra headers in, the answer's
// status, body and headers out.
func (r *replica) send(method, path, token string, body any, headers ...string) (int, map[string]any, http.Header, error) {
	raw, _ := json.Marshal(body)
	req, err := http.NewRequest(method, r.url+path, bytes.NewReader(raw))
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer res.Body.Close()
	var out map[string]any
	json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out, res.Header, nil
}

func (r *replica) must(t *testing.T, want int, method, path, token string, body any) map[string]any {
	t.Helper()
	status, out := r.call(t, method, path, token, body)
	if status != want {
		t.Fatalf("%s %s on %s: %d, want %d: %v", method, path, r.url, status, want, out)
	}
	return out
}

// specServer serves OpenAPI documents to the replicas' processors and
// counts the fetches of each; /slow/ paths wait until released.
type specServer struct {
	*httptest.Server
	mu      sync.Mutex
	fetches map[string]int
	slowHit chan string
	release chan struct{}
}

func newSpecServer(t *testing.T) *specServer {
	s := &specServer{fetches: map[string]int{}, slowHit: make(chan string, 16), release: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.fetches[r.URL.Path]++
		s.mu.Unlock()
		if strings.HasPrefix(r.URL.Path, "/slow/") {
			s.slowHit <- r.URL.Path
			select {
			case <-s.release:
			case <-r.Context().Done():
				return
			case <-time.After(time.Minute):
			}
		}
		w.Header().Set("Content-Type", "application/yaml")
		fmt.Fprintf(w, "openapi: 3.0.0\ninfo: {title: %q, version: '1'}\npaths: {}\n", r.URL.Path)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *specServer) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fetches[path]
}

// waitSpecs waits (30 s at most) until every spec of slugs reads complete
// on r.
func waitSpecs(t *testing.T, r *replica, org, token string, slugs ...string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for _, slug := range slugs {
		for {
			s := r.must(t, 200, "GET", "/v1/orgs/"+org+"/openapi/"+slug, token, nil)
			if s["processingState"] == "complete" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("spec %s still %v", slug, s["processingState"])
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// TestReplicas runs two `docsapi serve` processes on one database: a write
// on one is read on the other at once, a token revoked on one is refused
// by the other at once, change-request numbers and If-Match hold across
// both, queued work runs once while both run, and killing
// the process that holds a job's lease lets the other finish the job once
// the lease has run out.
func TestReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	db := testDatabase(t)
	var boot struct{ Organization, Token string }
	if err := json.Unmarshal([]byte(captureStdout(t, func() error {
		return admin([]string{"bootstrap", "--db", db, "--email", "admin@acme.test", "--name", "Admin", "--org", "Acme"})
	})), &boot); err != nil {
		t.Fatal(err)
	}
	org, tok := boot.Organization, boot.Token
	const publicURL = "http://docs.example.test"
	lease := "DOCSAPI_JOB_LEASE=2s" // short, so that the takeover below waits seconds, not minutes
	a := startReplica(t, db, publicURL, lease)
	b := startReplica(t, db, publicURL, lease)

	// A write on A reads on B at once (B has the space cached under its old
	// title before the rename).
	space := a.must(t, 201, "POST", "/v1/orgs/"+org+"/spaces", tok, map[string]any{"title": "Before"})["id"].(string)
	if got := b.must(t, 200, "GET", "/v1/spaces/"+space, tok, nil)["title"]; got != "Before" {
		t.Fatalf("B reads %v", got)
	}
	a.must(t, 200, "PATCH", "/v1/spaces/"+space, tok, map[string]any{"title": "After"})
	if got := b.must(t, 200, "GET", "/v1/spaces/"+space, tok, nil)["title"]; got != "After" {
		t.Fatalf("B reads %v after the rename on A", got)
	}

	// A token revoked on A is refused by B at once (B has it cached).
	created := a.must(t, 201, "POST", "/v1/user/tokens", tok, map[string]any{"label": "short-lived"})
	second, secondID := created["token"].(string), created["id"].(string)
	b.must(t, 200, "GET", "/v1/user", second, nil)
	a.must(t, 205, "DELETE", "/v1/user/tokens/"+secondID, tok, nil)
	if status, _ := b.call(t, "GET", "/v1/user", second, nil); status != 401 {
		t.Fatalf("B answers a token revoked on A with %d", status)
	}

	// Change-request numbers stay 1..N without gap or repeat when both
	// processes create at once.
	const crs = 12
	numbers := make(chan any, crs)
	errs := make(chan error, crs)
	var wg sync.WaitGroup
	for i := range crs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := []*replica{a, b}[i%2]
			status, out, _, err := r.send("POST", "/v1/spaces/"+space+"/change-requests", tok, map[string]any{"subject": fmt.Sprint("CR ", i)})
			if err == nil && status != 201 {
				err = fmt.Errorf("create on %s: %d %v", r.url, status, out)
			}
			if err != nil {
				errs <- err
				return
			}
			numbers <- out["number"]
		}()
	}
	wg.Wait()
	close(errs)
	close(numbers)
	for err := range errs {
		t.Fatal(err)
	}
	seen := map[float64]bool{}
	for n := range numbers {
		seen[n.(float64)] = true
	}
	for n := 1; n <= crs; n++ {
		if !seen[float64(n)] {
			t.Fatalf("change-request numbers from both processes: %v, missing %d", seen, n)
		}
	}

	// If-Match across processes: PATCHes sent at once to both with the
	// same ETag; exactly one is applied, the others are 412.
	for round := range 3 {
		_, _, h, err := a.send("GET", "/v1/spaces/"+space, tok, nil)
		if err != nil {
			t.Fatal(err)
		}
		etag := h.Get("ETag")
		statuses := make(chan int, 4)
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := []*replica{a, b}[i%2]
				status, _, _, err := r.send("PATCH", "/v1/spaces/"+space, tok, map[string]any{"title": fmt.Sprintf("Round %d by %d", round, i)}, "If-Match", etag)
				if err != nil {
					status = -1
				}
				statuses <- status
			}()
		}
		wg.Wait()
		close(statuses)
		won := 0
		for st := range statuses {
			switch st {
			case 200:
				won++
			case 412:
			default:
				t.Fatalf("If-Match PATCH answered %d", st)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d PATCHes with one If-Match were applied, want exactly 1", round, won)
		}
	}

	// Queued work runs once while both run: specs created on both replicas,
	// each fetched exactly once.
	specs := newSpecServer(t)
	var slugs []string
	for i := range 8 {
		r := a
		if i%2 == 1 {
			r = b
		}
		slug := fmt.Sprintf("spec-%d", i)
		slugs = append(slugs, slug)
		r.must(t, 201, "POST", "/v1/orgs/"+org+"/openapi", tok, map[string]any{"slug": slug, "source": map[string]any{"url": specs.URL + "/" + slug}})
	}
	waitSpecs(t, a, org, tok, slugs...)
	for _, slug := range slugs {
		if n := specs.count("/" + slug); n != 1 {
			t.Errorf("spec %s fetched %d times, want once", slug, n)
		}
	}

	// Killing the process that holds a job's lease lets another finish it.
	// B stops cleanly first (handing back anything it holds), so that A is
	// the one to claim the slow spec: with both running, B's processor,
	// still draining its own queue, may claim it first. A is killed
	// mid-fetch; a new replica C, once A's lease has run out and woken by
	// another spec, claims the slow one again and completes it.
	if err := b.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	b.cmd.Wait()
	a.must(t, 201, "POST", "/v1/orgs/"+org+"/openapi", tok, map[string]any{"slug": "slow", "source": map[string]any{"url": specs.URL + "/slow/spec"}})
	select {
	case <-specs.slowHit:
	case <-time.After(30 * time.Second):
		t.Fatal("no replica fetched the slow spec")
	}
	if err := a.cmd.Process.Kill(); err != nil { // SIGKILL: no release, no clean stop
		t.Fatal(err)
	}
	a.cmd.Wait()
	close(specs.release) // fetches answer at once from now on
	c := startReplica(t, db, publicURL, lease)
	if s := c.must(t, 200, "GET", "/v1/orgs/"+org+"/openapi/slow", tok, nil); s["processingState"] != "progress" {
		t.Fatalf("the slow spec after A died: %v", s["processingState"])
	}
	time.Sleep(2500 * time.Millisecond) // A's lease runs out
	c.must(t, 201, "POST", "/v1/orgs/"+org+"/openapi", tok, map[string]any{"slug": "wake", "source": map[string]any{"url": specs.URL + "/wake"}})
	waitSpecs(t, c, org, tok, "slow", "wake")
	if n := specs.count("/slow/spec"); n != 2 {
		t.Errorf("the slow spec was fetched %d times, want 2 (A's interrupted run and B's)", n)
	}
	if s := c.must(t, 200, "GET", "/v1/orgs/"+org+"/openapi/slow", tok, nil); s["lastErrorCode"] != nil {
		t.Errorf("C's run of the slow spec: %v", s)
	}
}
