package sso

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/crewjam/saml"
	"github.com/jonboulle/clockwork"
	dsig "github.com/russellhaering/goxmldsig"
)

// crewjam/saml reads the time from package variables: saml.TimeNow for
// request and assertion times, saml.Clock for the signing certificate's
// validity. Both are pointed once at libNow, and every call into the
// library goes through atClock, which makes libNow the provider's clock
// (the server's injectable clock) for that call. The lock serializes those
// calls (SAML logins are rare); outside them the library sees the real
// time.
var (
	clockMu sync.Mutex
	current atomic.Pointer[func() time.Time]
)

func libNow() time.Time {
	if f := current.Load(); f != nil {
		return (*f)()
	}
	return time.Now()
}

// libClock is goxmldsig's clock over libNow.
type libClock struct{ clockwork.Clock }

func (libClock) Now() time.Time                  { return libNow() }
func (libClock) Since(t time.Time) time.Duration { return libNow().Sub(t) }

func init() {
	saml.TimeNow = libNow
	saml.Clock = dsig.NewFakeClock(libClock{clockwork.NewRealClock()})
}

// atClock runs f with the library reading now (nil: the real time).
func atClock(now func() time.Time, f func() error) error {
	if now == nil {
		now = time.Now
	}
	clockMu.Lock()
	defer clockMu.Unlock()
	current.Store(&now)
	defer current.Store(nil)
	return f()
}
