package main

import (
	"bufio"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"
)

// slowBody starts a POST on its own connection that sends its headers and
// a piece of its body, then nothing: the handler waits on the body.
func slowBody(t *testing.T, s *hostileServer) net.Conn {
	t.Helper()
	u, _ := url.Parse(s.url)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST /v1/orgs/%s/spaces HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"title\":", s.Org, u.Host, s.Admin)
	return conn
}

// TestRequestDeadline: past --request-timeout a request ends, also one
// whose client sends its body a byte at a time (408, not a handler held
// for ever).
func TestRequestDeadline(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server process")
	}
	s := startHostileServer(t, "DOCSAPI_REQUEST_TIMEOUT=1s")
	conn := slowBody(t, s)
	start := time.Now()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer after %v: %v", time.Since(start), err)
	}
	res.Body.Close()
	if took := time.Since(start); res.StatusCode != 408 || took > 3*time.Second {
		t.Fatalf("status %d after %v, want 408 after about 1s", res.StatusCode, took)
	}
}

// TestShutdownTimeoutEndsTheProcess: SIGTERM ends the process within
// --shutdown-timeout whatever is still running (a request whose client
// never finishes its body, under a long --request-timeout: before, the
// process waited for it for its whole 30 s graceful shutdown and more).
// The process also says which soft memory limit it applied.
func TestShutdownTimeoutEndsTheProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server process")
	}
	s := startHostileServer(t, "DOCSAPI_SHUTDOWN_TIMEOUT=2s", "DOCSAPI_REQUEST_TIMEOUT=10m", "DOCSAPI_MEMORY_LIMIT=300MiB")
	slowBody(t, s)
	time.Sleep(200 * time.Millisecond) // the request reached its handler
	start := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-done
		t.Fatalf("still running 10s after SIGTERM with --shutdown-timeout 2s:\n%s", s.out)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("exited %v after SIGTERM, want within the 2s shutdown timeout", took)
	}
	out := s.out.String() // the process has exited: no more writes
	if !strings.Contains(out, "memory-limit=300MiB (--memory-limit)") {
		t.Errorf("the soft memory limit is not reported as applied:\n%s", out)
	}
	if !strings.Contains(out, "shutdown timeout passed") && !strings.Contains(out, "were cut off") {
		t.Errorf("the cut-off requests are not reported:\n%s", out)
	}
}

func TestApplyMemoryLimit(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(before)
	for _, c := range []struct {
		flag string
		want int64
	}{
		{"512MiB", 512 << 20},
		{"1GiB", 1 << 30},
		{"800MB", 800e6},
		{"123456789", 123456789},
		{"off", math.MaxInt64},
	} {
		t.Run(c.flag, func(t *testing.T) {
			unsetenv(t, "GOMEMLIMIT")
			got, _, err := applyMemoryLimit(c.flag)
			if err != nil || got != c.want || debug.SetMemoryLimit(-1) != c.want {
				t.Fatalf("applyMemoryLimit(%q) = %d, %v; runtime limit %d; want %d", c.flag, got, err, debug.SetMemoryLimit(-1), c.want)
			}
		})
	}
	unsetenv(t, "GOMEMLIMIT")
	if got, source, err := applyMemoryLimit("auto"); err != nil || got <= 0 || got > autoMemoryLimit || !strings.HasPrefix(source, "auto") {
		t.Errorf("auto: %d %q %v", got, source, err)
	}
	for _, bad := range []string{"lots", "-1GiB", "1.5GiB"} {
		if _, _, err := applyMemoryLimit(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	// GOMEMLIMIT, when set, wins: the flag leaves the runtime's limit alone.
	t.Setenv("GOMEMLIMIT", "100MiB")
	debug.SetMemoryLimit(100 << 20)
	if got, source, _ := applyMemoryLimit("1GiB"); got != 100<<20 || source != "GOMEMLIMIT" {
		t.Errorf("with GOMEMLIMIT set: %d %q", got, source)
	}
}

// unsetenv removes k for the rest of t (restored after it).
func unsetenv(t *testing.T, k string) {
	t.Setenv(k, "")
	os.Unsetenv(k)
}
