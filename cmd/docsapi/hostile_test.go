package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The hostile-input table: every request an attacker with an ordinary token
// could send to take the service down, hog a core or the memory. Each case
// is sent to a real `docsapi serve` process (built without the race
// detector, as it runs in production) on the test's database (SQLite, or
// PostgreSQL under DOCSAPI_TEST_DB), and must be answered
//   - with its expected status (any 4xx unless the case says otherwise),
//   - within hostileTime,
//   - with the process still alive and answering /healthz,
//   - and the process's resident memory grown by less than hostileGrowth
//     over what it held just before the case.
//
// Cases live beside the code they attack, one file a surface
// (hostile_<surface>_test.go), each adding its rows in an init function.

const (
	hostileTime   = time.Second
	hostileGrowth = 64 << 20
)

// hostileCase is one row of the table.
type hostileCase struct {
	name string
	// setup prepares what the request needs (not timed, not measured).
	setup func(t *testing.T, s *hostileServer)
	// request builds the request; s.request helps.
	request func(s *hostileServer) *http.Request
	// status is the status the answer must have; 0 means any 4xx.
	status int
	// attack, instead of request, talks to the server itself (a
	// WebSocket) and returns how long the part that must be answered
	// within hostileTime took; it fails t when the server's answers are
	// wrong. The process's health and memory are checked after it.
	attack func(t *testing.T, s *hostileServer) time.Duration
	// graphQLRefusal: a 4xx, or a GraphQL answer whose first error
	// carries a 4xx extensions.status (a resolver's refusal, which
	// GraphQL over HTTP answers with 200); status is not checked then.
	graphQLRefusal bool
}

// hostileCases is filled by the init functions of hostile_*_test.go.
var hostileCases []hostileCase

// hostileServer is the process under attack and what the cases may use: an
// organization with one space, its admin's token and a read-only token of
// the same admin.
type hostileServer struct {
	*replica
	Org, Space    string
	Admin, Reader string
	// Values lets a case's setup leave ids for its request.
	Values map[string]string
}

