package rest_test

// Authorization rules and fixtures of the webhook routes: admins only.

func init() {
	hooks := func(f *fixture) string { return "/v1/orgs/" + f.Org + "/webhooks" }
	hook := func(f *fixture) string { return hooks(f) + "/" + f.IDs["webhook"] }
	fixtureSetups = append(fixtureSetups, func(f *fixture) {
		admin := f.ByRole["admin"].Token
		f.IDs["webhook"] = f.Env.Must(201, "POST", hooks(f), admin, map[string]any{"url": "https://hooks.example.com/in", "events": []string{"space.created"}}).JSON()["id"].(string)
		f.IDs["webhookDelivery"] = f.Env.Must(202, "POST", hook(f)+"/ping", admin, nil).JSON()["id"].(string)
	})
	p := "/v1/orgs/{organizationId}/webhooks"
	rules := map[string]authzRule{
		"GET " + p:                                 {Min: "admin", Path: hooks},
		"POST " + p:                                {Min: "admin", Path: hooks, Body: map[string]any{"url": "https://hooks.example.com/b", "events": []string{"page.changed"}}},
		"GET " + p + "/{webhookId}":                {Min: "admin", Path: hook},
		"PATCH " + p + "/{webhookId}":              {Min: "admin", Path: hook, Body: map[string]any{"description": "CI"}},
		"DELETE " + p + "/{webhookId}":             {Min: "admin", Path: hook},
		"POST " + p + "/{webhookId}/secret/rotate": {Min: "admin", Path: func(f *fixture) string { return hook(f) + "/secret/rotate" }},
		"GET " + p + "/{webhookId}/deliveries":     {Min: "admin", Path: func(f *fixture) string { return hook(f) + "/deliveries" }},
		"POST " + p + "/{webhookId}/ping":          {Min: "admin", Path: func(f *fixture) string { return hook(f) + "/ping" }},
		"POST " + p + "/{webhookId}/deliveries/{deliveryId}/replay": {Min: "admin",
			Path: func(f *fixture) string { return hook(f) + "/deliveries/" + f.IDs["webhookDelivery"] + "/replay" }},
	}
	for k, v := range rules {
		authzRules[k] = v
	}
}
