package graph

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"docsapi/apierr"
	"docsapi/graph/model"
	"docsapi/storage"
)

// Webhooks: endpoints an organization's admins register, signed
// deliveries of the organization's changes to them (the outbox is
// storage/webhooks.go, the sender delivery/webhooks.go).

const (
	webhookURLMax         = 2048
	webhookDescriptionMax = 500
	webhookEventsMax      = 32
	// DefaultWebhookSecretGrace is how long a rotated-out secret keeps
	// signing deliveries beside the new one (Config.WebhookSecretGrace).
	DefaultWebhookSecretGrace = 24 * time.Hour
)

// webhookScope loads an organization's webhook for one of its admins:
// another organization's webhook, or an unknown id, is a 404.
func (r *Resolver) webhookScope(ctx context.Context, orgID, webhookID string) (orgScope, storage.Webhook, error) {
	s, err := r.inOrgAtLeast(ctx, orgID, "admin", "managing webhooks")
	if err != nil {
		return s, storage.Webhook{}, err
	}
	w, err := r.Store.Webhook(ctx, s.Org.ID, webhookID)
	return s, w, notFoundAs(err, "webhook")
}

// webhookModel is the API shape of a webhook; secret is set only in the
// answers of a creation and a rotation.
func (r *Resolver) webhookModel(orgID string, w storage.Webhook, secret string) *model.Webhook {
	m := &model.Webhook{Object: "webhook", ID: w.ID, URL: w.URL, Description: w.Description, Events: w.Events, Active: w.Active,
		CreatedAt: model.Time(w.CreatedAt), UpdatedAt: model.Time(w.UpdatedAt),
		DisabledReason: w.DisabledReason, DisabledAt: model.TimePtr(w.DisabledAt),
		Urls: model.WebhookURLs{Location: r.Config.PublicURL + "/v1/orgs/" + orgID + "/webhooks/" + w.ID}}
	if m.Events == nil {
		m.Events = []string{}
	}
	if w.PreviousSecretUntil != nil && w.PreviousSecretUntil.After(r.Now()) {
		m.PreviousSecretExpiresAt = model.TimePtr(w.PreviousSecretUntil)
	}
	if secret != "" {
		m.Secret = &secret
	}
	return m
}

func webhookDeliveryModel(d storage.WebhookDelivery) *model.WebhookDelivery {
	return &model.WebhookDelivery{Object: "webhook-delivery", ID: d.EventID, EventID: d.EventID, Type: d.Type, Status: d.Status,
		Attempts: d.Attempts, ResponseStatus: d.ResponseStatus, DurationMs: d.DurationMs, LastError: d.LastError,
		LastAttemptAt: model.TimePtr(d.LastAttemptAt), NextAttemptAt: model.TimePtr(d.NextAttemptAt), CreatedAt: model.Time(d.CreatedAt)}
}

// webhookLimit turns a write refused for a per-organization cap into the
// answer naming the cap and its flag (anything else is returned as is).
func webhookLimit(err error) error {
	var le *storage.WebhookLimitError
	switch {
	case !errors.As(err, &le):
		return err
	case le.Queue:
		return &apierr.Error{Status: http.StatusTooManyRequests, RetryAfter: 60, Message: fmt.Sprintf(
			"the organization has %d webhook deliveries queued, the most it may have (--webhook-max-pending): try again once they have been sent", le.Limit)}
	default:
		return apierr.New(http.StatusUnprocessableEntity,
			"the organization has %d webhooks, the most it may have (--webhook-max-endpoints): delete one before creating another", le.Limit)
	}
}

// newWebhookSecret is a signing secret: 256 random bits (crypto/rand).
func newWebhookSecret() string { return "whsec_" + newSecret() }

