package storage

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// keepLease ends the work's context when the lease is lost or cannot be
// renewed for a whole lease, and keeps it while renewals succeed.
func TestKeepLeaseEndsWorkWhenLost(t *testing.T) {
	var calls atomic.Int32
	ctx, stop := keepLease(context.Background(), time.Millisecond, func(context.Context) (bool, error) {
		return calls.Add(1) < 5, nil // the fifth renewal finds the lease taken over
	})
	defer stop()
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the work went on after its lease was lost")
	}
	if calls.Load() != 5 {
		t.Fatalf("%d renewals", calls.Load())
	}

	ctx, stop = keepLease(context.Background(), time.Millisecond, func(context.Context) (bool, error) {
		return false, errors.New("database unreachable")
	})
	defer stop()
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the work went on without renewing its lease")
	}

	ctx, stop = keepLease(context.Background(), time.Millisecond, func(context.Context) (bool, error) { return true, nil })
	time.Sleep(20 * time.Millisecond)
	if ctx.Err() != nil {
		t.Fatal("a renewed lease ended the work")
	}
	stop()
	if ctx.Err() == nil {
		t.Fatal("stop did not end the work")
	}
}
