package rest

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

func init() { register(mountAudit) }

// mountAudit serves an organization's audit log (graph/audit.go).
func mountAudit(a *API, r chi.Router) {
	r.Get("/orgs/{organizationId}/audit-log", a.ok(func(r *http.Request) (any, error) {
		page, limit, err := paging(r)
		if err != nil {
			return nil, err
		}
		return a.Q.AuditLog(r.Context(), path(r, "organizationId"), qStr(r, "actor"), qStr(r, "action"),
			qStr(r, "targetType"), qStr(r, "targetId"), qStr(r, "from"), qStr(r, "to"), page, limit)
	}))
}
