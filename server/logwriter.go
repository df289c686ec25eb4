package server

import (
	"bufio"
	"io"
	"sync"
	"time"
)

// LogWriter buffers the log's lines and writes them out every interval (and
// whenever the buffer fills), so a request's log line costs no write
// system call of its own. Each Write is one whole line (slog writes a
// record in one call), so lines never interleave. Close flushes what is
// left: a clean stop loses no line; a crash loses at most interval's worth.
type LogWriter struct {
	mu     sync.Mutex
	buf    *bufio.Writer
	stop   chan struct{}
	done   chan struct{}
	closed bool
}

// NewLogWriter buffers writes to w, flushing every interval.
func NewLogWriter(w io.Writer, interval time.Duration) *LogWriter {
	l := &LogWriter{buf: bufio.NewWriterSize(w, 64<<10), stop: make(chan struct{}), done: make(chan struct{})}
	go l.flushEvery(interval)
	return l
}

func (l *LogWriter) flushEvery(interval time.Duration) {
	defer close(l.done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			l.Flush()
		case <-l.stop:
			return
		}
	}
}

// Write buffers p; after Close it writes through.
func (l *LogWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.buf.Write(p)
	if err == nil && l.closed {
		err = l.buf.Flush()
	}
	return n, err
}

// Flush writes the buffered lines out now.
func (l *LogWriter) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Flush()
}

// Close stops the periodic flush and flushes; later writes go straight
// through, so lines logged during shutdown are not lost either.
func (l *LogWriter) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	l.mu.Unlock()
	close(l.stop)
	<-l.done
	return l.Flush()
}
