package graph

import (
	"context"
	"regexp"
	"time"
	"unicode/utf8"

	"docsapi/apierr"
	"docsapi/auth"
	"docsapi/graph/model"
	"docsapi/storage"
)

// The audit log: resolvers describe each change they are about
// to make with recordChange (or storage.Recording when the change's id is
// only known once written); the storage's audit sink writes it in the same
// transaction, with the actor the server's actor source gives.

// recordChange returns ctx carrying one change of organization orgID for
// the next write made with it. fields summarizes what changed (new values;
// secrets as storage.Redacted).
func recordChange(ctx context.Context, orgID, action, targetType, targetID string, fields map[string]any) context.Context {
	return storage.RecordingChange(ctx, storage.Change{OrganizationID: orgID, Action: action, TargetType: targetType, TargetID: targetID, Fields: fields})
}

// changed is a field summary of the optional inputs that were given: each
// pair is a field name and a pointer (nil pointers are left out).
func changed(pairs ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(pairs); i += 2 {
		name, _ := pairs[i].(string)
		switch v := pairs[i+1].(type) {
		case nil:
		case *string:
			if v != nil {
				m[name] = *v
			}
		case *bool:
			if v != nil {
				m[name] = *v
			}
		case *int:
			if v != nil {
				m[name] = *v
			}
		case *[]string:
			if v != nil {
				m[name] = *v
			}
		case **string: // set to a value or to null
			if v != nil {
				m[name] = *v
			}
		default:
			m[name] = v
		}
	}
	return m
}

var (
	auditActionRe = regexp.MustCompile(`^[a-z][a-z_]*(\.([a-z_]+)?)?$`)
	auditTypeRe   = regexp.MustCompile(`^[a-z][a-z_]*$`)
)

// auditFilter validates the audit log's filters; each bad value is a 400
// naming its field.
func auditFilter(actor, action, targetType, targetID, from, to *string) (storage.AuditFilter, error) {
	var f storage.AuditFilter
	if actor != nil {
		if err := checkID("actor", *actor); err != nil {
			return f, err
		}
		f.ActorID = *actor
	}
	if action != nil {
		if len(*action) > 64 || !auditActionRe.MatchString(*action) {
			return f, apierr.Invalid("action", "must be an action such as space.created, or a prefix ending with a dot such as space.")
		}
		f.Action = *action
		// "space." and "space" both mean every space action.
		if n := len(f.Action); f.Action[n-1] == '.' {
			f.ActionPrefix = true
		} else if !containsByte(f.Action, '.') {
			f.Action, f.ActionPrefix = f.Action+".", true
		}
	}
	if targetType != nil {
		if len(*targetType) > 64 || !auditTypeRe.MatchString(*targetType) {
			return f, apierr.Invalid("targetType", "must be a target type such as space or member")
		}
		f.TargetType = *targetType
	}
	if targetID != nil {
		if err := checkID("targetId", *targetID); err != nil {
			return f, err
		}
		f.TargetID = *targetID
	}
	var err error
	if f.From, err = rfc3339("from", from); err != nil {
		return f, err
	}
	if f.To, err = rfc3339("to", to); err != nil {
		return f, err
	}
	if f.From != nil && f.To != nil && f.To.Before(*f.From) {
		return f, apierr.Invalid("to", "must not be before from")
	}
	return f, nil
}

// contentChanges is the record of an update of a space or a collection:
// the update itself and, when its default level was set, a
// permission.changed on the same target.
func contentChanges(ctx context.Context, orgID, targetType, targetID string, fields map[string]any, defaultLevel **string) context.Context {
	cs := []storage.Change{{OrganizationID: orgID, Action: targetType + ".updated", TargetType: targetType, TargetID: targetID, Fields: fields}}
	if defaultLevel != nil {
		cs = append(cs, storage.Change{OrganizationID: orgID, Action: "permission.changed", TargetType: targetType, TargetID: targetID,
			Fields: map[string]any{"defaultLevel": *defaultLevel}})
	}
	return storage.Recording(ctx, func() []storage.Change { return cs })
}

