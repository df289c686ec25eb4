package rest

import "docsapi/graph/model"

// Declarations of the routes in webhooks.go for the served API description.
// They extend the published interface, so the names are docsapi's own.

func init() {
	describe(
		Operation{Method: "GET", Pattern: "/orgs/{organizationId}/webhooks", ID: "listOrganizationWebhooks", Tag: "webhooks",
			Summary: "An organization's webhooks, oldest first, without their secrets (admin).", Query: pageParams, Status: 200, Response: model.WebhookList{}},
		Operation{Method: "POST", Pattern: "/orgs/{organizationId}/webhooks", ID: "createOrganizationWebhook", Tag: "webhooks",
			Summary: "Register a webhook (admin): `url`, `events` (space.created, space.updated, space.moved, space.transferred, space.deleted, space.restored, " +
				"page.changed, change-request.opened, change-request.merged, change-request.closed, comment.created, comment.resolved, site.published, " +
				"site.unpublished, member.added, member.role-changed, member.removed, collection.created, collection.updated, collection.deleted, " +
				"integration.installed, integration.uninstalled, space.git-synced), `active`, `description`. The answer's `secret` signs the deliveries and is shown only here.",
			Body: model.CreateWebhookInput{}, Status: 201, Response: model.Webhook{}},
		Operation{Method: "GET", Pattern: webhookPath, ID: "getOrganizationWebhookById", Tag: "webhooks",
			Summary: "A webhook, with `disabledReason` and `disabledAt` when failing deliveries disabled it (admin).", Status: 200, Response: model.Webhook{}},
		Operation{Method: "PATCH", Pattern: webhookPath, ID: "updateOrganizationWebhookById", Tag: "webhooks",
			Summary: "Change a webhook's url, events, description or active flag (admin); `active: true` clears `disabledReason`.",
			Body:    model.UpdateWebhookInput{}, Status: 200, Response: model.Webhook{}},
		Operation{Method: "DELETE", Pattern: webhookPath, ID: "deleteOrganizationWebhookById", Tag: "webhooks",
			Summary: "Delete a webhook with its deliveries (admin).", Status: 205},
		Operation{Method: "POST", Pattern: webhookPath + "/secret/rotate", ID: "rotateOrganizationWebhookSecret", Tag: "webhooks",
			Summary: "Replace a webhook's signing secret (admin); the answer's `secret` is the new one. The previous secret keeps signing beside it " +
				"until `previousSecretExpiresAt` (24 hours unless configured).", Status: 200, Response: model.Webhook{}},
		Operation{Method: "GET", Pattern: webhookPath + "/deliveries", ID: "listOrganizationWebhookDeliveries", Tag: "webhooks",
			Summary: "A webhook's deliveries, newest first: status, attempts, last answer's status, duration and error, next retry (admin).",
			Query:   pageParams, Status: 200, Response: model.WebhookDeliveryList{}},
		Operation{Method: "POST", Pattern: webhookPath + "/deliveries/{deliveryId}/replay", ID: "replayOrganizationWebhookDelivery", Tag: "webhooks",
			Summary: "Queue a finished delivery again: same event id and body, a new attempt (admin; 409 while it is pending or the webhook is inactive).",
			Status:  202, Response: model.WebhookDelivery{}},
		Operation{Method: "POST", Pattern: webhookPath + "/ping", ID: "pingOrganizationWebhook", Tag: "webhooks",
			Summary: "Queue a `ping` event to the webhook (admin; 409 when it is inactive).", Status: 202, Response: model.WebhookDelivery{}},
	)
}
