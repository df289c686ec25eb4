package storage

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// scopeOrg makes an organization with an admin (a distinct email each).
func scopeOrg(t *testing.T, db *DB, name string) Bootstrap {
	t.Helper()
	b, err := db.CreateOrganizationWithAdmin(context.Background(), name, name+"@example.com", name, "h-"+name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// errStale is the refusal of a guarded update whose precondition failed.
var errStale = errors.New("stale")

// TestScopedWritesKeepInvariants: many writes at once, to one organization
// and beside it to another (on PostgreSQL each organization's writes run
// under its own lock, side by side), keep every invariant the single
// writer kept: end positions distinct and in creation order per parent,
// the space class counts equal to the spaces, change-request numbers 1..n
// without a gap or a repeat and the space's counters equal to the rows,
// team counts, and an If-Match-style precondition that no two writes
// pass on the same version (no lost update). Both engines, two replicas.
func TestScopedWritesKeepInvariants(t *testing.T) {
	// Two handles on one database: two replicas (within one process the
	// writes of one organization also queue in Go; across processes only
	// the database's locks order them).
	url := testTarget(t)
	var dbs [2]*DB
	for i := range dbs {
		db, err := Open(url, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		dbs[i] = db
	}
	db := dbs[0]
	ctx := context.Background()
	orgs := []Bootstrap{scopeOrg(t, db, "orga"), scopeOrg(t, db, "orgb")}
	target := make([]Space, len(orgs))
	crs := make([]ChangeRequest, len(orgs))
	for i, o := range orgs {
		target[i] = Space{OrganizationID: o.Organization.ID, Title: "target", Visibility: "private", EditMode: "live"}
		if err := db.CreateSpace(ctx, &target[i]); err != nil {
			t.Fatal(err)
		}
		cr, err := db.CreateChangeRequest(ctx, "", target[i].ID, o.User.ID, "v0", nil)
		if err != nil {
			t.Fatal(err)
		}
		crs[i] = cr
	}

	const workers, rounds = 12, 6
	type guarded struct{ read, wrote string }
	var (
		mu      sync.Mutex
		passed  = make([][]guarded, len(orgs))
		created = make([][]string, len(orgs)) // space ids in the order their creates returned
		errs    []error
		wg      sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	subject := func(i int) (string, error) {
		var s string
		err := db.r().QueryRowContext(ctx, `SELECT subject FROM change_requests WHERE id = ?`, crs[i].ID).Scan(&s)
		return s, err
	}
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db := dbs[w%len(dbs)]
			for r := range rounds {
				i := (w + r) % len(orgs)
				o := orgs[i]
				sp := Space{OrganizationID: o.Organization.ID, Title: fmt.Sprintf("s%d-%d", w, r), Visibility: "private", EditMode: "live"}
				if err := db.CreateSpace(ctx, &sp); err != nil {
					fail(err)
					return
				}
				vis := []string{"private", "public", "unlisted"}[(w+r)%3]
				if err := db.UpdateSpace(ctx, sp.ID, SpacePatch{Visibility: &vis}); err != nil {
					fail(err)
					return
				}
				if _, err := db.CreateChangeRequest(ctx, "", target[i].ID, o.User.ID, "cr", nil); err != nil {
					fail(err)
					return
				}
				if _, err := db.NewTeam(ctx, o.Organization.ID, "t", nil); err != nil {
					fail(err)
					return
				}
				// If-Match: read the version, then write only if it is
				// still the one read, checked under the write lock.
				read, err := subject(i)
				if err != nil {
					fail(err)
					return
				}
				wrote := fmt.Sprintf("v%d-%d", w, r)
				gctx := WithPrecondition(ctx, func(ctx context.Context) error {
					now, err := subject(i)
					if err == nil && now != read {
						err = errStale
					}
					return err
				})
				err = db.UpdateChangeRequest(gctx, target[i].ID, crs[i].ID, &wrote, nil)
				mu.Lock()
				if err == nil {
					passed[i] = append(passed[i], guarded{read, wrote})
				}
				created[i] = append(created[i], sp.ID)
				mu.Unlock()
				if err != nil && !errors.Is(err, errStale) {
					fail(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatal(errors.Join(errs...))
	}

	for i, o := range orgs {
		org := o.Organization.ID
		// Positions: one space per position (each create took the end
		// under its organization's lock).
		rows, err := db.r().QueryContext(ctx, `SELECT id, position FROM spaces WHERE organization_id = ? AND parent_id IS NULL ORDER BY position, id`, org)
		var ids, positions []string
		if err := eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
			var id, pos string
			err := sc.Scan(&id, &pos)
			ids, positions = append(ids, id), append(positions, pos)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if want := 1 + len(created[i]); len(ids) != want {
			t.Fatalf("org %d: %d spaces, want %d", i, len(ids), want)
		}
		for k := 1; k < len(positions); k++ {
			if positions[k] == positions[k-1] {
				t.Fatalf("org %d: two spaces at position %q", i, positions[k])
			}
		}
		// Class counts equal the spaces, class by class.
		var bad int
		if err := db.r().QueryRowContext(ctx, `SELECT COUNT(*) FROM (
 SELECT COALESCE(parent_id, '') p, visibility v, COALESCE(default_level, '') l, COUNT(*) n FROM spaces
  WHERE organization_id = ? AND deleted_at IS NULL GROUP BY COALESCE(parent_id, ''), visibility, COALESCE(default_level, '')) s
 FULL OUTER JOIN (SELECT parent_id p, visibility v, default_level l, live n FROM space_class_counts WHERE organization_id = ? AND live <> 0) c
 ON s.p = c.p AND s.v = c.v AND s.l = c.l WHERE s.n IS NULL OR c.n IS NULL OR s.n <> c.n`, org, org).Scan(&bad); err != nil {
			t.Fatal(err)
		}
		if bad != 0 {
			t.Fatalf("org %d: %d space classes whose count differs from the spaces", i, bad)
		}
		// Change-request numbers: 1..n, and the space's counters.
		var n, distinct, maxNumber, counted, drafts int
		if err := db.r().QueryRowContext(ctx, `SELECT COUNT(*), COUNT(DISTINCT number), MAX(number) FROM change_requests WHERE space_id = ?`, target[i].ID).Scan(&n, &distinct, &maxNumber); err != nil {
			t.Fatal(err)
		}
		if want := 1 + len(created[i]); n != want || distinct != n || maxNumber != n {
			t.Fatalf("org %d: %d change requests, %d distinct numbers, highest %d; want %d, numbered 1..%d", i, n, distinct, maxNumber, want, want)
		}
		if err := db.r().QueryRowContext(ctx, `SELECT change_requests, change_requests_draft FROM spaces WHERE id = ?`, target[i].ID).Scan(&counted, &drafts); err != nil {
			t.Fatal(err)
		}
		if counted != n || drafts != n {
			t.Fatalf("org %d: the space counts %d change requests (%d drafts), the rows %d", i, counted, drafts, n)
		}
		var teams int
		if err := db.r().QueryRowContext(ctx, `SELECT COUNT(*) FROM teams WHERE organization_id = ?`, org).Scan(&teams); err != nil {
			t.Fatal(err)
		}
		if teams != len(created[i]) {
			t.Fatalf("org %d: %d teams, want %d", i, teams, len(created[i]))
		}
		// If-Match: the guarded writes that passed form one chain from v0,
		// each having read what the one before wrote; the last is stored.
		byRead := map[string]string{}
		for _, g := range passed[i] {
			if prev, twice := byRead[g.read]; twice {
				t.Fatalf("org %d: two guarded writes passed on version %q (%q and %q): a lost update", i, g.read, prev, g.wrote)
			}
			byRead[g.read] = g.wrote
		}
		v, chain := "v0", 0
		for byRead[v] != "" {
			v, chain = byRead[v], chain+1
		}
		if chain != len(passed[i]) || len(passed[i]) == 0 {
			t.Fatalf("org %d: %d guarded writes passed, the chain from v0 has %d", i, len(passed[i]), chain)
		}
		if now, err := subject(i); err != nil || now != v {
			t.Fatalf("org %d: stored %q (%v), the chain ends at %q", i, now, err, v)
		}
	}
	contentInvariants(t, dbs, orgs)
}

// holdOrg starts a write confined to orgID on db that holds its locks until
// release is called; it returns once the write is inside its transaction.
func holdOrg(t *testing.T, db *DB, orgID string) (release func()) {
	t.Helper()
	inside, done := make(chan struct{}), make(chan error, 1)
	stop := make(chan struct{})
	go func() {
		done <- db.writeOrg(context.Background(), orgID, func(tx *Tx) error {
			close(inside)
			<-stop
			return nil
		})
	}()
	select {
	case <-inside:
	case err := <-done:
		t.Fatalf("the holding write ended before it held: %v", err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			close(stop)
			if err := <-done; err != nil {
				t.Errorf("the holding write: %v", err)
			}
		})
	}
	t.Cleanup(release)
	return release
}

// waitingOn blocks until some session of db's database waits for an
// advisory lock of the key space objsubid (1: the global lock, 2: an
// organization's), read from pg_locks, not from a clock.
func waitingOn(t *testing.T, db *DB, objsubid int, while <-chan error) {
	t.Helper()
	for {
		var n int
		if err := db.r().QueryRowContext(context.Background(), `SELECT COUNT(*) FROM pg_locks
 WHERE locktype = 'advisory' AND NOT granted AND objsubid = ? AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`, objsubid).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		select {
		case err := <-while:
			t.Fatalf("the write finished instead of waiting for the lock: %v", err)
		default:
		}
		time.Sleep(time.Millisecond)
	}
}

// TestPostgresOrganizationsDoNotWait: while a write of organization A holds
// A's lock (in one process), a write of organization B completes, in the
// same process and in another replica on the same database; a write of A
// (from the other replica) and an unscoped write wait, seen in pg_locks,
// and complete once A's write ends; a job lease is claimed by one replica
// and refused to the other without waiting. No timing is measured: a write of B
// that waited for A would never complete before A is released.
func TestPostgresOrganizationsDoNotWait(t *testing.T) {
	postgresServer(t)
	target := testTarget(t)
	one, err := Open(target, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	two, err := Open(target, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer two.Close()
	ctx := context.Background()
	a, b := scopeOrg(t, one, "a"), scopeOrg(t, one, "b")

	release := holdOrg(t, one, a.Organization.ID)
	// A bound instead of a hang should B's writes wait for A (a failure,
	// whatever the machine's speed: A is held until they return).
	bctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for _, db := range []*DB{one, two} {
		if _, err := db.NewTeam(bctx, b.Organization.ID, "while A is held", nil); err != nil {
			t.Fatalf("a write of B while A is held: %v", err)
		}
		sp := Space{OrganizationID: b.Organization.ID, Title: "while A is held", Visibility: "private", EditMode: "live"}
		if err := db.CreateSpace(bctx, &sp); err != nil {
			t.Fatalf("a write of B while A is held: %v", err)
		}
	}
	// A periodic job's lease (the audit mover's sweep claims it every
	// second on every replica) no longer takes the global lock exclusive,
	// which waited for every write in flight and stopped all the others
	// meanwhile: one replica gets it, the other is refused, neither waits.
	if held, err := one.TakeJobLease(bctx, "audit-move", time.Minute); err != nil || !held {
		t.Fatalf("a job lease while A is held: held %v, %v", held, err)
	}
	if held, err := two.TakeJobLease(bctx, "audit-move", time.Minute); err != nil || held {
		t.Fatalf("the other replica's claim while A is held: held %v, %v (want refused)", held, err)
	}

	sameOrg := make(chan error, 1)
	go func() {
		_, err := two.NewTeam(ctx, a.Organization.ID, "after A", nil)
		sameOrg <- err
	}()
	waitingOn(t, one, 2, sameOrg)
	unscoped := make(chan error, 1)
	go func() {
		unscoped <- two.Write(ctx, func(tx *Tx) error { return nil })
	}()
	waitingOn(t, one, 1, unscoped)
	release()
	for _, c := range []chan error{sameOrg, unscoped} {
		if err := <-c; err != nil {
			t.Fatal(err)
		}
	}
	var teams []string
	rows, err := one.r().QueryContext(ctx, `SELECT organization_id FROM teams ORDER BY organization_id`)
	if err := eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
		var o string
		err := sc.Scan(&o)
		teams = append(teams, o)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{a.Organization.ID, b.Organization.ID, b.Organization.ID}
	slices.Sort(want)
	if !slices.Equal(teams, want) {
		t.Fatalf("teams by organization %v, want %v", teams, want)
	}
}

// TestAuditMoveBesideScopedWrites: the audit mover runs again and again
// while organizations' writes add entries (on PostgreSQL it no longer
// holds the whole write lock, only a scope of its own); at the end every
// entry is in exactly one of the two tables, none lost, none twice.
func TestAuditMoveBesideScopedWrites(t *testing.T) {
	db, err := Open(testTarget(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	orgs := []Bootstrap{scopeOrg(t, db, "ma"), scopeOrg(t, db, "mb"), scopeOrg(t, db, "mc")}
	const writers, each = 6, 15
	stop := make(chan struct{})
	moved := make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				moved <- nil
				return
			default:
			}
			if _, err := db.MoveRecentAudit(ctx, 7); err != nil {
				moved <- err
				return
			}
		}
	}()
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				o := orgs[(w+i)%len(orgs)].Organization.ID
				c := RecordingChange(ctx, Change{OrganizationID: o, Action: "team.created", TargetType: "team"})
				if _, err := db.NewTeam(c, o, "t", nil); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	if err := <-moved; err != nil {
		t.Fatal(err)
	}
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var entries, distinct, teams int
	if err := db.r().QueryRowContext(ctx, `SELECT COUNT(*), COUNT(DISTINCT target_id) FROM (
 SELECT target_id FROM audit_log WHERE action = 'team.created' UNION ALL SELECT target_id FROM audit_recent WHERE action = 'team.created') a`).Scan(&entries, &distinct); err != nil {
		t.Fatal(err)
	}
	if err := db.r().QueryRowContext(ctx, `SELECT COUNT(*) FROM teams`).Scan(&teams); err != nil {
		t.Fatal(err)
	}
	if teams != writers*each || entries != teams || distinct != teams {
		t.Fatalf("%d teams, %d audit entries for them (%d distinct), want %d each", teams, entries, distinct, writers*each)
	}
}

// contentInvariants is the second half of TestScopedWritesKeepInvariants:
// the content and membership writes scoped since (page edits on the main
// content and in change requests, merges, comments and replies,
// collections, team memberships), many at once on two replicas and two
// organizations, keep what the single writer kept: every page edit and
// every merge lands (no lost revision), page and collection positions
// distinct, comment, reply and team counts equal to the rows, and an
// If-Match precondition on a collection that no two writes pass on the
// same version.
func contentInvariants(t *testing.T, dbs [2]*DB, orgs []Bootstrap) {
	db := dbs[0]
	ctx := context.Background()
	spaces := make([]Space, len(orgs))
	threads := make([]Comment, len(orgs))
	guarded := make([]Collection, len(orgs))
	for i, o := range orgs {
		spaces[i] = Space{OrganizationID: o.Organization.ID, Title: "content", Visibility: "private", EditMode: "live"}
		if err := db.CreateSpace(ctx, &spaces[i]); err != nil {
			t.Fatal(err)
		}
		threads[i] = Comment{Scope: CommentScope{SpaceID: spaces[i].ID}, PostedBy: o.User.ID, Body: "thread"}
		if err := db.PostComment(ctx, &threads[i]); err != nil {
			t.Fatal(err)
		}
		guarded[i] = Collection{OrganizationID: o.Organization.ID, Title: "v0"}
		if err := db.CreateCollection(ctx, &guarded[i]); err != nil {
			t.Fatal(err)
		}
	}
	// A merge adds to the main content the top-level pages the change
	// request added (all it does here); a page of the main content written
	// meanwhile stays.
	addedPages := func(base, main, branch *Tree) (*Tree, error) {
		had := map[string]bool{}
		for _, p := range append(slices.Clone(base.Pages), main.Pages...) {
			had[p.ID] = true
		}
		for _, p := range branch.Pages {
			if !had[p.ID] {
				main.Pages = append(main.Pages, p)
			}
		}
		return main, nil
	}
	page := func(id string) *TreePage {
		p := &TreePage{ContentPage: ContentPage{ID: id, Type: "document", Title: id, Slug: id}}
		p.SetBody("body of " + id)
		return p
	}
	title := func(i int) (string, error) {
		var s string
		err := db.r().QueryRowContext(ctx, `SELECT title FROM collections WHERE id = ?`, guarded[i].ID).Scan(&s)
		return s, err
	}

	const workers, rounds = 8, 4
	type pass struct{ read, wrote string }
	var (
		mu      sync.Mutex
		passed  = make([][]pass, len(orgs))
		pages   = make([][]string, len(orgs))
		colls   = make([]int, len(orgs))
		teams   = make([]int, len(orgs))
		removed = make([]int, len(orgs))
		errs    []error
		wg      sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db := dbs[w%len(dbs)]
			for r := range rounds {
				i := (w + r) % len(orgs)
				o, sp := orgs[i], spaces[i].ID
				onMain, inCR := fmt.Sprintf("main-%d-%d", w, r), fmt.Sprintf("cr-%d-%d", w, r)
				if _, err := db.CreateRevision(ctx, RevisionChange{SpaceID: sp, Activate: true, Analyzer: modelAnalyzer{},
					Pages: func(pt PageTree) error { return pt.Insert(page(onMain), "", nil) }}); err != nil {
					fail(fmt.Errorf("edit of the main content: %w", err))
					return
				}
				cr, err := db.CreateChangeRequest(ctx, "", sp, o.User.ID, "cr", nil)
				if err == nil {
					_, err = db.CreateRevision(ctx, RevisionChange{SpaceID: sp, ChangeRequest: cr.ID, Analyzer: modelAnalyzer{},
						Pages: func(pt PageTree) error { return pt.Insert(page(inCR), "", nil) }})
				}
				if err == nil {
					_, err = db.MergeChangeRequest(ctx, MergeChange{SpaceID: sp, ChangeRequest: cr.ID, Analyzer: modelAnalyzer{}, Merge: addedPages})
				}
				if err != nil {
					fail(fmt.Errorf("change request: %w", err))
					return
				}
				c := Collection{OrganizationID: o.Organization.ID, Title: "c"}
				if err := db.CreateCollection(ctx, &c); err != nil {
					fail(err)
					return
				}
				top := Comment{Scope: CommentScope{SpaceID: sp}, PostedBy: o.User.ID, Body: "top"}
				reply := Comment{Scope: CommentScope{SpaceID: sp}, ParentID: threads[i].ID, PostedBy: o.User.ID, Body: "reply"}
				for _, c := range []*Comment{&top, &reply} {
					if err := db.PostComment(ctx, c); err != nil {
						fail(err)
						return
					}
				}
				// Every other round resolves the comment just posted.
				if r%2 == 0 {
					yes := true
					if err := db.UpdateComment(ctx, top.Scope, "", top.ID, CommentUpdate{UserID: o.User.ID, Resolved: &yes}); err != nil {
						fail(err)
						return
					}
				}
				team, err := db.NewTeam(ctx, o.Organization.ID, "t", []string{o.User.ID})
				if err != nil {
					fail(err)
					return
				}
				drop := r%2 == 1
				if drop {
					if _, err := db.RemoveTeamMember(ctx, team.ID, o.User.ID); err != nil {
						fail(err)
						return
					}
				}
				read, err := title(i)
				if err != nil {
					fail(err)
					return
				}
				wrote := fmt.Sprintf("v%d-%d", w, r)
				gctx := WithPrecondition(ctx, func(ctx context.Context) error {
					now, err := title(i)
					if err == nil && now != read {
						err = errStale
					}
					return err
				})
				err = db.UpdateCollection(gctx, guarded[i].ID, CollectionPatch{Title: &wrote})
				if err != nil && !errors.Is(err, errStale) {
					fail(err)
					return
				}
				mu.Lock()
				if err == nil {
					passed[i] = append(passed[i], pass{read, wrote})
				}
				pages[i] = append(pages[i], onMain, inCR)
				colls[i]++
				teams[i]++
				if drop {
					removed[i]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatal(errors.Join(errs...))
	}

	one := func(q string, args ...any) int {
		t.Helper()
		var n int
		if err := db.r().QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for i, o := range orgs {
		org := o.Organization.ID
		// Every edit and every merge is in the main content: none lost.
		rev, err := db.spaceHeadRevision(spaces[i].ID)
		if err != nil {
			t.Fatal(err)
		}
		tree, err := db.RevisionTree(ctx, rev)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range tree.Pages {
			got = append(got, p.ID)
		}
		want := slices.Clone(pages[i])
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("org %d: main content has pages %v, want %v", i, got, want)
		}
		if n := one(`SELECT COUNT(*) FROM change_requests WHERE space_id = ? AND status <> 'merged'`, spaces[i].ID); n != 0 {
			t.Fatalf("org %d: %d change requests not merged", i, n)
		}
		// Top-level positions: one item per position, spaces and
		// collections together; the collections all there.
		if n := one(`SELECT COUNT(*) FROM collections WHERE organization_id = ? AND parent_id IS NULL`, org); n != 1+colls[i] {
			t.Fatalf("org %d: %d collections, want %d", i, n, 1+colls[i])
		}
		if n := one(`SELECT COUNT(*) FROM (SELECT position FROM (
 SELECT position FROM spaces WHERE organization_id = ? AND parent_id IS NULL AND deleted_at IS NULL
 UNION ALL SELECT position FROM collections WHERE organization_id = ? AND parent_id IS NULL) a GROUP BY position HAVING COUNT(*) > 1) d`, org, org); n != 0 {
			t.Fatalf("org %d: %d top-level positions held twice", i, n)
		}
		// Comments: the space's open count and the thread's reply count
		// equal the rows.
		open := one(`SELECT COUNT(*) FROM comments WHERE space_id = ? AND change_request_id = '' AND parent_id = '' AND status = 'open'`, spaces[i].ID)
		if counted := one(`SELECT comments FROM spaces WHERE id = ?`, spaces[i].ID); counted != open {
			t.Fatalf("org %d: the space counts %d open comments, the rows %d", i, counted, open)
		}
		replies := one(`SELECT COUNT(*) FROM comments WHERE parent_id = ?`, threads[i].ID)
		if counted := one(`SELECT replies FROM comments WHERE id = ?`, threads[i].ID); counted != replies || replies != colls[i] {
			t.Fatalf("org %d: the thread counts %d replies, the rows %d, posted %d", i, counted, replies, colls[i])
		}
		// Teams: the admin's team count equals their memberships.
		memberships := one(`SELECT COUNT(*) FROM team_members WHERE organization_id = ? AND user_id = ?`, org, o.User.ID)
		if counted := one(`SELECT team_count FROM members WHERE organization_id = ? AND user_id = ?`, org, o.User.ID); counted != memberships || memberships != teams[i]-removed[i] {
			t.Fatalf("org %d: the admin's team count is %d, memberships %d, want %d", i, counted, memberships, teams[i]-removed[i])
		}
		// If-Match on the collection: one chain from v0, its end stored.
		byRead := map[string]string{}
		for _, g := range passed[i] {
			if prev, twice := byRead[g.read]; twice {
				t.Fatalf("org %d: two guarded collection writes passed on %q (%q and %q): a lost update", i, g.read, prev, g.wrote)
			}
			byRead[g.read] = g.wrote
		}
		v, chain := "v0", 0
		for byRead[v] != "" {
			v, chain = byRead[v], chain+1
		}
		if chain != len(passed[i]) || len(passed[i]) == 0 {
			t.Fatalf("org %d: %d guarded collection writes passed, the chain from v0 has %d", i, len(passed[i]), chain)
		}
		if now, err := title(i); err != nil || now != v {
			t.Fatalf("org %d: stored title %q (%v), the chain ends at %q", i, now, err, v)
		}
	}
}
