package storage

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestPrepareWhileReadersWait: with every reader connection held by a read
// transaction, a first-time query being prepared on the pool must not keep
// those transactions from running their statements (which consult the
// statement cache) and ending: the prepare then gets a connection.
func TestPrepareWhileReadersWait(t *testing.T) {
	const readers = 2
	db, err := Open(testTarget(t), Options{Readers: readers})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	held := make(chan struct{}, readers)
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := db.ReadTx(ctx, func(tx queryer) error {
				held <- struct{}{}
				<-release
				var one int
				return tx.QueryRowContext(ctx, `SELECT 1`).Scan(&one)
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	for range readers {
		<-held
	}
	prepared := make(chan error, 1)
	go func() { prepared <- db.prepare(ctx, `SELECT 2 -- a query never prepared before`) }()
	time.Sleep(50 * time.Millisecond) // the prepare is waiting for a connection
	close(release)
	wg.Wait()
	if err := <-prepared; err != nil {
		t.Fatalf("prepare: %v (deadlocked until the timeout?)", err)
	}
}