// checkWebhookEvents validates a subscription list: 1 to 32 distinct
// documented events; the first wrong one is named events[i].
func checkWebhookEvents(events []string) error {
	if len(events) == 0 {
		return apierr.Invalid("events", "must list at least one event")
	}
	if len(events) > webhookEventsMax {
		return apierr.Invalid("events", "must list at most %d events", webhookEventsMax)
	}
	seen := make(map[string]bool, len(events))
	for i, e := range events {
		field := "events[" + itoa(i) + "]"
		switch {
		case !storage.IsWebhookEvent(e):
			return apierr.Invalid(field, "must be one of the documented events (webhookEvents; got %q)", e)
		case seen[e]:
			return apierr.Invalid(field, "repeats %q", e)
		}
		seen[e] = true
	}
	return nil
}

// checkWebhookInput validates the fields a create or update carries.
func checkWebhookInput(url, description *string, events []string) error {
	if url != nil {
		if err := checkURL("url", *url, webhookURLMax); err != nil {
			return err
		}
	}
	if err := checkLenPtr("description", description, 0, webhookDescriptionMax); err != nil {
		return err
	}
	if events != nil {
		return checkWebhookEvents(events)
	}
	return nil
}

func (r *Resolver) createWebhook(ctx context.Context, orgID string, in model.CreateWebhookInput) (*model.Webhook, error) {
	s, err := r.inOrgAtLeast(ctx, orgID, "admin", "managing webhooks")
	if err != nil {
		return nil, err
	}
	if in.URL == nil {
		return nil, apierr.Invalid("url", "is required")
	}
	if in.Events == nil {
		return nil, apierr.Invalid("events", "is required")
	}
	if err := checkWebhookInput(in.URL, in.Description, in.Events); err != nil {
		return nil, err
	}
	w := storage.Webhook{OrganizationID: s.Org.ID, URL: *in.URL, Description: deref(in.Description), Events: in.Events,
		Active: in.Active == nil || *in.Active, Secret: newWebhookSecret()}
	if err := r.Store.CreateWebhook(ctx, &w); err != nil {
		return nil, webhookLimit(err)
	}
	return r.webhookModel(s.Org.ID, w, w.Secret), nil
}

func (r *Resolver) updateWebhook(ctx context.Context, orgID, webhookID string, in model.UpdateWebhookInput) (*model.Webhook, error) {
	s, _, err := r.webhookScope(ctx, orgID, webhookID)
	if err != nil {
		return nil, err
	}
	if in.URL == nil && in.Events == nil && in.Active == nil && in.Description == nil {
		return nil, apierr.Invalid("body", "needs at least one of url, events, active, description")
	}
	if err := checkWebhookInput(in.URL, in.Description, in.Events); err != nil {
		return nil, err
	}
	u := storage.WebhookUpdate{URL: in.URL, Description: in.Description, Events: in.Events, Active: in.Active}
	if err := r.Store.UpdateWebhook(ctx, s.Org.ID, webhookID, u); err != nil {
		return nil, notFoundAs(err, "webhook")
	}
	w, err := r.Store.Webhook(ctx, s.Org.ID, webhookID)
	if err != nil {
		return nil, notFoundAs(err, "webhook")
	}
	return r.webhookModel(s.Org.ID, w, ""), nil
}

// deleteWebhook: what the caller may not see counts as not existing (204).
func (r *Resolver) deleteWebhook(ctx context.Context, orgID, webhookID string) (*model.DeleteResult, error) {
	s, err := r.inOrgAtLeast(ctx, orgID, "admin", "managing webhooks")
	if apierr.Status(err) == 404 {
		return &model.DeleteResult{Deleted: false}, nil
	}
	if err != nil {
		return nil, err
	}
	deleted, err := r.Store.DeleteWebhook(ctx, s.Org.ID, webhookID)
	if err != nil {
		return nil, err
	}
	return &model.DeleteResult{Deleted: deleted}, nil
}