// transferChanges records a transfer in both organizations: it left one
// and arrived in the other.
func transferChanges(ctx context.Context, targetType, targetID, from, to string) context.Context {
	return storage.Recording(ctx, func() []storage.Change {
		return []storage.Change{
			{OrganizationID: from, Action: targetType + ".transferred", TargetType: targetType, TargetID: targetID, Fields: map[string]any{"from": from, "to": to}},
			{OrganizationID: to, Action: targetType + ".transferred", TargetType: targetType, TargetID: targetID, Fields: map[string]any{"from": from, "to": to}},
		}
	})
}

// tokenChanges records a personal token's creation or revocation in the
// audit log of every organization the token reaches: the one its caller is
// scoped to, or else each organization its user belongs to (one read of the
// user's memberships). id is read when the write records (a created
// token's id is made by the write); fields never hold the secret.
func (r *Resolver) tokenChanges(ctx context.Context, c auth.Caller, action string, id func() string, fields map[string]any) (context.Context, error) {
	orgs := []string{c.OrganizationID}
	if c.OrganizationID == "" {
		var err error
		if orgs, err = r.Store.MemberOrganizations(ctx, c.UserID); err != nil {
			return ctx, err
		}
	}
	return storage.Recording(ctx, func() []storage.Change {
		cs := make([]storage.Change, 0, len(orgs))
		for _, org := range orgs {
			cs = append(cs, storage.Change{OrganizationID: org, Action: action, TargetType: "token", TargetID: id(), Fields: fields})
		}
		return cs
	}), nil
}

// checkID checks an id filter: 1 to 128 characters of valid UTF-8 (what
// PostgreSQL accepts as a text parameter).
func checkID(field, v string) error {
	if !utf8.ValidString(v) {
		return apierr.Invalid(field, "must be valid UTF-8")
	}
	return checkLen(field, v, 1, 128)
}

func containsByte(s string, b byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return true
		}
	}
	return false
}

// rfc3339 parses an optional RFC 3339 time.
func rfc3339(field string, v *string) (*time.Time, error) {
	if v == nil {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, *v)
	if err != nil || len(*v) > 64 {
		return nil, apierr.Invalid(field, "must be an RFC 3339 date-time such as 2026-01-02T03:04:05Z")
	}
	return &t, nil
}

// auditLog pages through an organization's audit log (ADMIN only; another
// organization is a 404 like any resource of it).
func (r *Resolver) auditLog(ctx context.Context, orgID string, actor, action, targetType, targetID, from, to, page *string, limit *int) (*model.AuditEntryList, error) {
	if _, err := r.inOrgAtLeast(ctx, orgID, "admin", "reading the audit log"); err != nil {
		return nil, err
	}
	f, err := auditFilter(actor, action, targetType, targetID, from, to)
	if err != nil {
		return nil, err
	}
	pq, err := pageQuery(page, limit)
	if err != nil {
		return nil, err
	}
	p, err := r.Store.ListAudit(ctx, orgID, f, pq)
	if err != nil {
		return nil, err
	}
	l := model.AuditEntryList(listOf(p, auditEntryModel))
	return &l, nil
}

func auditEntryModel(e storage.AuditEntry) *model.AuditEntry {
	fields := e.Fields
	if fields == nil {
		fields = map[string]any{}
	}
	return &model.AuditEntry{Object: "audit-entry", ID: e.ID, Action: e.Action,
		Target: model.AuditTarget{Type: e.TargetType, ID: e.TargetID},
		Actor: model.AuditActor{User: nonEmpty(e.Actor.UserID), Token: nonEmpty(e.Actor.TokenID),
			Address: nonEmpty(e.Actor.Address), RequestID: nonEmpty(e.Actor.RequestID)},
		CreatedAt: model.Time(e.CreatedAt), Fields: fields}
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
