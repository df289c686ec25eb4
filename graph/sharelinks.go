package graph

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/crypto/bcrypt"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/storage"
)

// shareLinkNameMax is the longest share link name.
const shareLinkNameMax = 50

// shareLinkModel: urls.published is the site's URL with the link's key, so
// it is set whether or not the site is published yet.
func (r *Resolver) shareLinkModel(org storage.Organization, site storage.Site, l storage.ShareLink) *model.ShareLink {
	return &model.ShareLink{Object: "share-link", ID: l.ID, CreatedAt: model.Time(l.CreatedAt), Name: l.Name, Active: l.Active,
		Urls: model.ShareLinkURLs{Location: r.Config.PublicURL + "/v1/orgs/" + org.ID + "/sites/" + site.ID + "/share-links/" + l.ID,
			Published: publishedURL(r.siteURL(org, site), &l.Key)},
		ExpiresAt: model.TimePtr(l.ExpiresAt), PasswordProtected: l.PasswordHash != ""}
}

// shareLinkChange checks a PATCH of a share link: at least one field;
// expiresAt and password set by a value and removed by null.
func (r *Resolver) shareLinkChange(in model.UpdateShareLinkInput) (storage.ShareLinkChange, error) {
	c := storage.ShareLinkChange{Name: in.Name, Active: in.Active, SetExpiresAt: in.ExpiresAt.IsSet(), SetPassword: in.Password.IsSet()}
	if c.Name == nil && c.Active == nil && !c.SetExpiresAt && !c.SetPassword {
		return c, apierr.Invalid("body", "needs at least one of active, name, expiresAt, password")
	}
	if err := checkLenPtr("name", in.Name, 0, shareLinkNameMax); err != nil {
		return c, err
	}
	var err error
	if c.ExpiresAt, err = futureExpiry(in.ExpiresAt.Value(), r.Now()); err != nil {
		return c, err
	}
	c.PasswordHash, err = r.shareLinkPasswordHash(in.Password.Value())
	return c, err
}

// sharedSpace reads a space through a share key: the key must be a live
// link of a published site holding the space (404 otherwise, whoever asks),
// unlocked by its password if it has one.
// Members read the space with their own role (at least READ), others read
// it; urls.published is its URL in that site, carrying the key.
func (r *Resolver) sharedSpace(ctx context.Context, spaceID, shareKey string) (*model.Space, error) {
	l, err := r.liveShareLink(ctx, shareKey)
	if err != nil {
		return nil, err
	}
	// Unlocked before the space is looked for: without the password a key
	// tells nothing about the site's spaces.
	if err := r.unlockShareLink(ctx, l); err != nil {
		return nil, err
	}
	sites, err := r.Store.SitesOfSpace(ctx, spaceID)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(sites, func(s storage.Site) bool { return s.ID == l.SiteID })
	if i < 0 {
		return nil, apierr.NotFound("space")
	}
	a, err := r.audienceOf(ctx, sites[i].OrganizationID, sites[i].ID, &shareKey, nil)
	if err != nil {
		return nil, err
	}
	sp, err := r.Store.Space(ctx, spaceID)
	if err != nil || sp.DeletedAt != nil {
		return nil, apierr.NotFound("space")
	}
	role := roleRank["read"]
	if _, s, err := r.spaceScope(ctx, spaceID, chainOnly, false); err == nil {
		role = max(role, s.Role)
	}
	m := r.spaceModel(sp, role)
	st, err := r.Store.SiteStructure(ctx, a.site.ID)
	if err != nil {
		return nil, notFoundAs(err, "space")
	}
	v := structureView{r: r, org: a.org, site: a.site, shareKey: &shareKey, role: func(storage.Space) int { return role }}
	m.Urls.Published = v.spaceURL(st, spaceID)
	return m, nil
}

// ShareLinkPasswordHeader carries the password of a protected share link,
// on REST and GraphQL alike, to every read that takes the link's key.
const ShareLinkPasswordHeader = "X-Share-Link-Password"

const (
	// Passwords are 8 to 72 bytes: bcrypt reads no further than 72.
	shareLinkPasswordMin, shareLinkPasswordMax = 8, 72
	// Wrong guesses per link, whichever replica they reach (the budget is
	// stored with the link: storage.TakeShareGuess): a burst of 5, then one
	// more every 12 s (5 a minute); the 429 says when the next one is
	// allowed. Changing the password starts a new budget.
	shareGuessBurst = 5
	shareGuessEvery = 12 * time.Second
	// shareGuessLinks bounds the accepted passwords remembered per process
	// (least recently used forgotten first).
	shareGuessLinks = 10_000
)

// DefaultSharePasswordCost is bcrypt's work factor for share link
// passwords (2^10 rounds, about 60 ms a check on the shared 2-vCPU
// machine); Config.SharePasswordCost sets another.
const DefaultSharePasswordCost = bcrypt.DefaultCost

// sharePassword is the share link password a request carries, and what
// checking it against each link gave, so that a request reading through one
// key several times pays one bcrypt comparison and counts one guess.
type sharePassword struct {
	given   string
	mu      sync.Mutex
	checked map[string]error // link id → outcome
}

type sharePasswordKey struct{}

// WithShareLinkPassword carries the ShareLinkPasswordHeader of a request to
// the resolvers ("" carries nothing).
func WithShareLinkPassword(ctx context.Context, password string) context.Context {
	if password == "" {
		return ctx
	}
	return context.WithValue(ctx, sharePasswordKey{}, &sharePassword{given: password, checked: map[string]error{}})
}

