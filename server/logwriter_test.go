package server

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the flusher and the test to share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func TestLogWriterFlushesPeriodicallyAndOnClose(t *testing.T) {
	var out syncBuffer
	l := NewLogWriter(&out, 20*time.Millisecond)
	l.Write([]byte("one\n"))
	if out.String() != "" {
		t.Fatalf("written before a flush: %q", out.String())
	}
	deadline := time.Now().Add(2 * time.Second)
	for out.String() != "one\n" {
		if time.Now().After(deadline) {
			t.Fatalf("not flushed periodically: %q", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	l2 := NewLogWriter(&out, time.Hour)
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() { defer wg.Done(); l2.Write([]byte(strings.Repeat("x", 3000) + "\n")) }()
	}
	wg.Wait()
	if err := l2.Close(); err != nil {
		t.Fatal(err)
	}
	l2.Write([]byte("after close\n")) // shutdown lines still arrive
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 52 || lines[51] != "after close" {
		t.Fatalf("got %d lines, last %q", len(lines), lines[len(lines)-1])
	}
	for _, line := range lines[1:51] {
		if line != strings.Repeat("x", 3000) {
			t.Fatalf("a line was split or interleaved: %d bytes", len(line))
		}
	}
	l.Close()
}
