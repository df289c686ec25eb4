package graph

import (
	"context"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"docsapi/storage"
)

// A right password is compared with bcrypt once; later checks of the same
// password against the same stored hash are answered from memory, and
// neither another password nor a new hash (the password changed) is.
func TestSharePasswordCheckedOnce(t *testing.T) {
	r := &Resolver{Now: time.Now, Store: unlimitedGuesses{}}
	ctx := context.Background()
	hash, err := bcrypt.GenerateFromPassword([]byte("right-password"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	l := storage.ShareLink{ID: "link", PasswordHash: string(hash)}
	if r.sharePasswordsAccepted.knows(l.PasswordHash, "right-password") {
		t.Fatal("known before any check")
	}
	if err := r.checkSharePassword(ctx, l, "wrong-password"); err == nil {
		t.Fatal("wrong password accepted")
	}
	if r.sharePasswordsAccepted.knows(l.PasswordHash, "wrong-password") {
		t.Fatal("a wrong password was remembered")
	}
	if err := r.checkSharePassword(ctx, l, "right-password"); err != nil {
		t.Fatalf("right password: %v", err)
	}
	if !r.sharePasswordsAccepted.knows(l.PasswordHash, "right-password") {
		t.Fatal("a right password was not remembered")
	}
	// Remembered: answered without bcrypt (a hash bcrypt cannot read would fail it).
	r.sharePasswordsAccepted.remember("not-a-bcrypt-hash", "pw")
	if err := r.checkSharePassword(ctx, storage.ShareLink{ID: "other", PasswordHash: "not-a-bcrypt-hash"}, "pw"); err != nil {
		t.Fatalf("remembered password compared again: %v", err)
	}
	// A new hash for the link: the old entry does not match it.
	newHash, _ := bcrypt.GenerateFromPassword([]byte("new-password"), bcrypt.MinCost)
	if r.sharePasswordsAccepted.knows(string(newHash), "right-password") {
		t.Fatal("an old password matched a new hash")
	}
	if err := r.checkSharePassword(ctx, storage.ShareLink{ID: "link", PasswordHash: string(newHash)}, "right-password"); err == nil {
		t.Fatal("old password accepted after a change")
	}
}

// unlimitedGuesses is a store whose share links have guesses to spare (the
// budget itself is storage's, tested there and through the API).
type unlimitedGuesses struct{ storage.Store }

func (unlimitedGuesses) TakeShareGuess(context.Context, string, time.Time, time.Duration, int) (time.Duration, error) {
	return 0, nil
}

func (unlimitedGuesses) ReturnShareGuess(context.Context, string, time.Duration) error { return nil }
