package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"docsapi/graph/model"
)

// Webhooks: an extension beside the published interface (README
// "Webhooks"). The rules are the resolvers' (graph/webhooks.go).

func init() { register(mountWebhooks) }

const webhookPath = "/orgs/{organizationId}/webhooks/{webhookId}"

func mountWebhooks(a *API, r chi.Router) {
	r.Get("/orgs/{organizationId}/webhooks", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.Webhooks(r.Context(), path(r, "organizationId"), page, limit)
	}))
	r.Post("/orgs/{organizationId}/webhooks", a.created(func(r *http.Request) (any, error) {
		var in model.CreateWebhookInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.CreateWebhook(r.Context(), path(r, "organizationId"), in)
	}))
	r.Get(webhookPath, a.ok(func(r *http.Request) (any, error) {
		return a.Q.Webhook(r.Context(), path(r, "organizationId"), path(r, "webhookId"))
	}))
	r.Patch(webhookPath, a.ok(func(r *http.Request) (any, error) {
		var in model.UpdateWebhookInput
		if err := decode(r, &in, bodyRequired); err != nil {
			return nil, err
		}
		return a.M.UpdateWebhook(r.Context(), path(r, "organizationId"), path(r, "webhookId"), in)
	}))
	r.Delete(webhookPath, a.deleted(func(r *http.Request) (*model.DeleteResult, error) {
		return a.M.DeleteWebhook(r.Context(), path(r, "organizationId"), path(r, "webhookId"))
	}))
	r.Post(webhookPath+"/secret/rotate", a.ok(func(r *http.Request) (any, error) {
		return a.M.RotateWebhookSecret(r.Context(), path(r, "organizationId"), path(r, "webhookId"))
	}))
	r.Get(webhookPath+"/deliveries", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.WebhookDeliveries(r.Context(), path(r, "organizationId"), path(r, "webhookId"), page, limit)
	}))
	r.Post(webhookPath+"/deliveries/{deliveryId}/replay", a.status(http.StatusAccepted, func(r *http.Request) (any, error) {
		return a.M.ReplayWebhookDelivery(r.Context(), path(r, "organizationId"), path(r, "webhookId"), path(r, "deliveryId"))
	}))
	r.Post(webhookPath+"/ping", a.status(http.StatusAccepted, func(r *http.Request) (any, error) {
		return a.M.PingWebhook(r.Context(), path(r, "organizationId"), path(r, "webhookId"))
	}))
}