// request builds a request to the server with token as its Bearer token
// (none when empty) and body sent as contentType.
func (s *hostileServer) request(method, path, token, contentType string, body []byte) *http.Request {
	req, err := http.NewRequest(method, s.url+path, bytes.NewReader(body))
	if err != nil {
		panic(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return req
}

// graphql builds a GraphQL POST of query as the admin.
func (s *hostileServer) graphql(query string) *http.Request {
	body, _ := json.Marshal(map[string]any{"query": query})
	return s.request("POST", "/graphql", s.Admin, "application/json", body)
}

// rss is the process's resident memory in bytes.
func (s *hostileServer) rss(t *testing.T) int64 {
	t.Helper()
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(s.cmd.Process.Pid) + "/status")
	if err != nil {
		t.Fatalf("reading the server's memory: %v", err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("VmRSS %q: %v", rest, err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in /proc status")
	return 0
}

var (
	serverBinaryOnce sync.Once
	serverBinaryPath string
	serverBinaryErr  error
)

// serverBinary is a docsapi binary built without the race detector:
// DOCSAPI_BIN when the Makefile built one, else one built here (the test
// binary itself may carry the race detector, which multiplies time and
// memory, and the bounds below are about the production build).
func serverBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("DOCSAPI_BIN"); bin != "" {
		return bin
	}
	serverBinaryOnce.Do(func() {
		dir, err := os.MkdirTemp("", "docsapi-bin-")
		if err != nil {
			serverBinaryErr = err
			return
		}
		serverBinaryPath = filepath.Join(dir, "docsapi")
		out, err := exec.Command("go", "build", "-o", serverBinaryPath, ".").CombinedOutput()
		if err != nil {
			serverBinaryErr = &buildError{err: err, out: string(out)}
		}
	})
	if serverBinaryErr != nil {
		t.Fatal(serverBinaryErr)
	}
	return serverBinaryPath
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return "go build: " + e.err.Error() + "\n" + e.out }

// startHostileServer bootstraps a database and starts the production binary
// on it with env added to its environment.
func startHostileServer(t *testing.T, env ...string) *hostileServer {
	t.Helper()
	db := testDatabase(t)
	var boot struct{ Organization, Token string }
	if err := json.Unmarshal([]byte(captureStdout(t, func() error {
		return admin([]string{"bootstrap", "--db", db, "--email", "admin@acme.test", "--name", "Admin", "--org", "Acme"})
	})), &boot); err != nil {
		t.Fatal(err)
	}
	// The collector at Go's default target (GOGC 100), not the server's
	// --gc-percent 400: resident memory then tells what a request keeps
	// and its peak, not garbage left for a later collection by design.
	env = append([]string{"DOCSAPI_GC_PERCENT=100"}, env...)
	r := startProcess(t, serverBinary(t), []string{"serve"}, db, "http://docs.example.test", env...)
	s := &hostileServer{replica: r, Org: boot.Organization, Admin: boot.Token, Values: map[string]string{}}
	s.Space = r.must(t, 201, "POST", "/v1/orgs/"+s.Org+"/spaces", s.Admin, map[string]any{"title": "Target"})["id"].(string)
	s.Reader = r.must(t, 201, "POST", "/v1/user/tokens", s.Admin, map[string]any{"label": "reader", "readOnly": true})["token"].(string)
	return s
}

func TestHostileInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server process")
	}
	s := startHostileServer(t)
	// Warm the process up (first requests fill caches and pools).
	for range 20 {
		s.must(t, 200, "GET", "/v1/spaces/"+s.Space, s.Admin, nil)
	}
	client := &http.Client{Timeout: 30 * time.Second}
	for _, c := range hostileCases {
		t.Run(c.name, func(t *testing.T) {
			// Each case's setup runs just before it (another case's setup
			// may make a new revision of the shared space), and its
			// memory is measured from there: what one hostile request may
			// cost. Bounded caches filled by earlier cases (documents,
			// renders, link targets: docs/security.md) are the baseline's.
			if c.setup != nil {
				c.setup(t, s)
			}
			base := s.rss(t)
			if c.attack != nil {
				if took := c.attack(t, s); took > hostileTime {
					t.Errorf("answered in %v, more than %v", took, hostileTime)
				}
				if status, _ := s.call(t, "GET", "/healthz", "", nil); status != 200 {
					t.Fatalf("/healthz answers %d after the case", status)
				}
				if grown := s.rss(t) - base; grown > hostileGrowth {
					t.Errorf("resident memory grew by %d MB (limit %d MB)", grown>>20, hostileGrowth>>20)
				}
				return
			}
			req := c.request(s)
			start := time.Now()
			res, err := client.Do(req)
			took := time.Since(start)
			if err != nil {
				t.Fatalf("no answer after %v: %v\nserver output:\n%s", took, err, s.out)
			}
			var msg bytes.Buffer
			msg.ReadFrom(res.Body)
			res.Body.Close()
			if c.graphQLRefusal && (res.StatusCode < 400 || res.StatusCode > 499) {
				var answer struct {
					Errors []struct{ Extensions struct{ Status int } }
				}
				json.Unmarshal(msg.Bytes(), &answer)
				if len(answer.Errors) == 0 || answer.Errors[0].Extensions.Status < 400 || answer.Errors[0].Extensions.Status > 499 {
					t.Errorf("status %d, want a GraphQL error with a 4xx status: %.300s", res.StatusCode, msg.String())
				}
			} else if c.status == 0 && (res.StatusCode < 400 || res.StatusCode > 499) || c.status != 0 && res.StatusCode != c.status {
				want := "a 4xx"
				if c.status != 0 {
					want = strconv.Itoa(c.status)
				}
				t.Errorf("status %d, want %s: %.300s", res.StatusCode, want, msg.String())
			}
			if took > hostileTime {
				t.Errorf("answered in %v, more than %v", took, hostileTime)
			}
			if status, _ := s.call(t, "GET", "/healthz", "", nil); status != 200 {
				t.Fatalf("/healthz answers %d after the case", status)
			}
			if grown := s.rss(t) - base; grown > hostileGrowth {
				t.Errorf("resident memory grew by %d MB (limit %d MB)", grown>>20, hostileGrowth>>20)
			}
		})
	}
}