// acceptedSharePasswords remembers passwords bcrypt has accepted, so a
// reader who keeps sending the right one pays the slow compare once, not on
// every read (62 ms of CPU each: a right password would otherwise be a cheap
// way to load the server). Entries are HMACs under a per-process random key
// of the stored hash and the password: nothing reusable is kept, and a
// changed password (a new hash) never matches an old entry.
type acceptedSharePasswords struct {
	once    sync.Once
	key     []byte
	entries *lru.Cache[string, struct{}]
}

func (a *acceptedSharePasswords) mac(hash, given string) string {
	a.once.Do(func() {
		a.key = make([]byte, 32)
		_, _ = rand.Read(a.key)
		a.entries, _ = lru.New[string, struct{}](shareGuessLinks)
	})
	m := hmac.New(sha256.New, a.key)
	m.Write([]byte(hash))
	m.Write([]byte{0})
	m.Write([]byte(given))
	return string(m.Sum(nil))
}

func (a *acceptedSharePasswords) knows(hash, given string) bool {
	_, ok := a.entries.Get(a.mac(hash, given))
	return ok
}

func (a *acceptedSharePasswords) remember(hash, given string) {
	a.entries.Add(a.mac(hash, given), struct{}{})
}

// errUnknownShareKey is the one refusal of a key that opens nothing:
// unknown, deleted, deactivated, expired or of another site.
func errUnknownShareKey() error {
	return apierr.NotFound("share link (the key is unknown, deleted, deactivated or expired)")
}

// liveShareLink is the link of a key that still opens its site: active and,
// on the server's clock, not expired. Its password is not checked yet.
func (r *Resolver) liveShareLink(ctx context.Context, key string) (storage.ShareLink, error) {
	l, err := r.Store.ShareLinkByKey(ctx, key)
	if errors.Is(err, storage.ErrNotFound) || (err == nil && (!l.Active || l.ExpiresAt != nil && !r.Now().Before(*l.ExpiresAt))) {
		return l, errUnknownShareKey()
	}
	return l, err
}

// unlockShareLink checks the request's password against a protected link:
// none is a 401 asking for it, a wrong one a 401, and past the link's
// budget of wrong guesses a 429 with Retry-After (right ones included:
// the budget stops guessing, whoever guesses).
func (r *Resolver) unlockShareLink(ctx context.Context, l storage.ShareLink) error {
	if l.PasswordHash == "" {
		return nil
	}
	p, _ := ctx.Value(sharePasswordKey{}).(*sharePassword)
	if p == nil {
		return shareLinkRefusal("this share link needs a password: send it in the %s header", ShareLinkPasswordHeader)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err, done := p.checked[l.ID]; done {
		return err
	}
	err := r.checkSharePassword(ctx, l, p.given)
	p.checked[l.ID] = err
	return err
}

func (r *Resolver) checkSharePassword(ctx context.Context, l storage.ShareLink, given string) error {
	if r.sharePasswordsAccepted.knows(l.PasswordHash, given) {
		return nil
	}
	wait, err := r.Store.TakeShareGuess(ctx, l.ID, r.Now(), shareGuessEvery, shareGuessBurst)
	if errors.Is(err, storage.ErrNotFound) {
		return errUnknownShareKey() // deleted meanwhile
	}
	if err != nil {
		return err
	}
	if wait > 0 {
		e := apierr.New(http.StatusTooManyRequests, "too many wrong passwords for this share link: retry in %d s", retrySeconds(wait))
		e.RetryAfter = retrySeconds(wait)
		return e
	}
	if bcrypt.CompareHashAndPassword([]byte(l.PasswordHash), []byte(given)) == nil {
		// A right password is not a wrong guess.
		if err := r.Store.ReturnShareGuess(context.WithoutCancel(ctx), l.ID, shareGuessEvery); err != nil {
			return err
		}
		r.sharePasswordsAccepted.remember(l.PasswordHash, given)
		return nil
	}
	return shareLinkRefusal("wrong password for this share link (header %s)", ShareLinkPasswordHeader)
}

func retrySeconds(d time.Duration) int { return max(1, int(math.Ceil(d.Seconds()))) }

// shareLinkRefusal is a 401 whose challenge names the password header, not
// the bearer token (which was fine).
func shareLinkRefusal(format string, args ...any) error {
	e := apierr.New(http.StatusUnauthorized, format, args...)
	e.Challenge = `Share-Link-Password header="` + ShareLinkPasswordHeader + `"`
	return e
}

// shareLinkPasswordHash checks a new password and hashes it with bcrypt
// (nil: no password).
func (r *Resolver) shareLinkPasswordHash(password *string) (string, error) {
	if password == nil {
		return "", nil
	}
	p := *password
	if len(p) < shareLinkPasswordMin || len(p) > shareLinkPasswordMax {
		return "", apierr.Invalid("password", "must be %d to %d bytes long", shareLinkPasswordMin, shareLinkPasswordMax)
	}
	// It travels in an HTTP header: printable ASCII reaches the server the
	// same from every client (browsers send no UTF-8 in headers), and
	// servers trim the spaces around a header value.
	if strings.ContainsFunc(p, func(c rune) bool { return c < ' ' || c > '~' }) || strings.Trim(p, " ") != p {
		return "", apierr.Invalid("password", "must be printable ASCII (space to ~), not beginning or ending with a space: it travels in an HTTP header")
	}
	cost := r.Config.SharePasswordCost
	if cost == 0 {
		cost = DefaultSharePasswordCost
	}
	h, err := bcrypt.GenerateFromPassword([]byte(p), cost)
	return string(h), err
}
