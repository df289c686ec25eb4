package storage_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"docsapi/storage"
	"docsapi/storage/storagetest"
)

// fakeClock is a storage clock tests move forward instead of sleeping.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// twoReplicas opens one database file twice, as two processes would, both
// on clock.
func twoReplicas(t *testing.T, clock *fakeClock) (a, b *storage.DB) {
	t.Helper()
	return twoReplicasOn(t, filepath.Join(t.TempDir(), "replicas.db"), clock)
}

// twoReplicasOn is twoReplicas on target.
func twoReplicasOn(t *testing.T, target string, clock *fakeClock) (a, b *storage.DB) {
	t.Helper()
	open := func() *storage.DB {
		db, err := storage.Open(target, storage.Options{Clock: clock.Now})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	a = open()
	b = open()
	if a.Process() == b.Process() {
		t.Fatal("two handles share a process id")
	}
	return a, b
}

func TestOpenAPIJobLeaseTakeover(t *testing.T) {
	ctx := context.Background()
	clock := &fakeClock{t: time.Now()}
	a, b := twoReplicas(t, clock)
	org, err := a.CreateOrganizationWithAdmin(ctx, "Acme", "admin@acme.test", "Admin", "hash-lease")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.CreateOpenAPISpec(ctx, org.Organization.ID, "pets", storage.OpenAPISource{Text: "openapi: 3.0.0"}); err != nil {
		t.Fatal(err)
	}
	jobA, err := a.ClaimOpenAPIJob(ctx)
	if err != nil || jobA == nil {
		t.Fatalf("A claims: %v %v", jobA, err)
	}
	// While A's lease holds, B finds nothing to run, and B's start does not
	// requeue A's run.
	if j, err := b.ClaimOpenAPIJob(ctx); err != nil || j != nil {
		t.Fatalf("B claimed a leased run: %v %v", j, err)
	}
	if n, err := b.RequeueInterruptedOpenAPIJobs(ctx); err != nil || n != 0 {
		t.Fatalf("B requeued a live replica's run: %d %v", n, err)
	}
	// A renews; the renewal moves the lease on.
	clock.Add(storage.JobLease - time.Second)
	if held, err := a.RenewOpenAPIJob(ctx, jobA); err != nil || !held {
		t.Fatalf("A renews: %v %v", held, err)
	}
	clock.Add(storage.JobLease - time.Second)
	if j, err := b.ClaimOpenAPIJob(ctx); err != nil || j != nil {
		t.Fatalf("B claimed a renewed run: %v %v", j, err)
	}
	// A dies (stops renewing): once the lease has run out, B takes the run.
	clock.Add(2 * time.Second)
	jobB, err := b.ClaimOpenAPIJob(ctx)
	if err != nil || jobB == nil || jobB.SpecID != jobA.SpecID {
		t.Fatalf("B takes over: %v %v", jobB, err)
	}
	// A comes back late: its renewal, release and outcome are refused.
	if held, err := a.RenewOpenAPIJob(ctx, jobA); err != nil || held {
		t.Fatalf("A renews a lost lease: %v %v", held, err)
	}
	if err := a.ReleaseOpenAPIJob(ctx, jobA); err != nil {
		t.Fatal(err)
	}
	fin, err := a.FinishOpenAPIJob(ctx, jobA, storage.OpenAPIOutcome{ErrorCode: "PARSE_ERROR", ErrorMessage: "late"})
	if err != nil || fin.Applied {
		t.Fatalf("A's late outcome: %+v %v", fin, err)
	}
	fin, err = b.FinishOpenAPIJob(ctx, jobB, storage.OpenAPIOutcome{ErrorCode: "PARSE_ERROR", ErrorMessage: "from B"})
	if err != nil || !fin.Applied {
		t.Fatalf("B's outcome: %+v %v", fin, err)
	}
	spec, err := a.OpenAPISpec(ctx, org.Organization.ID, "pets")
	if err != nil || spec.State != "complete" || spec.LastErrorMessage == nil || *spec.LastErrorMessage != "from B" {
		t.Fatalf("spec after the takeover: %+v %v", spec, err)
	}
}

func TestTranslationJobLeaseTakeover(t *testing.T) {
	ctx := context.Background()
	clock := &fakeClock{t: time.Now()}
	a, b := twoReplicas(t, clock)
	org, err := a.CreateOrganizationWithAdmin(ctx, "Acme", "admin@acme.test", "Admin", "hash-lease")
	if err != nil {
		t.Fatal(err)
	}
	tr := &storage.Translation{OrganizationID: org.Organization.ID, SourceSpace: "nowhere", SourceLanguage: "en", Language: "fr"}
	if err := a.CreateTranslation(ctx, tr); err != nil {
		t.Fatal(err)
	}
	if j, err := a.ClaimTranslationJob(ctx); err != nil || j == nil {
		t.Fatalf("A claims: %v %v", j, err)
	}
	if j, err := b.ClaimTranslationJob(ctx); err != nil || j != nil {
		t.Fatalf("B claimed a leased run: %v %v", j, err)
	}
	clock.Add(storage.JobLease + time.Second)
	if j, err := b.ClaimTranslationJob(ctx); err != nil || j == nil || j.ID != tr.ID {
		t.Fatalf("B takes over: %v %v", j, err)
	}
	if err := a.FailTranslationJob(ctx, tr.ID, "LATE", "from A"); err != nil {
		t.Fatal(err)
	}
	if got, err := a.Translation(ctx, org.Organization.ID, tr.ID); err != nil || got.Status != "running" {
		t.Fatalf("A's late outcome was recorded: %+v %v", got, err)
	}
	if err := b.FailTranslationJob(ctx, tr.ID, "SOURCE_UNAVAILABLE", "from B"); err != nil {
		t.Fatal(err)
	}
	if got, err := a.Translation(ctx, org.Organization.ID, tr.ID); err != nil || got.Status != "failed" {
		t.Fatalf("B's outcome: %+v %v", got, err)
	}
}

func TestSweepLeaseOneProcessAtATime(t *testing.T) {
	ctx := context.Background()
	clock := &fakeClock{t: time.Now()}
	a, b := twoReplicas(t, clock)
	take := func(db *storage.DB) bool {
		held, err := db.TakeJobLease(ctx, "trash-purge", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		return held
	}
	if !take(a) || take(b) {
		t.Fatal("the first taker must hold the sweep alone")
	}
	clock.Add(50 * time.Second)
	if !take(a) || take(b) { // A renews
		t.Fatal("the holder renews; the other waits")
	}
	clock.Add(61 * time.Second) // A died
	if !take(b) || take(a) {
		t.Fatal("once the lease ran out the other process takes the sweep")
	}
}

// TestJobLeaseOneHolderAtOnce: two replicas asking for one lease at the
// same moment, several times each, never both hold it: every answer that
// says "held" comes from one process (the claim is one atomic upsert, no
// longer a read and a write under the global lock). Both engines.
func TestJobLeaseOneHolderAtOnce(t *testing.T) {
	ctx := context.Background()
	clock := &fakeClock{t: time.Now()}
	a, b := twoReplicasOn(t, storagetest.Target(t), clock)
	for round := range 2 {
		name := "race-" + string(rune('a'+round))
		var mu sync.Mutex
		holders := map[string]int{}
		var wg sync.WaitGroup
		for i := range 8 {
			db := a
			if i%2 == 1 {
				db = b
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				held, err := db.TakeJobLease(ctx, name, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				if held {
					mu.Lock()
					holders[db.Process()]++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if len(holders) != 1 {
			t.Fatalf("round %d: lease held by %d processes at once: %v", round, len(holders), holders)
		}
	}
}
