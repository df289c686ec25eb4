package model

// Webhook is an organization's webhook endpoint (a docsapi extension:
// /v1/orgs/{organizationId}/webhooks). Secret is set only in the answers
// that create the webhook or rotate its secret.
type Webhook struct {
	Object      string   `json:"object"`
	ID          string   `json:"id"`
	URL         string   `json:"url"`
	Description string   `json:"description"`
	Events      []string `json:"events"`
	Active      bool     `json:"active"`
	CreatedAt   string   `json:"createdAt"`
	UpdatedAt   string   `json:"updatedAt"`
	// Why and when deliveries disabled the endpoint (null: they did not).
	DisabledReason *string `json:"disabledReason"`
	DisabledAt     *string `json:"disabledAt"`
	// Until when the secret before the last rotation still signs.
	PreviousSecretExpiresAt *string     `json:"previousSecretExpiresAt"`
	Secret                  *string     `json:"secret,omitempty"`
	Urls                    WebhookURLs `json:"urls"`
}

type WebhookURLs struct {
	Location string `json:"location"`
}

// APILocation is urls.location (the Location of the creation).
func (w *Webhook) APILocation() string { return w.Urls.Location }

type WebhookList List[*Webhook]

type CreateWebhookInput struct {
	URL         *string  `json:"url,omitempty"`
	Events      []string `json:"events,omitempty"`
	Active      *bool    `json:"active,omitempty"`
	Description *string  `json:"description,omitempty"`
}

type UpdateWebhookInput struct {
	URL         *string  `json:"url,omitempty"`
	Events      []string `json:"events,omitempty"`
	Active      *bool    `json:"active,omitempty"`
	Description *string  `json:"description,omitempty"`
}

// WebhookDelivery is one event's delivery to an endpoint; its id is the
// event's id (an event is delivered once per endpoint; a replay sends the
// same event again).
type WebhookDelivery struct {
	Object         string  `json:"object"`
	ID             string  `json:"id"`
	EventID        string  `json:"eventId"`
	Type           string  `json:"type"`
	Status         string  `json:"status"`
	Attempts       int     `json:"attempts"`
	ResponseStatus *int    `json:"responseStatus"`
	DurationMs     *int    `json:"durationMs"`
	LastError      *string `json:"lastError"`
	LastAttemptAt  *string `json:"lastAttemptAt"`
	NextAttemptAt  *string `json:"nextAttemptAt"`
	CreatedAt      string  `json:"createdAt"`
}

type WebhookDeliveryList List[*WebhookDelivery]
