package graph

import (
	"sync"
	"time"

	"docsapi/auth"
	"docsapi/delivery"
	"docsapi/importer"
	"docsapi/storage"
)

// Config is what resolvers need to know about the deployment.
type Config struct {
	PublicURL string // external base URL, without trailing slash
	Version   string
	Build     string
	// WebhookSecretGrace is how long a webhook's rotated-out secret keeps
	// signing beside the new one (0: DefaultWebhookSecretGrace).
	WebhookSecretGrace time.Duration
	// UploadMaxBytes is the largest file an upload URL takes (0:
	// DefaultUploadMaxBytes).
	UploadMaxBytes int64
	// RenderCacheBytes bounds each of the caches of rendered PDFs and
	// computed pages (0: DefaultRenderCacheBytes; negative: no caching).
	RenderCacheBytes int
	// Bounds of what integrations store (0: the Default* values):
	// a published script's bytes, an installation configuration's nesting
	// depth and its keys and array items, all levels together.
	IntegrationMaxScriptBytes int
	ConfigurationMaxDepth     int
	ConfigurationMaxKeys      int
	// SiteTokenTTL is the lifetime of the apiToken a published URL's
	// resolution hands out (0: DefaultSiteTokenTTL).
	SiteTokenTTL time.Duration
	// SharePasswordCost is bcrypt's work factor for new share link
	// passwords (0: DefaultSharePasswordCost). A check costs what the hash
	// it reads was made with. The test environment (apitest) lowers it:
	// under the race detector one hash takes about half a second.
	SharePasswordCost int
}

// Resolver is the root of every GraphQL resolver and the single place where
// business rules live; the REST layer calls the same methods.
type Resolver struct {
	Store  storage.Store
	Auth   *auth.Authenticator
	Config Config
	Now    func() time.Time
	Signer *Signer
	// Fetcher makes server-side requests on a user's behalf (imports).
	Fetcher importer.Fetcher

	samlCreds samlCredentials // the SAML service provider's key pair, loaded on first use
	// Wake signals the background worker of a queue that work was recorded
	// (nil when no worker runs, as in tests that run the queue themselves).
	Wake func(queue string)
	// Deliveries carries integration events to development tunnels (queued)
	// and renders (synchronously, through its Doer).
	Deliveries *delivery.Worker
	// Webhooks drains the webhook outbox (the server runs it; tests drain it).
	Webhooks *delivery.WebhookWorker
	// Live fans committed changes out to subscriptions (live.go; nil: none).
	Live *LiveFeed

	rendered    renderers // rendered PDFs and computed pages (renders)
	rendersOnce sync.Once

	sharePasswordsAccepted acceptedSharePasswords // right share link passwords, checked once

	pageTrees pageTreeCache // page models of recently read revisions (pagetree.go)
}
