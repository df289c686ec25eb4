package rest

import "docsapi/graph/model"

// Declaration of the route in audit.go for the served API description. The
// audit log extends the published interface, so the name is docsapi's own.

func init() {
	describe(
		Operation{Method: "GET", Pattern: "/orgs/{organizationId}/audit-log", ID: "listOrganizationAuditLog", Tag: "organizations",
			Summary: "The organization's audit log, newest first (admin): who changed what, when and from where. Actions are `<target>.<past-tense verb>` (README \"Audit log\").",
			Query: append([]Param{
				{Name: "actor", Type: "", Description: "Only changes made by this user id."},
				{Name: "action", Type: "", Description: "Only this action (`space.created`), or every action of a target with a prefix ending in a dot (`space.`)."},
				{Name: "targetType", Type: "", Description: "Only changes to this kind of target (`space`, `member`, ...)."},
				{Name: "targetId", Type: "", Description: "Only changes to this target id."},
				{Name: "from", Type: "", Description: "Only changes at or after this RFC 3339 date-time."},
				{Name: "to", Type: "", Description: "Only changes at or before this RFC 3339 date-time."},
			}, pageParams...),
			Status: 200, Response: model.AuditEntryList{}},
	)
}