// rotateWebhookSecret: the old secret signs beside the new one for the
// grace period, so a receiver can switch without refusing deliveries.
func (r *Resolver) rotateWebhookSecret(ctx context.Context, orgID, webhookID string) (*model.Webhook, error) {
	s, _, err := r.webhookScope(ctx, orgID, webhookID)
	if err != nil {
		return nil, err
	}
	grace := r.Config.WebhookSecretGrace
	if grace <= 0 {
		grace = DefaultWebhookSecretGrace
	}
	secret := newWebhookSecret()
	if err := r.Store.RotateWebhookSecret(ctx, s.Org.ID, webhookID, secret, r.Now().Add(grace)); err != nil {
		return nil, notFoundAs(err, "webhook")
	}
	w, err := r.Store.Webhook(ctx, s.Org.ID, webhookID)
	if err != nil {
		return nil, notFoundAs(err, "webhook")
	}
	return r.webhookModel(s.Org.ID, w, secret), nil
}

func (r *Resolver) webhooks(ctx context.Context, orgID string, page *string, limit *int) (*model.WebhookList, error) {
	s, err := r.inOrgAtLeast(ctx, orgID, "admin", "managing webhooks")
	if err != nil {
		return nil, err
	}
	pq, err := pageQuery(page, limit)
	if err != nil {
		return nil, err
	}
	p, err := r.Store.ListWebhooks(ctx, s.Org.ID, pq)
	if err != nil {
		return nil, err
	}
	l := model.WebhookList(listOf(p, func(w storage.Webhook) *model.Webhook { return r.webhookModel(s.Org.ID, w, "") }))
	return &l, nil
}

func (r *Resolver) webhookDeliveries(ctx context.Context, orgID, webhookID string, page *string, limit *int) (*model.WebhookDeliveryList, error) {
	_, w, err := r.webhookScope(ctx, orgID, webhookID)
	if err != nil {
		return nil, err
	}
	pq, err := pageQuery(page, limit)
	if err != nil {
		return nil, err
	}
	p, err := r.Store.ListWebhookDeliveries(ctx, w.ID, pq)
	if err != nil {
		return nil, err
	}
	l := model.WebhookDeliveryList(listOf(p, webhookDeliveryModel))
	return &l, nil
}

// activeWebhook is webhookScope for sending: an inactive endpoint would
// not be sent anything, so queuing for it is refused (409).
func (r *Resolver) activeWebhook(ctx context.Context, orgID, webhookID string) (orgScope, storage.Webhook, error) {
	s, w, err := r.webhookScope(ctx, orgID, webhookID)
	if err == nil && !w.Active {
		err = apierr.Conflict("the webhook is inactive: activate it (PATCH active: true) before sending to it")
	}
	return s, w, err
}

func (r *Resolver) replayWebhookDelivery(ctx context.Context, orgID, webhookID, deliveryID string) (*model.WebhookDelivery, error) {
	_, w, err := r.activeWebhook(ctx, orgID, webhookID)
	if err != nil {
		return nil, err
	}
	switch err := r.Store.ReplayWebhookDelivery(ctx, w.ID, deliveryID); {
	case errors.Is(err, storage.ErrDeliveryPending):
		return nil, apierr.Conflict("the delivery is still pending: it can be replayed once it has succeeded or failed")
	case err != nil:
		return nil, notFoundAs(webhookLimit(err), "delivery")
	}
	d, err := r.Store.WebhookDeliveryOf(ctx, w.ID, deliveryID)
	if err != nil {
		return nil, notFoundAs(err, "delivery")
	}
	return webhookDeliveryModel(d), nil
}

func (r *Resolver) pingWebhook(ctx context.Context, orgID, webhookID string) (*model.WebhookDelivery, error) {
	s, w, err := r.activeWebhook(ctx, orgID, webhookID)
	if err != nil {
		return nil, err
	}
	id, err := r.Store.QueueWebhookPing(ctx, s.Org.ID, w.ID)
	if err != nil {
		return nil, webhookLimit(err)
	}
	d, err := r.Store.WebhookDeliveryOf(ctx, w.ID, id)
	if err != nil {
		return nil, err
	}
	return webhookDeliveryModel(d), nil
}
